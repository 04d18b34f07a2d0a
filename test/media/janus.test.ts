/**
 * The arrangement the media suites stand on (docs/testing.md, "Media tests"), without a browser:
 * the network namespace of `npm run test:media` has no route out; coturn listens there on
 * HEARTH_MEDIA_IP; a Janus started by test/helpers/janus.ts answers its Admin API, lets a
 * session in only with a token added through that API, and its VideoRoom takes UUID room ids,
 * creates rooms only with the admin key and keeps a room's allow list.
 *
 * Outside that namespace (`npm test` runs every *.test.ts) there is nothing to check: skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCoturn } from "../helpers/coturn.ts";
import { adminRequest, openJanusSocket, videoroomAdmin, type JanusSocket } from "../helpers/janus-api.ts";
import { startJanus, VIDEOROOM, type Janus } from "../helpers/janus.ts";

const MEDIA_IP = process.env.HEARTH_MEDIA_IP;

function ip(...args: string[]): { code: number; out: string } {
  const run = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, out: `${run.stdout.toString()}${run.stderr.toString()}` };
}

/** A STUN Binding request (RFC 8489) to `host:port` over UDP; resolves with the reply's message type. */
async function stunBinding(host: string, port: number): Promise<number> {
  const request = new Uint8Array(20);
  const view = new DataView(request.buffer);
  view.setUint16(0, 0x0001); // Binding request, no attributes
  view.setUint32(4, 0x2112a442); // magic cookie
  crypto.getRandomValues(request.subarray(8));
  const { promise, resolve, reject } = Promise.withResolvers<number>();
  const socket = await Bun.udpSocket({
    socket: {
      data(_socket, data) {
        if (Buffer.from(data.subarray(8, 20)).equals(Buffer.from(request.subarray(8)))) resolve(new DataView(data.buffer, data.byteOffset).getUint16(0));
      },
    },
  });
  const timer = setTimeout(() => reject(new Error(`no STUN reply from ${host}:${port}`)), 2000);
  socket.send(request, port, host);
  try {
    return await promise;
  } finally {
    clearTimeout(timer);
    socket.close();
  }
}

const canConnect = (hostname: string, port: number) =>
  Bun.connect({ hostname, port, socket: { data() {} } }).then(
    (socket) => (socket.end(), true),
    () => false,
  );

describe.skipIf(!MEDIA_IP)("the media namespace (npm run test:media)", () => {
  let janus: Janus;
  beforeAll(async () => {
    janus = await startJanus();
  });
  afterAll(() => janus?.stop());

  test("no route out: no default route, and an outside address is unreachable", () => {
    const routes = ip("route");
    expect(routes.code).toBe(0);
    expect(routes.out).not.toMatch(/^default/m);
    expect(ip("-6", "route").out).not.toMatch(/^default/m);
    expect(ip("route", "get", "8.8.8.8").out).toMatch(/unreachable/i);
    expect(ip("-4", "addr").out).toContain(`inet ${MEDIA_IP}/`);
  });

  test("coturn listens and answers STUN on HEARTH_MEDIA_IP, not on loopback", async () => {
    const coturn = await startCoturn();
    try {
      expect(coturn.ip).toBe(MEDIA_IP!);
      expect(coturn.url).toBe(`turn:${MEDIA_IP}:${coturn.port}?transport=udp`);
      expect(await stunBinding(MEDIA_IP!, coturn.port)).toBe(0x0101); // Binding success
      expect(await canConnect(MEDIA_IP!, coturn.port)).toBe(true);
      expect(await canConnect("127.0.0.1", coturn.port)).toBe(false);
    } finally {
      await coturn.stop();
    }
  });

  test("Janus answers the Admin API's info: the VideoRoom, WebSocket and HTTP only, ICE on its veth address, stored tokens", async () => {
    expect(janus.url).toStartWith(`ws://${janus.ip}:`);
    expect(janus.adminUrl).toMatch(new RegExp(`^http://${janus.ip.replaceAll(".", "\\.")}:\\d+/admin$`));
    const info = await adminRequest(janus, { janus: "info" });
    expect(info.janus).toBe("server_info");
    expect(info["version_string"]).toStartWith("1.1.");
    expect(Object.keys(info["plugins"] as object)).toEqual([VIDEOROOM]);
    expect(Object.keys(info["transports"] as object).sort()).toEqual(["janus.transport.http", "janus.transport.websockets"]);
    expect(info["events"]).toEqual({});
    expect(info["loggers"]).toEqual({});
    expect(info["local-ip"]).toBe(janus.ip);
    expect(info["ice-lite"]).toBe(false);
    expect(info["auth_token"]).toBe(true);
    expect(info["api_secret"]).toBe(false);
    expect(info["session-timeout"]).toBe(60);
    // The Admin API wants the secret for anything but info.
    const refused = await adminRequest(janus, { janus: "list_sessions", admin_secret: "wrong" });
    expect(refused.janus).toBe("error");
    expect(refused.error?.code).toBe(403);
  });

  test("a WebSocket session needs a token added through the Admin API; none, a wrong or a removed one is refused", async () => {
    const token = crypto.randomUUID();
    const added = await adminRequest(janus, { janus: "add_token", token, plugins: [VIDEOROOM] });
    expect(added).toMatchObject({ janus: "success", data: { plugins: [VIDEOROOM] } });
    const socket = await openJanusSocket(janus.url);
    try {
      const session = await socket.request({ janus: "create", token });
      expect(session.janus).toBe("success");
      const sessionId = (session.data as { id: number }).id;
      const handle = await socket.request({ janus: "attach", session_id: sessionId, plugin: VIDEOROOM, token });
      expect(handle.janus).toBe("success");
      await socket.request({ janus: "destroy", session_id: sessionId, token });

      for (const wrong of [{}, { token: "not-a-token" }]) {
        const reply = await socket.request({ janus: "create", ...wrong });
        expect(reply.janus).toBe("error");
        expect(reply.error?.code).toBe(403);
      }
      expect((await adminRequest(janus, { janus: "remove_token", token })).janus).toBe("success");
      expect((await socket.request({ janus: "create", token })).error?.code).toBe(403);
    } finally {
      socket.close();
    }
  });

  test("the VideoRoom: a room named by a UUID is made with the admin key only, its allow list is kept, and it is destroyed", async () => {
    const room = crypto.randomUUID();
    const roomSecret = crypto.randomUUID();
    const token = crypto.randomUUID();
    const other = crypto.randomUUID();
    const settings = { room, audiocodec: "opus", videocodec: "vp8", secret: roomSecret, is_private: true, allowed: [token], publishers: 100 };

    expect(await videoroomAdmin(janus, { request: "create", ...settings })).toMatchObject({ error_code: 429, error: expect.stringContaining("admin_key") });
    expect(await videoroomAdmin(janus, { request: "create", ...settings, admin_key: "wrong" })).toMatchObject({ error_code: 433 });
    expect(await videoroomAdmin(janus, { request: "exists", room })).toMatchObject({ exists: false });

    expect(await videoroomAdmin(janus, { request: "create", ...settings, admin_key: janus.secret })).toEqual({ videoroom: "created", room, permanent: false });
    expect(await videoroomAdmin(janus, { request: "exists", room })).toEqual({ videoroom: "success", room, exists: true });
    expect(await videoroomAdmin(janus, { request: "list", admin_key: janus.secret })).toMatchObject({ list: [expect.objectContaining({ room, audiocodec: "opus", max_publishers: 100 })] });

    const add = await videoroomAdmin(janus, { request: "allowed", room, secret: roomSecret, action: "add", allowed: [other] });
    expect(add).toMatchObject({ videoroom: "success", room });
    expect((add["allowed"] as string[]).sort()).toEqual([token, other].sort());
    expect(await videoroomAdmin(janus, { request: "allowed", room, secret: roomSecret, action: "remove", allowed: [other] })).toMatchObject({ allowed: [token] });
    expect(await videoroomAdmin(janus, { request: "allowed", room, secret: "wrong", action: "add", allowed: [other] })).toMatchObject({ error_code: 433 });
    expect(await videoroomAdmin(janus, { request: "listparticipants", room })).toEqual({ videoroom: "participants", room, participants: [] });

    expect(await videoroomAdmin(janus, { request: "destroy", room, secret: roomSecret })).toEqual({ videoroom: "destroyed", room, permanent: false });
    expect(await videoroomAdmin(janus, { request: "exists", room })).toMatchObject({ exists: false });
  });

  test("joining a room needs a token on its allow list", async () => {
    const room = crypto.randomUUID();
    const roomSecret = crypto.randomUUID();
    const token = crypto.randomUUID();
    await adminRequest(janus, { janus: "add_token", token, plugins: [VIDEOROOM] });
    await videoroomAdmin(janus, { request: "create", room, admin_key: janus.secret, audiocodec: "opus", secret: roomSecret, is_private: true, allowed: [token], publishers: 100 });
    let socket: JanusSocket | undefined;
    try {
      socket = await openJanusSocket(janus.url);
      const session = ((await socket.request({ janus: "create", token })).data as { id: number }).id;
      const handle = ((await socket.request({ janus: "attach", session_id: session, plugin: VIDEOROOM, token })).data as { id: number }).id;
      const join = async (body: Record<string, unknown>) => (await socket!.request({ janus: "message", session_id: session, handle_id: handle, token, body: { request: "join", ptype: "publisher", room, ...body } })).plugindata?.data;
      expect(await join({})).toMatchObject({ error_code: 433 });
      expect(await join({ token: "not-allowed" })).toMatchObject({ error_code: 433 });
      const joined = await join({ token, id: "person-1", display: "Ana" });
      expect(joined).toMatchObject({ videoroom: "joined", room, id: "person-1" });
      expect(await videoroomAdmin(janus, { request: "listparticipants", room })).toMatchObject({ participants: [expect.objectContaining({ id: "person-1", display: "Ana", publisher: false })] });
    } finally {
      socket?.close();
      await videoroomAdmin(janus, { request: "destroy", room, secret: roomSecret });
    }
  });
});
