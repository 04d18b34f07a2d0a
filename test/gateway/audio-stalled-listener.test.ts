import { describe, expect, test } from "bun:test";
import { nativeRelayFor } from "../../src/audio/native-relay.ts";
import { websocketOf } from "../../src/gateway/native-fanout.ts";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";
import { community } from "../helpers/community.ts";
import { startServer } from "../helpers/server.ts";
import { StalledGatewayClient, streamPastStalled } from "../helpers/stalled-gateway-client.ts";

/**
 * The native relay's stalled listeners (src/audio/native-relay.ts, docs/audio.md "Memory bounds
 * and the drop guarantee"): a websocket member of the voice room that stops reading misses
 * whole frames once it holds more than 256 KiB, and is never pushed to the 4 MiB bound at which
 * Bun would close it, while the other listeners get every frame. The room is swept every 32
 * frames published to it, so this holds even when the sweep's timer does not fire (an
 * overloaded server's thread can run for hundreds of ms): the test stops the timer.
 */
const HIGH_WATER = 256 * 1024;
const SWEEP_EVERY_FRAMES = 32;
/** What Bun's pub/sub may hold queued for a subscriber, not yet in its buffered amount when a
 *  sweep reads it: uWS's TopicTree drains a subscriber at 32 messages, 16 frames. */
const PUBSUB_QUEUE_FRAMES = 16;

describe("bot:audio-data, a stalled listener on the native path", () => {
  test("misses whole frames past 256 KiB and stays connected, with the sweep's timer stopped; the others get every frame", async () => {
    const server = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, audio: { perSecond: 100_000, burst: 100_000 } } });
    try {
      const { member, members, bot, voiceId: channelId } = await community(server, { voice: true, bot: true, extraMembers: 1 });
      const stalledUser = members[1]!;
      const sender = await server.connect(bot.token);
      const reader = await server.connect(member.token);
      for (const socket of [sender, reader]) expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
      // A member on a raw websocket that joins the room, then never reads again.
      const stalled = await StalledGatewayClient.open(server.url, stalledUser.token, [["voice:join", { channelId }]]);
      const sockets = server.app.io.of("/").sockets;
      const stalledSocket = [...sockets.values()].find((s) => s.data.userId === stalledUser.id)!;
      const ws = websocketOf(stalledSocket)!;
      const relay = nativeRelayFor(stalledSocket)!;
      relay.close(); // no timer sweeps from here on: only the frame count
      const sweeps0 = relay.stats.sweeps;
      const dropped0 = relay.stats.dropped;

      let received = 0;
      reader.on("bot:audio-data", () => received++);
      const pcm = new Uint8Array(LIMITS.audioFrameBytes).fill(7);
      const frames = 1200; // ~13.8 MB: far more than the kernel, the threshold and the 4 MiB bound hold
      const maxBuffered = await streamPastStalled(() => sender.emit("bot:audio-data", { channelId, pcm }), () => received, ws, frames);

      expect(received).toBe(frames);
      // Still connected, having filled up past the threshold and then held at most the frames of
      // one sweep's span and of Bun's pub/sub queue more (each frame: the PCM, its Socket.IO
      // header and the websocket framing): never near 4 MiB.
      expect(ws.readyState).toBe(1);
      expect(stalledSocket.connected).toBe(true);
      expect(maxBuffered).toBeGreaterThan(HIGH_WATER);
      expect(maxBuffered).toBeLessThanOrEqual(HIGH_WATER + (SWEEP_EVERY_FRAMES + PUBSUB_QUEUE_FRAMES) * (LIMITS.audioFrameBytes + 256));
      expect(relay.stats.dropped - dropped0).toBeGreaterThan(0);
      expect(relay.stats.sweeps - sweeps0).toBeGreaterThanOrEqual(Math.floor(frames / SWEEP_EVERY_FRAMES) - 1);
      stalled.close();
    } finally {
      await server.stop();
    }
  }, 30_000);
});
