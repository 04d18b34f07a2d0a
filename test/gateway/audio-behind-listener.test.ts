import { describe, expect, test } from "bun:test";
import { nativeRelayFor } from "../../src/audio/native-relay.ts";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { community } from "../helpers/community.ts";
import { startServer } from "../helpers/server.ts";
import { StalledGatewayClient } from "../helpers/stalled-gateway-client.ts";

/**
 * The tuned relay's listeners that fall behind (src/audio/native-relay.ts, docs/audio.md
 * "Listeners behind"): a websocket member with bytes buffered in Bun at a sweep is taken off
 * the room's topic and fed from its own queue when Bun reports it drained, then put back on
 * the topic. A listener that stops reading for a while and then reads again gets every frame,
 * in order, each header with its data, none dropped, and is back on the topic afterwards.
 */
const FRAME_BYTES = 3840;
const HEADER = '451-["bot:audio-data",';

describe("bot:audio-data, a listener behind on the tuned path", () => {
  test("is fed from its queue once it reads again: every frame in order, header and data paired, none dropped; then back on the topic", async () => {
    const server = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, audio: { perSecond: 100_000, burst: 100_000 } } });
    try {
      const { member, members, bot, voiceId: channelId } = await community(server, { voice: true, bot: true, extraMembers: 1 });
      const slowUser = members[1]!;
      const sender = await server.connect(bot.token);
      const reader = await server.connect(member.token);
      for (const socket of [sender, reader]) expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
      const slow = await StalledGatewayClient.open(server.url, slowUser.token, [["voice:join", { channelId }]]);
      const slowSocket = [...server.app.io.of("/").sockets.values()].find((s) => s.data.userId === slowUser.id)!;
      const relay = nativeRelayFor(slowSocket)!;
      const dropped0 = relay.stats.dropped;
      const queued0 = relay.stats.queued;

      let received = 0;
      reader.on("bot:audio-data", () => received++);
      let sent = 0;
      const send = () => {
        const pcm = new Uint8Array(FRAME_BYTES);
        new DataView(pcm.buffer).setUint32(0, sent++);
        sender.emit("bot:audio-data", { channelId, pcm });
      };
      const paced = async () => {
        const until = Date.now() + 5000;
        while (received < sent - 10 && Date.now() < until) await Bun.sleep(2);
      };
      // Stream while it does not read: the kernel's buffers fill, then Bun's, then a sweep
      // finds it behind and frames start to queue for it.
      while (relay.queuedBytes(slowSocket.id) === 0 && sent < 5000) {
        send();
        if (sent % 10 === 0) await paced();
      }
      expect(relay.membership(channelId).behind).toEqual([slowSocket.id]);
      const behindAt = sent;

      // It reads again, and the stream goes on.
      const seqs: number[] = [];
      let orphans = 0;
      let expectData = false;
      slow.resume((message) => {
        if (typeof message === "string") {
          if (!message.startsWith(HEADER)) return;
          if (expectData) orphans++;
          expectData = true;
        } else {
          if (!expectData) orphans++;
          expectData = false;
          seqs.push(message.readUInt32BE(0));
        }
      });
      for (let i = 0; i < 200; i++) {
        send();
        if (sent % 10 === 0) await paced();
      }
      const deadline = Date.now() + 15_000;
      while ((seqs.length < sent || received < sent) && Date.now() < deadline) await Bun.sleep(20);

      expect(received).toBe(sent);
      expect(seqs.length).toBe(sent);
      expect(seqs).toEqual(Array.from({ length: sent }, (_, i) => i));
      expect(orphans).toBe(0);
      expect(relay.stats.dropped - dropped0).toBe(0);
      expect(relay.stats.queued - queued0).toBeGreaterThan(0);
      expect(sent).toBeGreaterThan(behindAt);
      // Drained: back on the topic, nothing queued.
      expect(relay.membership(channelId).behind).toEqual([]);
      expect(relay.queuedBytes(slowSocket.id)).toBe(0);
      slow.close();
    } finally {
      await server.stop();
    }
  }, 30_000);
});
