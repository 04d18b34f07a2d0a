import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect as tcpConnect } from "node:net";
import { GATEWAY_MAX_PACKET_BYTES } from "../../src/gateway/gateway.ts";
import { createHarness, MB } from "../helpers/robustness.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { sleep, until } from "../helpers/wait.ts";
import { addMember, createServer } from "../helpers/community.ts";

/**
 * Issue 14, point 7: the long-polling transport's POST bodies are bounded before the engine
 * reads them (src/gateway/polling-guard.ts). Attacks need no token, only a `sid`.
 */

let server: TestServer;
let user: TestUser;
beforeAll(async () => {
  server = await startServer();
  user = await server.register();
});
afterAll(() => server.stop());

const { rawRequest } = createHarness({ server: () => server, token: () => user.token });

/** A fresh Engine.IO polling session, as any client (no token needed) gets one. */
async function newSid(): Promise<string> {
  const text = await (await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`)).text();
  return (JSON.parse(text.slice(1)) as { sid: string }).sid;
}
const pollPath = (sid: string) => `/socket.io/?EIO=4&transport=polling&sid=${sid}`;

/**
 * Writes a POST head, then `chunk` over and over (as a chunked body when `chunked`) until the
 * server answers or closes, or `limit` bytes are written: the status (0 if none) and how many
 * body bytes the client had written when the answer came.
 */
function pumpBody(path: string, { chunked, limit, claimed }: { chunked: boolean; limit: number; claimed?: number }): Promise<{ status: number; sent: number }> {
  const chunk = new Uint8Array(256 * 1024).fill(0x61);
  const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk;
  const head =
    `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain;charset=UTF-8\r\n` +
    (chunked ? "transfer-encoding: chunked\r\n" : `content-length: ${claimed ?? limit}\r\n`) +
    "\r\n";
  return new Promise((resolve) => {
    let sent = 0;
    let answered = "";
    let done = false;
    const finish = (status: number) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, sent });
    };
    const socket = tcpConnect(server.app.port, "127.0.0.1", () => {
      socket.write(head);
      const pump = () => {
        while (!done && sent < limit) {
          sent += chunk.length;
          if (!socket.write(framed)) return void socket.once("drain", pump);
        }
      };
      pump();
    });
    socket.on("data", (data) => {
      answered += data.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answered);
      if (status) finish(Number(status[1]));
    });
    socket.on("error", () => finish(0));
    socket.on("close", () => finish(0));
    setTimeout(() => finish(0), 20_000);
  });
}

describe("long-polling POST bodies", () => {
  test("a Content-Length over the packet limit is 413 {error} before any of the body is sent", async () => {
    const answer = await rawRequest("POST", pollPath(await newSid()), { "content-type": "text/plain", "content-length": String(500 * MB) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: `Gateway payload too large: the limit is ${GATEWAY_MAX_PACKET_BYTES} bytes` });
  });

  test("a Content-Length one byte over the limit is 413; a POST without a session still gets the engine's 400", async () => {
    expect((await rawRequest("POST", pollPath(await newSid()), { "content-length": String(GATEWAY_MAX_PACKET_BYTES + 1) })).status).toBe(413);
    const noSession = await rawRequest("POST", "/socket.io/?EIO=4&transport=polling", { "content-type": "text/plain" }, "x");
    expect(noSession.status).toBe(400);
  });

  test("a 500 MiB body with its Content-Length is answered 413 long before it is sent", async () => {
    const { status, sent } = await pumpBody(pollPath(await newSid()), { chunked: false, limit: 500 * MB });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(64 * MB);
  });

  test("a chunked body is cut off with 413 once past the limit, long before its end", async () => {
    const { status, sent } = await pumpBody(pollPath(await newSid()), { chunked: true, limit: 500 * MB });
    expect(status).toBe(413);
    expect(sent).toBeGreaterThan(GATEWAY_MAX_PACKET_BYTES);
    expect(sent).toBeLessThan(64 * MB);
  });

  test("four 200 MiB bodies (two with Content-Length, two chunked) do not grow the server's memory", async () => {
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    for (const chunked of [false, true, false, true]) {
      const { status } = await pumpBody(pollPath(await newSid()), { chunked, limit: 200 * MB });
      expect(status).toBe(413);
    }
    Bun.gc(true);
    // Before the guard the engine read each body whole: RSS +500 MiB and more.
    expect((process.memoryUsage().rss - before) / MB).toBeLessThan(100);
  });

  test("a second POST of a session while the first is still being read is 400", async () => {
    const sid = await newSid();
    // The first POST: chunked, its body never finished.
    const first = tcpConnect(server.app.port, "127.0.0.1");
    await new Promise((resolve) => first.once("connect", resolve));
    first.write(`POST ${pollPath(sid)} HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n1\r\n4\r\n`);
    // Nothing tells when the server has read that head; a moment for it before the second POST.
    await sleep(100);
    const second = await fetch(server.url + pollPath(sid), { method: "POST", body: "6" });
    expect(second.status).toBe(400);
    expect(await second.json()).toEqual({ error: "Another POST of this session is in progress" });
    first.destroy();
  });
});

describe("polling clients still work", () => {
  test("a chunked POST within the limit reaches the engine: connect, an ack'd event, its answer", async () => {
    const sid = await newSid();
    const post = (packet: string) =>
      fetch(server.url + pollPath(sid), {
        method: "POST",
        headers: { "content-type": "text/plain;charset=UTF-8" },
        // A stream: fetch sends it chunked, without a Content-Length.
        body: new Blob([packet]).stream(),
        duplex: "half",
      } as RequestInit);
    const poll = async () => (await fetch(server.url + pollPath(sid))).text();
    const connected = await post(`40${JSON.stringify({ token: user.token })}`);
    expect([connected.status, await connected.text()]).toEqual([200, "ok"]);
    expect(await poll()).toStartWith('40{"sid":');
    const sent = await post(`421${JSON.stringify(["status:set", { status: "dnd" }])}`);
    expect(sent.status).toBe(200);
    // The connection's own `user:status` may come first in another poll (the presence write is
    // a round trip on PostgreSQL): poll until the ack is there.
    let polled = "";
    for (let i = 0; i < 5 && !polled.includes("431["); i++) polled += await poll();
    expect(polled).toContain(`431[${JSON.stringify({ ok: true, status: "dnd" })}]`);
  });

  test("socket.io-client on polling only: events both ways and binary audio frames, byte for byte", async () => {
    const owner = await server.register();
    const listener = await server.register();
    const serverId = await createServer(server, owner);
    await addMember(server, serverId, listener);
    const voice = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "voice", type: "voice" } });
    const channelId: string = voice.body.id;
    const speaker = await server.connect(owner.token, { transports: ["polling"] });
    const hearer = await server.connect(listener.token, { transports: ["polling"] });
    expect(speaker.io.engine.transport.name).toBe("polling");
    for (const s of [speaker, hearer]) expect(await s.emitWithAck("voice:join", { channelId })).toMatchObject({ ok: true });
    const heard = recordEvents(hearer, "bot:audio-data");
    const frames = Array.from({ length: 20 }, (_, n) => Uint8Array.from({ length: 3840 }, (_, i) => (i * 7 + n) & 0xff));
    for (const pcm of frames) speaker.emit("bot:audio-data", { channelId, pcm });
    await until(() => heard.length >= frames.length, "every frame over long-polling");
    expect(heard.map((frame) => new Uint8Array(frame.pcm))).toEqual(frames);
    // And a JSON event the other way.
    expect(await speaker.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    const status = waitForEvent(speaker, "user:status", { filter: (p) => p.userId === listener.id });
    expect(await hearer.emitWithAck("status:set", { status: "idle" })).toEqual({ ok: true, status: "idle" });
    expect(await status).toMatchObject({ userId: listener.id, status: "idle" });
    speaker.close();
    hearer.close();
  });
});
