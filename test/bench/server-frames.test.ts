import { describe, expect, test } from "bun:test";
import { ServerFrames } from "../../bench/server-frames.ts";

/** An unmasked server frame. */
function frame(opcode: number, payload: Uint8Array): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const f = Buffer.alloc(head + n);
  f[0] = 0x80 | opcode;
  if (n < 126) f[1] = n;
  else if (n < 65536) {
    f[1] = 126;
    f.writeUInt16BE(n, 2);
  } else {
    f[1] = 127;
    f.writeBigUInt64BE(BigInt(n), 2);
  }
  f.set(payload, head);
  return f;
}

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);

// Texts read whole, binaries read for their first 8 bytes only (as the audio receiver does).
const reads = (opcode: number, len: number) => (opcode === 0x2 ? 8 : len);
const payloads: [number, Uint8Array][] = [
  [0x1, new TextEncoder().encode('451-["bot:audio-data",{"pcm":{"_placeholder":true,"num":0}}]')],
  [0x2, bytes(3840, 1)],
  [0x1, new TextEncoder().encode("2")],
  [0x2, bytes(5, 2)],
  [0x9, bytes(0, 0)],
  [0x2, bytes(70000, 3)],
  [0x1, bytes(300, 4)],
  [0x2, bytes(126, 5)],
];
const ANSWER = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
const stream = Buffer.concat([Buffer.from(ANSWER), ...payloads.map(([op, p]) => frame(op, p))]);
/** What a reader must see of each frame: its opcode, its whole length, the bytes it reads. */
const expected = payloads.map(([op, p]) => ({ op, len: p.length, seen: Buffer.from(p.subarray(0, Math.min(p.length, reads(op, p.length)))).toString("hex") }));

function readAll(chunks: Buffer[]) {
  const seen: { op: number; len: number; seen: string }[] = [];
  const answers: (string | null)[] = [];
  const reader = new ServerFrames(
    reads,
    (buf, start, len, op) => {
      seen.push({ op, len, seen: buf.subarray(start, start + Math.min(len, reads(op, len))).toString("hex") });
    },
    (refusal) => answers.push(refusal),
  );
  for (const chunk of chunks) reader.push(chunk);
  expect(answers).toEqual([null]);
  return seen;
}

describe("ServerFrames (the benches' receivers)", () => {
  test("one chunk", () => {
    expect(readAll([stream])).toEqual(expected);
  });

  test("cut at every point into two chunks", () => {
    for (let cut = 1; cut < stream.length; cut += cut < 4200 ? 1 : 997) {
      expect(readAll([stream.subarray(0, cut), stream.subarray(cut)])).toEqual(expected);
    }
  });

  test("one byte at a time, and in chunks of every size up to 40", () => {
    for (let size = 1; size <= 40; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
      expect(readAll(chunks)).toEqual(expected);
    }
  });

  test("a refused upgrade: its status line, and nothing after it is read as frames", () => {
    const answers: (string | null)[] = [];
    let frames = 0;
    const r = new ServerFrames(reads, () => void frames++, (refusal) => answers.push(refusal));
    const refusal = Buffer.concat([Buffer.from("HTTP/1.1 400 Bad Request\r\nContent-Length: 9\r\n\r\n"), frame(0x1, Buffer.from("x"))]);
    r.push(refusal.subarray(0, 20));
    r.push(refusal.subarray(20));
    r.push(frame(0x2, bytes(10, 1)));
    expect(answers).toEqual(["upgrade refused: HTTP/1.1 400 Bad Request"]);
    expect(frames).toBe(0);
  });
});
