import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nativeRelayFor, type NativeAudioRelay } from "../../src/audio/native-relay.ts";
import { io as connectClient } from "socket.io-client";
import { community } from "../helpers/community.ts";
import { recordEvents, startServer, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

/** The native forwarder (src/audio/native-relay.ts): websocket and polling members side by side. */

let server: TestServer;
let relay: NativeAudioRelay;
beforeAll(async () => {
  server = await startServer();
  relay = nativeRelayFor({ nsp: server.app.io.of("/") })!;
});
afterAll(() => server.stop());

/** Frame `n`: its first two bytes carry n, the rest a pattern of n. */
function frame(n: number, bytes = 3840): Uint8Array {
  const pcm = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) pcm[i] = (i * 31 + n) & 0xff;
  pcm[0] = n & 0xff;
  pcm[1] = n >> 8;
  return pcm;
}

const asBytes = (pcm: ArrayBuffer | ArrayBufferView) =>
  pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** The shared community with a voice channel (`channelId` here), a bot and a listener. */
async function setup() {
  const c = await community(server, { voice: true, bot: true, extraMembers: 1 });
  return { member: c.member, listener: c.members[1]!, bot: c.bot, channelId: c.voiceId };
}

async function join(socket: ClientSocket, channelId: string): Promise<ClientSocket> {
  const ack = await socket.emitWithAck("voice:join", { channelId });
  if (!ack.ok) throw new Error(`voice:join failed: ${ack.error}`);
  return socket;
}


const transportOf = (socket: ClientSocket) => socket.io.engine.transport.name;

/** Sends frames 0..count-1 without acks, then waits until every receiver has `count`. */
async function stream(sender: ClientSocket, channelId: string, receivers: unknown[][], count: number, first = 0) {
  for (let n = first; n < first + count; n++) sender.emit("bot:audio-data", { channelId, pcm: frame(n) });
  await until(() => receivers.every((got) => got.length >= first + count), "every frame");
  await quietWindow(50); // nothing extra arrives
}

function expectFrames(got: any[], from: number, to: number, botUserId: string) {
  expect(got.length).toBe(to - from);
  got.forEach((payload, i) => {
    expect(payload.botUserId).toBe(botUserId);
    expect(payload.sampleRate).toBe(48000);
    expect(payload.channels).toBe(2);
    expect(asBytes(payload.pcm)).toEqual(frame(from + i));
  });
}

describe("bot:audio-data, native path", () => {
  test("a websocket and a polling receiver in one room each get every frame once, in order", async () => {
    const { member, listener, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    const wsReceiver = await join(await server.connect(member.token), channelId);
    const poller = await join(await server.connect(listener.token, { transports: ["polling"] }), channelId);
    expect(transportOf(wsReceiver)).toBe("websocket");
    expect(transportOf(poller)).toBe("polling");
    const members = relay.membership(channelId);
    expect(members.websocket.sort()).toEqual([sender.id!, wsReceiver.id!].sort());
    expect(members.polling).toEqual([poller.id!]);

    const atWs = recordEvents(wsReceiver, "bot:audio-data");
    const atPoller = recordEvents(poller, "bot:audio-data");
    const atSender = recordEvents(sender, "bot:audio-data");
    const published = relay.stats.published;
    await stream(sender, channelId, [atWs, atPoller], 50);
    expectFrames(atWs, 0, 50, bot.botUserId);
    expectFrames(atPoller, 0, 50, bot.botUserId);
    expect(atSender).toEqual([]);
    expect(relay.stats.published - published).toBe(50); // the native publish carried them

    // A sender on long-polling reaches the websocket receiver through the server's publish.
    const atWs2 = recordEvents(wsReceiver, "bot:audio-data");
    const atSender2 = recordEvents(sender, "bot:audio-data");
    const pollerSeen = atPoller.length;
    for (let n = 0; n < 20; n++) poller.emit("bot:audio-data", { channelId, pcm: frame(n) });
    await until(() => atWs2.length >= 20 && atSender2.length >= 20, "frames from the poller");
    await quietWindow(50); // once each
    expect(atWs2.length).toBe(20);
    expect(atSender2.length).toBe(20);
    expect(asBytes(atWs2[19].pcm)).toEqual(frame(19));
    expect(atPoller.length).toBe(pollerSeen); // not to itself
    for (const s of [sender, wsReceiver, poller]) s.close();
  });

  test("a receiver that joins after upgrading from polling gets frames natively", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    const upgrading = await server.connect(member.token, { transports: ["polling", "websocket"] });
    await until(() => transportOf(upgrading) === "websocket", "the upgrade");
    await join(upgrading, channelId);
    await until(() => relay.membership(channelId).websocket.includes(upgrading.id!), "the websocket membership");
    const got = recordEvents(upgrading, "bot:audio-data");
    await stream(sender, channelId, [got], 50);
    expectFrames(got, 0, 50, bot.botUserId);
    sender.close();
    upgrading.close();
  });

  test("a receiver that joins on polling and upgrades later moves to the native path without loss", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    // Upgrade held back until the socket is in the room and frames are flowing on polling.
    const upgrading = connectClient(server.url, {
      auth: { token: member.token },
      transports: ["polling", "websocket"],
      upgrade: false,
      reconnection: false,
      forceNew: true,
    });
    await new Promise<void>((resolve, reject) => {
      upgrading.once("connect", () => resolve());
      upgrading.once("connect_error", reject);
    });
    const got = recordEvents(upgrading, "bot:audio-data");
    await join(upgrading, channelId);
    expect(relay.membership(channelId).polling).toEqual([upgrading.id!]);
    let n = 0;
    for (; n < 10; n++) sender.emit("bot:audio-data", { channelId, pcm: frame(n) });
    await until(() => got.length >= 10, "frames on polling");
    // Now upgrade, streaming before, during and after it.
    (upgrading.io.engine as unknown as { _probe(name: string): void })._probe("websocket");
    while (transportOf(upgrading) !== "websocket" && n < 1000) {
      sender.emit("bot:audio-data", { channelId, pcm: frame(n++) });
      await letTimePass(2, "frames keep coming while the upgrade runs");
    }
    await until(() => relay.membership(channelId).websocket.includes(upgrading.id!), "the move to websocket");
    expect(n).toBeGreaterThan(10);
    await stream(sender, channelId, [got], 30, n);
    expectFrames(got, 0, n + 30, bot.botUserId);
    expect(relay.membership(channelId).polling).toEqual([]);
    sender.close();
    upgrading.close();
  });

  test("leaving the room or disconnecting ends native delivery", async () => {
    const { member, listener, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    const leaver = await join(await server.connect(member.token), channelId);
    const stayer = await join(await server.connect(listener.token), channelId);
    const atLeaver = recordEvents(leaver, "bot:audio-data");
    const atStayer = recordEvents(stayer, "bot:audio-data");
    expect((await leaver.emitWithAck("voice:leave")).ok).toBe(true);
    await stream(sender, channelId, [atStayer], 5);
    expect(atLeaver).toEqual([]);
    const stayerId = stayer.id!;
    stayer.close();
    await until(() => !relay.membership(channelId).websocket.includes(stayerId), "the disconnect");
    expect(relay.membership(channelId).websocket).toEqual([sender.id!]);
    sender.close();
    leaver.close();
  });
});

/** A raw WebSocket speaking Engine.IO/Socket.IO by hand, joined to a voice channel: for packets a socket.io-client never sends. */
async function rawVoiceSocket(token: string, channelId: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(`${server.app.url.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`);
  ws.binaryType = "arraybuffer";
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (event) => resolve(event.code)));
  await new Promise<void>((resolve, reject) => {
    ws.onmessage = (event) => {
      const data = event.data;
      if (typeof data !== "string") return;
      if (data === "2") return ws.send("3");
      if (data.startsWith("0{")) return ws.send(`40${JSON.stringify({ token })}`);
      if (data.startsWith("40{")) return ws.send(`420${JSON.stringify(["voice:join", { channelId }])}`);
      if (data.startsWith("430")) return JSON.parse(data.slice(3))[0]?.ok ? resolve() : reject(new Error(data));
    };
  });
  return { ws, closed };
}

describe("bot:audio-data, the sender's read path (native-relay.ts FastAudioReader)", () => {
  test("frames whose format changes mid-stream, and a frame sent with an ack, arrive as sent", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    const receiver = await join(await server.connect(member.token), channelId);
    const got = recordEvents(receiver, "bot:audio-data");
    const fast0 = relay.stats.readFast;
    sender.emit("bot:audio-data", { channelId, pcm: frame(1) });
    sender.emit("bot:audio-data", { channelId, pcm: frame(2, 960), sampleRate: 24000, channels: 1 });
    sender.emit("bot:audio-data", { channelId, pcm: frame(3, 960), sampleRate: 24000, channels: 1 });
    const ack = await sender.emitWithAck("bot:audio-data", { channelId, pcm: frame(4) });
    expect(ack).toEqual({ ok: true });
    await until(() => got.length >= 4, "four frames");
    expect(got.map((p) => [p.sampleRate, p.channels, asBytes(p.pcm)[0]])).toEqual([
      [48000, 2, 1],
      [24000, 1, 2],
      [24000, 1, 3],
      [48000, 2, 4],
    ]);
    // The three without an ack took the fast read path; the one with an ack id, Socket.IO's decoder.
    expect(relay.stats.readFast - fast0).toBe(3);
    expect(asBytes(got[1].pcm)).toEqual(frame(2, 960));
    sender.close();
    receiver.close();
  });

  test("refusals still answer voice:error, in the room and after leaving it", async () => {
    const { member, bot, channelId } = await setup();
    const sender = await join(await server.connect(bot.token), channelId);
    const receiver = await join(await server.connect(member.token), channelId);
    const got = recordEvents(receiver, "bot:audio-data");
    const errors = recordEvents(sender, "voice:error");
    sender.emit("bot:audio-data", { channelId, pcm: frame(1, 3839) });
    await until(() => errors.length === 1, "voice:error");
    expect(errors[0].error).toMatch(/^pcm: /);
    expect((await sender.emitWithAck("voice:leave")).ok).toBe(true);
    sender.emit("bot:audio-data", { channelId, pcm: frame(2) });
    await until(() => errors.length === 2, "the second voice:error");
    expect(errors[1].error).toMatch(/voice channel/i);
    expect(got).toEqual([]);
    sender.close();
    receiver.close();
  });

  test("a frame header followed by text instead of its attachment closes the connection, as Socket.IO's decoder does", async () => {
    const { member, bot, channelId } = await setup();
    const receiver = await join(await server.connect(member.token), channelId);
    const got = recordEvents(receiver, "bot:audio-data");
    const { ws, closed } = await rawVoiceSocket(bot.token, channelId);
    const header = `451-${JSON.stringify(["bot:audio-data", { channelId, pcm: { _placeholder: true, num: 0 } }])}`;
    ws.send(header);
    ws.send(frame(7));
    await until(() => got.length === 1, "the well-formed frame");
    expect(asBytes(got[0].pcm)).toEqual(frame(7));
    ws.send(header);
    ws.send(`42${JSON.stringify(["typing:start", { channelId }])}`);
    expect(await closed).toBeGreaterThan(0);
    await quietWindow(50);
    expect(got.length).toBe(1);
    receiver.close();
  });
});
