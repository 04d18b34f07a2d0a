import * as v from "valibot";
import { MediaGrant } from "../voice/media-server.ts";
import { Channel, Dm, DmMessage, Message, NotificationOverride, Presence, Role, Uuid, UnixSeconds, VoiceChannelState, VoiceParticipant } from "./shapes.ts";

/** Why a DM call ended or someone left it (docs/dm-calls.md); `removed`: taken out of the DM. */
const CALL_END_REASONS = ["ended", "declined", "timeout", "disconnect", "removed"] as const;
export type CallEndReason = (typeof CALL_END_REASONS)[number];

/**
 * Where an event goes: a user's own room (`user:<id>`, every socket of that user), a server's
 * room (`server:<id>`, sockets that joined it), a channel's text room (`channel:<id>`), a voice
 * room (`voice:<channelId>`, its participants' sockets), one member's presence in a large server
 * (`presence:<serverId>:<userId>`, sockets that asked with `presence:subscribe`), or one socket only.
 */
export type RoomKind = "user" | "server" | "channel" | "voice" | "presence" | "socket";

/** Binary PCM as Socket.IO carries it: a Buffer on the server, an ArrayBuffer or typed array on clients. */
export const Binary = v.custom<ArrayBuffer | ArrayBufferView>(
  (input) => input instanceof ArrayBuffer || ArrayBuffer.isView(input),
  "must be binary data",
);

const id = Uuid;
const userRef = v.object({ id, username: v.string(), avatar: v.nullable(v.string()) });
const permissionsUpdate = <K extends string>(key: K) =>
  v.union([
    v.object({ [key]: id, roleId: id, allow: v.number(), deny: v.number() } as { [P in K]: typeof id } & { roleId: typeof id; allow: v.NumberSchema<undefined>; deny: v.NumberSchema<undefined> }),
    v.object({ [key]: id, roleId: id, reset: v.literal(true) } as { [P in K]: typeof id } & { roleId: typeof id; reset: v.LiteralSchema<true, undefined> }),
  ]);
const typing = v.object({ userId: id, username: v.string(), channelId: id });
const dmTyping = v.object({ userId: id, username: v.string(), conversationId: id });
const socketId = v.string();
const interactionUser = v.object({ id, username: v.string() });

/** `interaction:create` (SPEC.md "Interaction (delivered to bots)"; docs/interactions.md). */
export const Interaction = v.variant("type", [
  v.object({
    id,
    type: v.literal("slash_command"),
    command: v.string(),
    /** The text after the command name. */
    args: v.string(),
    options: v.record(v.string(), v.union([v.string(), v.number(), v.boolean()])),
    channel_id: id,
    server_id: id,
    message_id: id,
    user: interactionUser,
  }),
  v.object({
    id,
    type: v.literal("message_component"),
    component_type: v.picklist(["button", "string_select", "channel_select"]),
    custom_id: v.string(),
    /** `string_select`: the chosen values. */
    values: v.optional(v.array(v.string())),
    /** `channel_select`: the chosen channels, resolved. */
    selected_channels: v.optional(v.array(v.object({ id, name: v.string(), type: v.string() }))),
    channel_id: id,
    server_id: id,
    user: interactionUser,
    message_id: id,
  }),
]);
export type Interaction = v.InferOutput<typeof Interaction>;

/**
 * Every server-to-client event, in one table: its payload's schema (the payload types below are
 * these schemas' outputs, and the AsyncAPI document at /api/v1/asyncapi.json is generated from
 * them), the kinds of room it is sent to, and who hears it. docs/gateway.md names each of them.
 * Names and payloads are SPEC.md "Events"' where the spec has them; the others are Hearth's.
 */
export const SERVER_EVENTS = {
  "interaction:create": { payload: Interaction, rooms: ["user"], audience: "the bot's own room `user:<botId>`" },
  "message:new": { payload: Message, rooms: ["channel"], audience: "`channel:<id>`" },
  "message:update": { payload: Message, rooms: ["channel"], audience: "`channel:<id>`" },
  "message:deleted": { payload: v.object({ channelId: id, messageId: id }), rooms: ["channel"], audience: "`channel:<id>`" },
  "message:reaction": {
    payload: v.object({ channelId: id, messageId: id, emoji: v.string(), userId: id, action: v.picklist(["added", "removed"]) }),
    rooms: ["channel"],
    audience: "`channel:<id>`",
  },
  "message:pin": { payload: v.object({ channelId: id, messageId: id, pinned: v.boolean() }), rooms: ["channel"], audience: "`channel:<id>`" },
  "member:joined": {
    payload: v.object({ serverId: id, userId: id, username: v.string(), avatar: v.nullable(v.string()) }),
    rooms: ["server"],
    audience: "`server:<id>`",
  },
  "member:left": { payload: v.object({ serverId: id, userId: id }), rooms: ["server", "user"], audience: "`server:<id>` and the member's `user:<id>`" },
  "member:banned": { payload: v.object({ serverId: id, userId: id }), rooms: ["server", "user"], audience: "`server:<id>` and the member's `user:<id>`" },
  "member:timeout": {
    payload: v.object({ serverId: id, userId: id, expiresAt: v.nullable(UnixSeconds) }),
    rooms: ["server", "user"],
    audience: "`server:<id>` and the member's `user:<id>`",
  },
  "member:role-updated": {
    payload: v.object({ serverId: id, userId: id, role: v.picklist(["owner", "admin", "moderator", "member"]) }),
    rooms: ["server"],
    audience: "`server:<id>`",
  },
  "member:roles-updated": { payload: v.object({ serverId: id, userId: id }), rooms: ["server", "user"], audience: "`server:<id>` and the member's `user:<id>`" },
  "role:created": { payload: Role, rooms: ["server"], audience: "`server:<id>`" },
  "role:updated": { payload: Role, rooms: ["server"], audience: "`server:<id>`" },
  "role:deleted": { payload: id, rooms: ["server"], audience: "`server:<id>` (the payload is the role id)" },
  "channel:created": { payload: Channel, rooms: ["server"], audience: "`server:<id>`, except members who cannot see the channel" },
  "channel:updated": { payload: Channel, rooms: ["server"], audience: "`server:<id>`, except members who cannot see the channel" },
  "channel:deleted": { payload: v.object({ id, server_id: id }), rooms: ["server"], audience: "`server:<id>`, except members who could not see the channel" },
  "channel:permissions-updated": {
    payload: permissionsUpdate("channelId"),
    rooms: ["server"],
    audience: "`server:<id>`, except members who cannot see the channel",
  },
  "category:permissions-updated": { payload: permissionsUpdate("categoryId"), rooms: ["server"], audience: "`server:<id>`" },
  "server:deleted": {
    payload: v.object({ id }),
    rooms: ["server"],
    audience: "`server:<id>`, just before its sockets are taken out of the server's rooms (a Hearth extension: the owner deleted the server)",
  },
  // Ids only: who may see a category depends on its overrides, so clients ask for their list again.
  "category:created": { payload: v.object({ id, server_id: id }), rooms: ["server"], audience: "`server:<id>` (ids only: each client asks for its own list again)" },
  "category:updated": { payload: v.object({ id, server_id: id }), rooms: ["server"], audience: "`server:<id>` (ids only: each client asks for its own list again)" },
  "category:deleted": { payload: v.object({ id, server_id: id }), rooms: ["server"], audience: "`server:<id>` (ids only: each client asks for its own list again)" },
  "session:resync": {
    payload: v.object({
      reason: v.literal("cluster_outage"),
      /** When the sending node lost Redis: what the client fetches starts there (docs/gateway.md "Resync"). */
      since: UnixSeconds,
    }),
    rooms: ["server", "channel", "user", "socket"],
    audience:
      "cluster mode, once Redis is back after an outage: every socket in a room some events could not reach across the nodes meanwhile (and every socket of a node that lost the stream when Redis restarted). The client missed events: it asks again over REST for what it shows (docs/gateway.md \"Resync\")",
  },
  "session:ready": {
    payload: v.object({ resumed: v.boolean() }),
    rooms: ["socket"],
    audience:
      "a socket that connected with `auth.resume: true`, on every connect: `resumed: true` after the events it missed; `resumed: false` after a reconnect means reload over REST (docs/gateway.md \"Resume\")",
  },
  "user:status": {
    payload: v.object({
      userId: id,
      status: Presence,
      customStatus: v.optional(v.nullable(v.string())),
      customStatusEmoji: v.optional(v.nullable(v.string())),
    }),
    rooms: ["user", "server", "presence"],
    audience:
      "the user's own `user:<id>`, `server:<id>` of each of their servers up to the large-server size (`LARGE_SERVER_MEMBERS`, 250), `presence:<serverId>:<userId>` of each larger one (sockets that asked with `presence:subscribe`), and the `user:<id>` of their accepted friends and of their DM partners who may see it (docs/gateway.md \"Presence\")",
  },
  "typing:start": { payload: typing, rooms: ["channel"], audience: "`channel:<id>`, except the typist's own sockets" },
  "typing:stop": { payload: typing, rooms: ["channel"], audience: "`channel:<id>`, except the typist's own sockets" },
  "dm:new": { payload: DmMessage, rooms: ["user"], audience: "the members' `user:<id>`, except members who muted the sender" },
  "dm:reaction": {
    payload: v.object({ conversationId: id, messageId: id, emoji: v.string(), userId: id, action: v.picklist(["added", "removed"]) }),
    rooms: ["user"],
    audience: "the members' `user:<id>`",
  },
  "dm:typing:start": { payload: dmTyping, rooms: ["user"], audience: "the other members' `user:<id>`, except those who muted the typist" },
  "dm:typing:stop": { payload: dmTyping, rooms: ["user"], audience: "the other members' `user:<id>`, except those who muted the typist" },
  // Hearth extensions for DMs (docs/dms.md): edits, deletes, pins and group changes.
  "dm:update": { payload: DmMessage, rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:deleted": { payload: v.object({ conversationId: id, messageId: id }), rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:pin": { payload: v.object({ conversationId: id, messageId: id, pinned: v.boolean() }), rooms: ["user"], audience: "the members' `user:<id>`" },
  // docs/read-states.md: the reader's other devices clear their badges.
  "read-state:update": {
    payload: v.object({ channel_id: id, last_read_message_id: v.nullable(id), mention_count: v.number() }),
    rooms: ["user"],
    audience: "the reader's own `user:<id>` (every socket of theirs, on every node)",
  },
  // docs/users.md: a notification setting changed on one device reaches the others.
  "notifications:update": { payload: NotificationOverride, rooms: ["user"], audience: "the user's own `user:<id>` (every socket of theirs)" },
  "dm:group:created": { payload: Dm, rooms: ["user"], audience: "each member's `user:<id>` (recipients as that member sees them)" },
  "dm:group:updated": { payload: Dm, rooms: ["user"], audience: "each member's `user:<id>` (recipients as that member sees them)" },
  "dm:group:removed": { payload: v.object({ conversationId: id }), rooms: ["user"], audience: "the removed (or leaving) member's `user:<id>`" },
  "dm:group:deleted": { payload: v.object({ conversationId: id }), rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:call-incoming": {
    payload: v.object({ callId: id, conversationId: id, from: userRef }),
    rooms: ["user", "socket"],
    audience: "the other members' `user:<id>`; again to each of their sockets that connects while it rings for them (docs/dm-calls.md)",
  },
  // Hearth extensions: the rest of a DM call's signaling (docs/dm-calls.md), to the members' user rooms.
  "dm:call-accepted": { payload: v.object({ callId: id, userId: id }), rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:call-declined": { payload: v.object({ callId: id, userId: id }), rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:call-left": { payload: v.object({ callId: id, userId: id, reason: v.picklist(CALL_END_REASONS) }), rooms: ["user"], audience: "the members' `user:<id>`" },
  "dm:call-ended": {
    payload: v.object({ callId: id, endedBy: v.nullable(id), reason: v.picklist(CALL_END_REASONS) }),
    rooms: ["user"],
    audience: "the members' `user:<id>` (a member taken out of the conversation: theirs alone)",
  },
  "dm:call-signal": {
    payload: v.looseObject({ callId: id, from: id }),
    rooms: ["socket"],
    audience: "the named participant's call socket; the sender's fields without `to`, plus `callId` and `from` (user id)",
  },
  // Voice (docs/voice.md).
  "voice:existing": { payload: v.array(VoiceParticipant), rooms: ["socket"], audience: "the joining socket (the others already in the room)" },
  "voice:user-joined": { payload: VoiceParticipant, rooms: ["voice"], audience: "`voice:<channelId>`, except the joiner" },
  "voice:user-left": { payload: v.object({ socketId }), rooms: ["voice"], audience: "`voice:<channelId>`" },
  "voice:meeting-update": {
    payload: v.object({ socketId, userId: id, meetingRole: v.picklist(["audience", "speaker"]), handRaised: v.boolean() }),
    rooms: ["voice"],
    audience: "`voice:<channelId>`",
  },
  "voice:state-update": {
    payload: v.object({ socketId, userId: id, muted: v.boolean(), deafened: v.boolean(), video: v.boolean() }),
    rooms: ["voice"],
    audience: "`voice:<channelId>`",
  },
  "voice:speaking": { payload: v.object({ socketId, speaking: v.boolean() }), rooms: ["voice"], audience: "`voice:<channelId>`" },
  "voice:admin-mute-update": { payload: v.object({ socketId, userId: id, serverMuted: v.boolean() }), rooms: ["voice"], audience: "`voice:<channelId>`" },
  "voice:admin-deafen-update": { payload: v.object({ socketId, userId: id, serverDeafened: v.boolean() }), rooms: ["voice"], audience: "`voice:<channelId>`" },
  "voice:force-leave": { payload: v.object({ reason: v.string(), channelId: id }), rooms: ["socket"], audience: "the socket concerned" },
  "voice:force-disconnect": { payload: v.object({ reason: v.string(), channelId: id }), rooms: ["socket"], audience: "the socket concerned" },
  "voice:force-move": { payload: v.object({ channelId: id, fromChannelId: id }), rooms: ["socket"], audience: "the socket concerned" },
  "voice:signal": {
    payload: v.looseObject({ from: socketId, userId: id }),
    rooms: ["socket"],
    audience: "the named peer socket; the sender's fields without `to`, plus `from` (socket id) and `userId`",
  },
  "voice:error": { payload: v.object({ error: v.string() }), rooms: ["socket"], audience: "the socket whose voice or audio event was refused" },
  // Hearth extension: with JANUS_URL set, what the joining page connects to Janus's VideoRoom with (docs/voice.md, "Janus").
  "voice:media": {
    payload: MediaGrant,
    rooms: ["socket"],
    audience: "the socket that joined (or joined its room again)",
  },
  // pcm is forwarded as received (a Buffer on the server), a Socket.IO binary attachment.
  "bot:audio-data": {
    payload: v.object({ pcm: Binary, sampleRate: v.number(), channels: v.number(), botUserId: id }),
    rooms: ["voice"],
    audience: "`voice:<channelId>`, except the sender (docs/audio.md)",
  },
  // Hearth extensions (docs/audio.md, "Bots that listen"): a bot starts or stops hearing the room's
  // people (to the room), and a person's microphone frame (only to the bots in the room that listen).
  "voice:listening": {
    payload: v.object({ socketId, userId: id, listening: v.boolean() }),
    rooms: ["voice"],
    audience: "`voice:<channelId>`",
  },
  "voice:audio-data": {
    payload: v.object({ channelId: id, pcm: Binary, sampleRate: v.number(), channels: v.number(), userId: id }),
    rooms: ["voice"],
    audience: "only the bots of the room that listen (docs/audio.md)",
  },
  // Hearth extension (docs/voice.md, "Who is in each voice channel"): a voice room's whole
  // snapshot, for the channel list of everyone who can see the channel, at most 5 a second per room.
  "voice:channel-update": {
    payload: v.object({ server_id: id, ...VoiceChannelState.entries }),
    rooms: ["server"],
    audience: "`server:<id>`, except members who cannot see the channel (coalesced per room: at most one every 200 ms, the last state)",
  },
  // Hearth extension (docs/soundboard.md): a soundboard sound played into a voice room.
  "voice:soundboard": {
    payload: v.object({
      channelId: id,
      sound: v.object({ id, name: v.string(), icon: v.string(), file_url: v.string() }),
      userId: id,
      username: v.string(),
    }),
    rooms: ["voice"],
    audience: "`voice:<channelId>`",
  },
  // Hearth extensions (the spec names no friend events), delivered to the other user's room.
  "friend:request": { payload: v.object({ from: userRef }), rooms: ["user"], audience: "the other user's `user:<id>`" },
  "friend:accepted": { payload: v.object({ userId: id, username: v.string() }), rooms: ["user"], audience: "the other user's `user:<id>`" },
  "friend:removed": { payload: v.object({ userId: id }), rooms: ["user"], audience: "the other user's `user:<id>`" },
} as const satisfies Record<string, { payload: v.GenericSchema; rooms: readonly RoomKind[]; audience: string }>;

export type GatewayEventName = keyof typeof SERVER_EVENTS;
export type GatewayPayload<E extends GatewayEventName> = v.InferOutput<(typeof SERVER_EVENTS)[E]["payload"]>;

/** The gateway's event names and payloads, as Socket.IO's typed server wants them. */
export type ServerToClientEvents = { [E in GatewayEventName]: (payload: GatewayPayload<E>) => void };

/** Room names, in one place so the domain and the gateway agree. */
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  server: (serverId: string) => `server:${serverId}`,
  channel: (channelId: string) => `channel:${channelId}`,
  /** A voice channel's participants (never the channel's text room). */
  voice: (channelId: string) => `voice:${channelId}`,
  /** Sockets that asked for `userId`'s presence in the large server `serverId` (`presence:subscribe`). */
  presence: (serverId: string, userId: string) => `presence:${serverId}:${userId}`,
  /**
   * Markers of the bulk subscriptions (docs/gateway.md, "Bulk subscriptions"): no event is sent to
   * them; they say which sockets follow what is added later. `followServers`: sockets of the user
   * that joined every server (`server:join {servers: "all"}`); `followChannels`: those that also
   * joined every channel of each; `followServerChannels`: sockets that follow every channel of one
   * server (`channel:join {server_id, channels: "all"}`, or the former in each server).
   */
  followServers: (userId: string) => `follow:servers:${userId}`,
  followChannels: (userId: string) => `follow:channels:${userId}`,
  followServerChannels: (serverId: string) => `follow:server:${serverId}`,
} as const;

/**
 * The seam between the domain and the gateway. The domain says who should hear what and
 * who belongs where; the gateway (or a recording bus in tests) does it.
 */
export interface EventBus {
  /** Delivers to every socket in `room`, except those also in one of the `except` rooms. */
  publish<E extends GatewayEventName>(room: string | string[], event: E, payload: GatewayPayload<E>, except?: string[]): void;
  /**
   * Delivers to every socket in `room` except the sockets of the users `hiddenAmong` names. It is
   * asked about the users with a socket in `room` (each user once, never about the others),
   * again for any who joined while it answered, until none is left unasked; on one node the last
   * check and the delivery are one step, so no socket joins unchecked in between.
   */
  publishScreened<E extends GatewayEventName>(room: string, event: E, payload: GatewayPayload<E>, hiddenAmong: (userIds: string[]) => Promise<string[]>): Promise<void>;
  /** Puts every socket currently in `selector` into `room` (or each of several rooms) too. */
  addToRoom(selector: string, room: string | string[]): void;
  /** Takes every socket currently in `selector` out of `room`, at once. */
  removeFromRoom(selector: string, room: string): void;
  /** Disconnects every socket in `selector` (token revoked, account removed). */
  disconnect(selector: string): void;
  /** Disconnects the sockets of `userId` opened with the token `tokenId` (that token logged out), on every node. */
  disconnectToken(userId: string, tokenId: string): void;
  /** The users with at least one socket in `room` (each once). */
  usersIn(room: string): Promise<string[]>;
  /** The sockets in `room`, on every node, each with its user and the rooms it is in. */
  socketsIn(room: string): Promise<RoomSocket[]>;
}

/** A socket as `EventBus.socketsIn` describes it. */
export interface RoomSocket {
  id: string;
  userId: string;
  rooms: ReadonlySet<string>;
}
