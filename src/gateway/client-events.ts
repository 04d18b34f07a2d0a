/**
 * What clients emit (SPEC.md "Gateway - events the bot emits", plus Hearth's additions): every
 * client event's payload schema, and `ClientToServerEvents` built from them, so the payload
 * types are what the schemas accept. The handlers (./handlers/*) parse with these; the bot
 * events' schemas are the domain's (domain/bots/interactions.ts), shared with Bot REST.
 */
import * as v from "valibot";
import { BotDeleteMessage, BotEditMessage, BotSendMessage, ComponentPress, InteractionResponse } from "../domain/bots/interactions.ts";
import { PRESENCE_STATUSES, type Message, type PresenceStatus } from "../domain/shared/shapes.ts";
import type { Pcm } from "../audio/frames.ts";

/** Every ack answers `{ok: true, ...}` or `{ok: false, error}` (CONTRACT.md, "Gateway"). */
export type Ack<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

const Id = (what: string) => v.pipe(v.string(`must be a ${what} id`), v.uuid(`must be a ${what} id`));
const Flag = v.boolean("must be a boolean");

// Rooms and typing: the bare id is the payload.
export const ServerId = Id("server");
export const ChannelId = Id("channel");

/** `dm:typing:start` / `dm:typing:stop`. */
export const DmTyping = v.object(
  { conversationId: v.pipe(v.string("must be a conversation id"), v.uuid("must be a conversation id")) },
  "must be an object {conversationId}",
);

/** `status:set`. */
export const StatusSet = v.object(
  { status: v.picklist(PRESENCE_STATUSES, `must be one of ${PRESENCE_STATUSES.join(", ")}`) },
  "must be an object",
);

// Voice (docs/voice.md).
export const VoiceJoin = v.object({ channelId: Id("channel") });
export const VoiceState = v.object({ muted: v.optional(Flag), deafened: v.optional(Flag), video: v.optional(Flag) });
export const VoiceSpeaking = v.object({ speaking: Flag });
export const VoiceSignal = v.looseObject({ to: v.pipe(v.string("must be a socket id"), v.minLength(1, "must be a socket id")) });
export const RaiseHand = v.object({ channelId: Id("channel") });
export const LowerHand = v.object({ channelId: Id("channel"), targetUserId: v.optional(Id("user")) });
export const SetMeetingRole = v.object({
  channelId: Id("channel"),
  userId: Id("user"),
  role: v.picklist(["audience", "speaker"], "must be audience or speaker"),
});
export const ServerMute = v.object({ userId: Id("user"), muted: Flag });
export const ServerDeafen = v.object({ userId: Id("user"), deafened: Flag });
export const VoiceMove = v.object({ userId: Id("user"), channelId: Id("channel") });
export const VoiceDisconnect = v.object({ userId: Id("user") });
export const VoiceQuery = v.object({ userId: Id("user"), serverId: Id("server") });
export const VoiceParticipants = v.object({ channelId: Id("channel") });
/** `voice:listen` (Hearth extension, docs/audio.md "Bots that listen"). */
export const VoiceListen = v.object({ channelId: Id("channel"), listening: Flag }, "must be an object {channelId, listening}");

/**
 * DM calls (docs/dm-calls.md): an object is required; the ids inside are checked by DmCalls,
 * which answers an id it cannot use as not found.
 */
const anything = v.optional(v.unknown());
/** An object that is not an array, its other fields kept as given. */
const objectPayload = <E extends v.ObjectEntries>(entries: E, message: string) =>
  v.pipe(
    v.custom<Record<string, unknown>>((input) => typeof input === "object" && input !== null && !Array.isArray(input), message),
    v.looseObject(entries, message),
  );
export const CallStart = objectPayload({ conversationId: anything }, "must be an object {conversationId}");
export const CallId = objectPayload({ callId: anything }, "must be an object {callId}");
export const CallSignal = objectPayload({ callId: anything, to: anything }, "must be an object {callId, to, ...}");

/**
 * `bot:audio-data` and `voice:audio-data`: checked by src/audio/relay.ts (admitFrame) rather than a schema, because it
 * runs for every frame of every voice room; this is the shape it admits.
 */
export interface AudioFramePayload {
  channelId: string;
  pcm: Pcm;
  sampleRate?: number;
  channels?: number;
}

/** A payload as its schema outputs it: what a handler works with once the payload passed. */
type Payload<S extends v.GenericSchema> = v.InferOutput<S>;
type Event<P, A extends object = object> = (payload: P, ack?: (ack: Ack<A>) => void) => void;
type Sent = { message_id: string; message: Message };

/** The client events, their payloads (from the schemas above) and their acks. */
export interface ClientToServerEvents {
  "server:join": Event<Payload<typeof ServerId>, { serverId: string }>;
  "server:leave": Event<Payload<typeof ServerId>, { serverId: string }>;
  "channel:join": Event<Payload<typeof ChannelId>, { channelId: string }>;
  "channel:leave": Event<Payload<typeof ChannelId>, { channelId: string }>;
  "interaction:response": Event<Payload<typeof InteractionResponse>, Sent>;
  "bot:send_message": Event<Payload<typeof BotSendMessage>, Sent>;
  "bot:edit_message": Event<Payload<typeof BotEditMessage>, Sent>;
  "bot:delete_message": Event<Payload<typeof BotDeleteMessage>>;
  "message:component": Event<Payload<typeof ComponentPress>, { interaction_id: string }>;
  "voice:join": Event<Payload<typeof VoiceJoin>>;
  "voice:leave": (ack?: (ack: Ack) => void) => void;
  "voice:raise-hand": Event<Payload<typeof RaiseHand>>;
  "voice:lower-hand": Event<Payload<typeof LowerHand>>;
  "voice:set-meeting-role": Event<Payload<typeof SetMeetingRole>>;
  "voice:state": Event<Payload<typeof VoiceState>>;
  "voice:signal": Event<Payload<typeof VoiceSignal>>;
  // Hearth additions (docs/voice.md): the speaking indicator and voice moderation.
  "voice:speaking": Event<Payload<typeof VoiceSpeaking>>;
  "voice:server-mute": Event<Payload<typeof ServerMute>>;
  "voice:server-deafen": Event<Payload<typeof ServerDeafen>>;
  "voice:move": Event<Payload<typeof VoiceMove>>;
  "voice:disconnect": Event<Payload<typeof VoiceDisconnect>>;
  "bot:voice-query": Event<Payload<typeof VoiceQuery>>;
  "bot:voice-participants": Event<Payload<typeof VoiceParticipants>>;
  "bot:audio-data": Event<AudioFramePayload>;
  // Hearth extensions (docs/audio.md, "Bots that listen"): a bot asks to hear the room's people;
  // a person's microphone frames, for those bots only.
  "voice:listen": Event<Payload<typeof VoiceListen>, { channelId: string; listening: boolean }>;
  "voice:audio-data": Event<AudioFramePayload>;
  "typing:start": Event<Payload<typeof ChannelId>, { channelId: string }>;
  "typing:stop": Event<Payload<typeof ChannelId>, { channelId: string }>;
  "dm:typing:start": Event<Payload<typeof DmTyping>, { conversationId: string }>;
  "dm:typing:stop": Event<Payload<typeof DmTyping>, { conversationId: string }>;
  // Hearth extensions: DM calls (docs/dm-calls.md).
  "dm:call-start": Event<Payload<typeof CallStart>, { callId: string; conversationId: string }>;
  "dm:call-accept": Event<Payload<typeof CallId>, { callId: string }>;
  "dm:call-decline": Event<Payload<typeof CallId>, { callId: string }>;
  "dm:call-end": Event<Payload<typeof CallId>, { callId: string }>;
  "dm:call-signal": Event<Payload<typeof CallSignal>, { callId: string }>;
  "status:set": Event<Payload<typeof StatusSet>, { status: PresenceStatus }>;
}
