/**
 * A TURN Allocate over UDP (RFC 8656), as a browser makes one with the credentials of
 * `GET /api/v1/voice/ice-servers`: the first request is refused with 401 and the server's realm
 * and nonce, the second carries USERNAME, REALM, NONCE and a MESSAGE-INTEGRITY keyed with
 * MD5(username:realm:credential) (the long-term credential, which coturn's `use-auth-secret`
 * checks against HMAC-SHA1(static-auth-secret, username)).
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";

const MAGIC = 0x2112a442;
const ALLOCATE = 0x0003;
const ALLOCATE_SUCCESS = 0x0103;
const ATTR = { USERNAME: 0x0006, MESSAGE_INTEGRITY: 0x0008, ERROR_CODE: 0x0009, REALM: 0x0014, NONCE: 0x0015, XOR_RELAYED_ADDRESS: 0x0016, REQUESTED_TRANSPORT: 0x0019 } as const;

export type AllocateResult = { ok: true; relayed: { address: string; port: number } } | { ok: false; code: number; reason: string };

function attribute(type: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
}

function message(type: number, attributes: Buffer[], integrityKey?: Buffer): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(type, 0);
  header.writeUInt32BE(MAGIC, 4);
  randomBytes(12).copy(header, 8);
  const body = Buffer.concat(attributes);
  if (!integrityKey) {
    header.writeUInt16BE(body.length, 2);
    return Buffer.concat([header, body]);
  }
  // The length counts the MESSAGE-INTEGRITY attribute (24 bytes) the HMAC is computed before.
  header.writeUInt16BE(body.length + 24, 2);
  const hmac = createHmac("sha1", integrityKey).update(Buffer.concat([header, body])).digest();
  return Buffer.concat([header, body, attribute(ATTR.MESSAGE_INTEGRITY, hmac)]);
}

function parse(packet: Buffer): { type: number; attributes: Map<number, Buffer> } {
  const attributes = new Map<number, Buffer>();
  let offset = 20;
  const end = 20 + packet.readUInt16BE(2);
  while (offset + 4 <= end) {
    const type = packet.readUInt16BE(offset);
    const length = packet.readUInt16BE(offset + 2);
    attributes.set(type, packet.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length + ((4 - (length % 4)) % 4);
  }
  return { type: packet.readUInt16BE(0), attributes };
}

/** One UDP socket for the whole exchange: coturn ties its nonce to the client's address and port. */
function udpClient(host: string, port: number) {
  const socket = createSocket("udp4");
  return {
    exchange(request: Buffer): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no TURN answer from ${host}:${port}`)), 5000);
        socket.once("message", (packet) => {
          clearTimeout(timer);
          resolve(packet);
        });
        socket.send(request, port, host);
      });
    },
    close: () => socket.close(),
  };
}

function result(packet: Buffer): AllocateResult {
  const { type, attributes } = parse(packet);
  if (type === ALLOCATE_SUCCESS) {
    const relayed = attributes.get(ATTR.XOR_RELAYED_ADDRESS)!;
    const port = relayed.readUInt16BE(2) ^ (MAGIC >>> 16);
    const address = [0, 1, 2, 3].map((i) => relayed[4 + i]! ^ ((MAGIC >>> (24 - 8 * i)) & 0xff)).join(".");
    return { ok: true, relayed: { address, port } };
  }
  const error = attributes.get(ATTR.ERROR_CODE);
  // coturn ends its reason phrases with a NUL.
  return { ok: false, code: error ? error[2]! * 100 + error[3]! : 0, reason: error ? error.subarray(4).toString("utf8").replace(/\0+$/, "") : `message type 0x${type.toString(16)}` };
}

/** Allocates a UDP relay on the TURN server at host:port with a long-term credential. */
export async function turnAllocate(host: string, port: number, username: string, credential: string): Promise<AllocateResult> {
  const client = udpClient(host, port);
  try {
    const transport = attribute(ATTR.REQUESTED_TRANSPORT, Buffer.from([17, 0, 0, 0]));
    const first = await client.exchange(message(ALLOCATE, [transport]));
    const challenge = parse(first);
    const realm = challenge.attributes.get(ATTR.REALM);
    const nonce = challenge.attributes.get(ATTR.NONCE);
    if (!realm || !nonce) return result(first);
    const key = createHash("md5").update(`${username}:${realm.toString("utf8")}:${credential}`).digest();
    const request = message(ALLOCATE, [attribute(ATTR.USERNAME, Buffer.from(username)), attribute(ATTR.REALM, realm), attribute(ATTR.NONCE, nonce), transport], key);
    return result(await client.exchange(request));
  } finally {
    client.close();
  }
}
