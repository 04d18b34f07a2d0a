import type { Socket as IoSocket } from "socket.io";
import { websocketOf } from "../gateway/native-fanout.ts";
import type { VoiceRoomMembership } from "../domain/voice/voice-rooms.ts";
import { pcmEventHeader, type AudioFrame } from "./frames.ts";
import { admitFrame, type Admission, type VoiceGate } from "./relay.ts";

/**
 * Bots that listen (docs/audio.md, "Bots that listen"): a person's microphone frames,
 * `voice:audio-data {channelId, pcm, sampleRate?, channels?}`, go to the bots of that voice
 * room that asked for them with `voice:listen`, and to nobody else: never to people, never
 * to bots that did not ask. Kept apart from the bot relay (`bot:audio-data`, relay.ts and
 * native-relay.ts), whose per-frame path this adds nothing to.
 *
 * Listeners are few (the bots of one room that opted in), so delivery walks them: the
 * Socket.IO header is encoded once per frame and each websocket listener gets the header and
 * the received bytes with two native `ws.send` calls in one synchronous step (no copy, no
 * re-encoding). A listener with more than `LISTENER_HIGH_WATER_BYTES` buffered misses the
 * frame whole (neither message is sent), so it never holds more than that plus one frame,
 * and it hears again as soon as it drains. Long-polling listeners get the ordinary emit (and
 * the engine's limits, as for bot audio).
 */

export const EVENT = "voice:audio-data";
/** The same threshold as the bot relay's stalled listeners (native-relay.ts). */
export const LISTENER_HIGH_WATER_BYTES = 256 * 1024;

const BOTS_USE_BOT_AUDIO = "Bots send audio with bot:audio-data";
const MUTED = "You are muted";

/** Counters for tests and operators: frames sent to listeners, and whole frames dropped for stalled ones. */
export const listenStats = { delivered: 0, dropped: 0, emittedToPolling: 0 };

/**
 * A person's frame is admitted as a bot's is (a valid frame from a participant of that room
 * who may speak: SPEAK, a speaker in a meeting, not server-muted, not timed out), and also
 * only from a person (bots have bot:audio-data) who is not self-muted.
 */
export async function admitPersonFrame(voice: VoiceGate, socketId: string, payload: unknown): Promise<Admission> {
  const admitted = await admitFrame(voice, socketId, payload);
  if (!admitted.ok) return admitted;
  if (admitted.sender.isBot) return { ok: false, error: BOTS_USE_BOT_AUDIO };
  if (admitted.sender.muted) return { ok: false, error: MUTED };
  return admitted;
}

/**
 * Sends an admitted frame to the room's listening bots. `from` is the sender's socket (its
 * namespace finds the listeners' sockets). A server-deafened bot hears nothing.
 */
export function deliverToListeners(from: IoSocket, rooms: VoiceRoomMembership, channelId: string, frame: AudioFrame, senderUserId: string): void {
  const listeners = rooms.listeners(channelId);
  if (listeners.size === 0) return;
  let header: string | null = null;
  for (const listener of listeners) {
    if (listener.serverDeafened) continue;
    const socket = from.nsp.sockets.get(listener.socketId);
    if (!socket) continue;
    const ws = websocketOf(socket);
    if (ws) {
      if (ws.getBufferedAmount() > LISTENER_HIGH_WATER_BYTES) {
        listenStats.dropped++;
        continue;
      }
      header ??= pcmEventHeader(EVENT, { channelId, sampleRate: frame.sampleRate, channels: frame.channels, userId: senderUserId });
      ws.send(header);
      ws.send(frame.pcm as Parameters<typeof ws.send>[0]);
      listenStats.delivered++;
    } else {
      // Not `socket.emit`: with resume on it goes through the adapter (the cluster's stream, resume storage); PCM never does.
      from.nsp.local.to(socket.id).emit(EVENT, { channelId, pcm: frame.pcm, sampleRate: frame.sampleRate, channels: frame.channels, userId: senderUserId });
      listenStats.emittedToPolling++;
    }
  }
}
