import { rooms } from "../domain/shared/events.ts";
import type { Participant, VoiceRoomMembership } from "../domain/voice/voice-rooms.ts";
import { NOT_IN_THIS_VOICE_CHANNEL } from "../domain/voice/voice.ts";
import { checkFrame, type AudioFrame } from "./frames.ts";
import { nativeRelayFor } from "./native-relay.ts";

/**
 * The PCM relay, in two steps:
 *   1. `admitFrame`: is this a valid frame from a participant of that room who may speak?
 *   2. `deliverFrame`: hand the same bytes to every other socket in the voice room, once —
 *      natively published to websocket members when the native forwarder is installed
 *      (src/audio/native-relay.ts, docs/audio.md), the ordinary emit otherwise.
 */

/** What the relay needs from the voice domain (domain.voice provides both). */
export interface VoiceGate {
  rooms: VoiceRoomMembership;
  speakError(participant: Participant, memo?: boolean): Promise<string | null>;
  /** The memo's answer when it has one, else undefined (Voice.speakErrorNow). */
  speakErrorNow(participant: Participant): string | null | undefined;
}

export type Admission = { ok: true; frame: AudioFrame; sender: Participant } | { ok: false; error: string };

/**
 * Checks a `bot:audio-data` payload from `socketId`: a well-formed frame, sent by a
 * participant of exactly that voice channel who may transmit now (SPEAK, a speaker in a
 * meeting, not server-muted, not timed out). Any participant may send, bot or user: the
 * spec's "PCM from another bot" describes the usual sender, not a restriction.
 * Cheapest checks first: the frame, then membership, then the permission lookup.
 */
export async function admitFrame(voice: VoiceGate, socketId: string, payload: unknown): Promise<Admission> {
  return admitFrameNow(voice, socketId, payload);
}

/**
 * `admitFrame`, answered synchronously whenever it can be: every check but the permission
 * lookup is synchronous, and the lookup's memo usually has its answer (Voice.speakErrorNow);
 * only when the store must be asked is the answer a promise. The relay's per-frame path uses
 * this, so an admitted frame is delivered without a promise hop.
 */
export function admitFrameNow(voice: VoiceGate, socketId: string, payload: unknown): Admission | Promise<Admission> {
  if (typeof payload !== "object" || payload === null) {
    return { ok: false, error: "payload: must be an object {channelId, pcm, sampleRate?, channels?}" };
  }
  const { channelId, pcm, sampleRate, channels } = payload as Record<string, unknown>;
  if (typeof channelId !== "string" || channelId === "") return { ok: false, error: "channelId: must be a channel id" };
  const checked = checkFrame({ pcm, sampleRate, channels });
  if (!checked.ok) return checked;
  const sender = voice.rooms.participant(socketId);
  if (!sender || sender.channelId !== channelId.toLowerCase()) return { ok: false, error: NOT_IN_THIS_VOICE_CHANNEL };
  // Memoized between permission changes: this runs for every frame (Voice.speakError).
  const known = voice.speakErrorNow(sender);
  if (known !== undefined) return known ? { ok: false, error: known } : { ok: true, frame: checked.frame, sender };
  return voice.speakError(sender, true).then((refusal): Admission => (refusal ? { ok: false, error: refusal } : { ok: true, frame: checked.frame, sender }));
}

/**
 * Where a frame goes: the sender's socket, whose `local.to()` excludes the sender itself and
 * stays on this node (PCM never crosses Redis in cluster mode; docs/audio.md).
 */
interface FrameSender {
  /** `local`: PCM never goes to the cluster adapter's stream, nor into resume storage. */
  local: { to(room: string): { emit(event: "bot:audio-data", payload: AudioFramePayload): unknown } };
}

export type AudioFramePayload = { pcm: AudioFrame["pcm"]; sampleRate: number; channels: number; botUserId: string };

/**
 * Stock delivery: one Socket.IO broadcast to the voice room except the sender. The
 * adapter encodes the packet once for all receivers; `pcm` is the received object itself,
 * so the samples are neither copied nor re-encoded and travel as a binary attachment.
 * `botUserId` is the sender's user id, bot or not (the spec's name is kept).
 */
export function deliverFrame(from: FrameSender, channelId: string, frame: AudioFrame, senderUserId: string): void {
  // The native forwarder, when installed (src/audio/native-relay.ts): native publish to
  // websocket members, this same emit to long-polling members only.
  const native = nativeRelayFor(from);
  if (native) return native.deliver(from as Parameters<typeof native.deliver>[0], channelId, frame, senderUserId);
  from.local.to(rooms.voice(channelId)).emit("bot:audio-data", {
    pcm: frame.pcm,
    sampleRate: frame.sampleRate,
    channels: frame.channels,
    botUserId: senderUserId,
  });
}
