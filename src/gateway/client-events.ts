/**
 * What clients emit (SPEC.md "Gateway - events the bot emits", plus Hearth's additions): every
 * client event's payload schema, and `ClientToServerEvents` built from them, so the payload
 * types are what the schemas accept. The handlers (./handlers/*) parse with these; the bot
 * events' schemas are the domain's (domain/bots/interactions.ts), shared with Bot REST.
 */
import * as v from "valibot";
import { BotDeleteMessage, BotEditMessage, BotSendMessage, ComponentPress, InteractionResponse } from "../domain/bots/interactions.ts";
import { Message, PRESENCE_STATUSES, Uuid, VoiceParticipant } from "../domain/shared/shapes.ts";
import { Binary } from "../domain/shared/events.ts";
import { LIMITS } from "../domain/shared/limits.ts";

/** Every ack answers `{ok: true, ...}` or `{ok: false, error}` (CONTRACT.md, "Gateway"). */
export type Ack<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

const Id = (what: string) => v.pipe(v.string(`must be a ${what} id`), v.uuid(`must be a ${what} id`));
const Flag = v.boolean("must be a boolean");

// Rooms and typing: the bare id is the payload.
export const ServerId = Id("server");
export const ChannelId = Id("channel");

const All = v.literal("all", 'must be "all"');
/**
 * Bulk subscriptions (docs/gateway.md, "Bulk subscriptions"): `server:join {servers: "all",
 * channels?: "all"}` joins every server of the account (and every channel of each the socket may
 * view) and follows those added later; `server:leave` with the same payload undoes it.
 */
export const AllServers = v.object({ servers: All, channels: v.optional(All) }, 'must be an object {servers: "all", channels?: "all"}');
/** `channel:join {server_id, channels: "all"}`: every channel of one server the socket may view, and those it may view later. */
export const AllChannels = v.object({ server_id: Id("server"), channels: All }, 'must be an object {server_id, channels: "all"}');

/** `presence:subscribe`: the members of a large server whose presence the socket shows (docs/gateway.md, "Presence"). */
export const PresenceSubscribe = v.object(
  {
    server_id: Id("server"),
    user_ids: v.pipe(
      v.array(Id("user"), "must be an array of user ids"),
      v.maxLength(LIMITS.gateway.presenceIdsPerServer, `must hold at most ${LIMITS.gateway.presenceIdsPerServer} user ids`),
    ),
  },
  "must be an object {server_id, user_ids}",
);

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
export const AudioFrame = v.object({
  channelId: Id("channel"),
  pcm: Binary,
  sampleRate: v.optional(v.number()),
  channels: v.optional(v.number()),
});
export type AudioFramePayload = v.InferOutput<typeof AudioFrame>;

// The acks' fields on success (`{ok: true}` plus these).
const none = v.object({});
const serverAck = v.object({ serverId: Uuid });
const channelAck = v.object({ channelId: Uuid });
/** The bulk forms' acks: what was joined (or left). */
const serversAck = v.object({ servers: v.array(Uuid), channels: v.optional(v.array(Uuid)) });
const channelsAck = v.object({ server_id: Uuid, channels: v.array(Uuid) });
const dmAck = v.object({ conversationId: Uuid });
const callAck = v.object({ callId: Uuid });
const sentAck = v.object({ message_id: Uuid, message: Message });
const meetingAck = v.object({ socketId: v.string(), userId: Uuid, meetingRole: v.picklist(["audience", "speaker"]), handRaised: v.boolean() });
const roomAck = v.object({ channelId: Uuid, participants: v.array(VoiceParticipant) });
const targetAck = v.object({ userId: Uuid, channelId: Uuid });

/**
 * Every client event, in one table: its payload's schema (`null`: the event takes no payload)
 * and the fields its ack adds to `{ok: true}` on success. `ClientToServerEvents` is built from
 * it, and so is the AsyncAPI document at /api/v1/asyncapi.json; docs/gateway.md names each event.
 */
export const CLIENT_EVENTS = {
  // The spec's string forms, and Hearth's bulk forms (docs/gateway.md, "Bulk subscriptions").
  "server:join": { payload: v.union([ServerId, AllServers]), ack: v.union([serverAck, serversAck]) },
  "server:leave": { payload: v.union([ServerId, AllServers]), ack: v.union([serverAck, serversAck]) },
  "channel:join": { payload: v.union([ChannelId, AllChannels]), ack: v.union([channelAck, channelsAck]) },
  "channel:leave": { payload: v.union([ChannelId, AllChannels]), ack: v.union([channelAck, channelsAck]) },
  "interaction:response": { payload: InteractionResponse, ack: sentAck },
  "bot:send_message": { payload: BotSendMessage, ack: sentAck },
  "bot:edit_message": { payload: BotEditMessage, ack: sentAck },
  "bot:delete_message": { payload: BotDeleteMessage, ack: none },
  "message:component": { payload: ComponentPress, ack: v.object({ interaction_id: Uuid }) },
  "voice:join": { payload: VoiceJoin, ack: roomAck },
  "voice:leave": { payload: null, ack: v.object({ channelId: v.nullable(Uuid) }) },
  "voice:raise-hand": { payload: RaiseHand, ack: meetingAck },
  "voice:lower-hand": { payload: LowerHand, ack: meetingAck },
  "voice:set-meeting-role": { payload: SetMeetingRole, ack: meetingAck },
  "voice:state": { payload: VoiceState, ack: v.object({ socketId: v.string(), userId: Uuid, muted: v.boolean(), deafened: v.boolean(), video: v.boolean() }) },
  "voice:signal": { payload: VoiceSignal, ack: v.object({ to: v.string() }) },
  // Hearth additions (docs/voice.md): the speaking indicator and voice moderation.
  "voice:speaking": { payload: VoiceSpeaking, ack: v.object({ speaking: v.boolean() }) },
  "voice:server-mute": { payload: ServerMute, ack: v.object({ socketId: v.string(), userId: Uuid, serverMuted: v.boolean() }) },
  "voice:server-deafen": { payload: ServerDeafen, ack: v.object({ socketId: v.string(), userId: Uuid, serverDeafened: v.boolean() }) },
  "voice:move": { payload: VoiceMove, ack: targetAck },
  "voice:disconnect": { payload: VoiceDisconnect, ack: targetAck },
  "bot:voice-query": { payload: VoiceQuery, ack: v.object({ channelId: v.nullable(Uuid), participant: v.nullable(VoiceParticipant) }) },
  "bot:voice-participants": { payload: VoiceParticipants, ack: roomAck },
  "bot:audio-data": { payload: AudioFrame, ack: none },
  // Hearth extensions (docs/audio.md, "Bots that listen"): a bot asks to hear the room's people;
  // a person's microphone frames, for those bots only.
  "voice:listen": { payload: VoiceListen, ack: v.object({ channelId: Uuid, listening: v.boolean() }) },
  "voice:audio-data": { payload: AudioFrame, ack: none },
  "typing:start": { payload: ChannelId, ack: channelAck },
  "typing:stop": { payload: ChannelId, ack: channelAck },
  "dm:typing:start": { payload: DmTyping, ack: dmAck },
  "dm:typing:stop": { payload: DmTyping, ack: dmAck },
  // Hearth extensions: DM calls (docs/dm-calls.md).
  "dm:call-start": { payload: CallStart, ack: v.object({ callId: Uuid, conversationId: Uuid }) },
  "dm:call-accept": { payload: CallId, ack: callAck },
  "dm:call-decline": { payload: CallId, ack: callAck },
  "dm:call-end": { payload: CallId, ack: callAck },
  "dm:call-signal": { payload: CallSignal, ack: callAck },
  "status:set": { payload: StatusSet, ack: v.object({ status: v.picklist(PRESENCE_STATUSES) }) },
  // Hearth extension (docs/gateway.md, "Presence"): whose presence a socket gets in a large server.
  "presence:subscribe": { payload: PresenceSubscribe, ack: v.object({ server_id: Uuid, user_ids: v.array(Uuid) }) },
} as const satisfies Record<string, { payload: v.GenericSchema | null; ack: v.GenericSchema }>;

export type ClientEventName = keyof typeof CLIENT_EVENTS;
type Spec<E extends ClientEventName> = (typeof CLIENT_EVENTS)[E];
/** The fields an event's ack adds to `{ok: true}`. */
export type AckFields<E extends ClientEventName> = v.InferOutput<Spec<E>["ack"]>;
type AckCallback<E extends ClientEventName> = (ack: Ack<AckFields<E>>) => void;

/** The client events, their payloads (as their schemas output them) and their acks. */
export type ClientToServerEvents = {
  [E in ClientEventName]: Spec<E>["payload"] extends v.GenericSchema
    ? (payload: v.InferOutput<Spec<E>["payload"]>, ack?: AckCallback<E>) => void
    : (ack?: AckCallback<E>) => void;
};
