import type { Channel, Message, PresenceStatus } from "./shapes.ts";

/** Why a DM call ended or someone left it (docs/dm-calls.md); `removed`: taken out of the conversation. */
export type CallEndReason = "ended" | "declined" | "timeout" | "disconnect" | "removed";

/**
 * The gateway's event names and payloads, exactly as SPEC.md "Events" names them.
 * The domain publishes through `EventBus`; the gateway delivers. Payloads the spec
 * leaves open are typed as loosely as the spec is, and narrowed as features land.
 */
export interface ServerToClientEvents {
  "interaction:create": (interaction: Record<string, unknown>) => void;
  "message:new": (message: Message) => void;
  "message:update": (message: Message) => void;
  "message:deleted": (payload: { channelId: string; messageId: string }) => void;
  "message:reaction": (payload: {
    channelId: string;
    messageId: string;
    emoji: string;
    userId: string;
    action: "added" | "removed";
  }) => void;
  "message:pin": (payload: { channelId: string; messageId: string; pinned: boolean }) => void;
  "member:joined": (payload: { serverId: string; userId: string; username: string; avatar: string | null }) => void;
  "member:left": (payload: { serverId: string; userId: string }) => void;
  "member:banned": (payload: { serverId: string; userId: string }) => void;
  "member:timeout": (payload: { serverId: string; userId: string; expiresAt: number | null }) => void;
  "member:role-updated": (payload: { serverId: string; userId: string; role: string }) => void;
  "member:roles-updated": (payload: { serverId: string; userId: string }) => void;
  "role:created": (role: Record<string, unknown>) => void;
  "role:updated": (role: Record<string, unknown>) => void;
  "role:deleted": (roleId: string) => void;
  "channel:created": (channel: Channel) => void;
  "channel:updated": (channel: Channel) => void;
  "channel:deleted": (payload: { id: string; server_id: string }) => void;
  "channel:permissions-updated": (
    payload: { channelId: string; roleId: string } & ({ allow: number; deny: number } | { reset: true }),
  ) => void;
  "category:permissions-updated": (
    payload: { categoryId: string; roleId: string } & ({ allow: number; deny: number } | { reset: true }),
  ) => void;
  "user:status": (payload: { userId: string; status: PresenceStatus; customStatus?: string | null }) => void;
  "typing:start": (payload: { userId: string; username?: string; channelId: string }) => void;
  "typing:stop": (payload: { userId: string; username?: string; channelId: string }) => void;
  "dm:new": (message: Record<string, unknown>) => void;
  "dm:reaction": (payload: Record<string, unknown>) => void;
  "dm:typing:start": (payload: { userId: string; [key: string]: unknown }) => void;
  "dm:typing:stop": (payload: { userId: string; [key: string]: unknown }) => void;
  // Hearth extensions for DMs (docs/dms.md): edits, deletes, pins and group changes.
  "dm:update": (message: Record<string, unknown>) => void;
  "dm:deleted": (payload: { conversationId: string; messageId: string }) => void;
  "dm:pin": (payload: { conversationId: string; messageId: string; pinned: boolean }) => void;
  "dm:group:created": (group: Record<string, unknown>) => void;
  "dm:group:updated": (group: Record<string, unknown>) => void;
  "dm:group:removed": (payload: { conversationId: string }) => void;
  "dm:group:deleted": (payload: { conversationId: string }) => void;
  "dm:call-incoming": (payload: {
    callId: string;
    conversationId: string;
    from: { id: string; username: string; avatar: string | null };
  }) => void;
  // Hearth extensions: the rest of a DM call's signaling (docs/dm-calls.md), to the members' user rooms.
  "dm:call-accepted": (payload: { callId: string; userId: string }) => void;
  "dm:call-declined": (payload: { callId: string; userId: string }) => void;
  "dm:call-left": (payload: { callId: string; userId: string; reason: CallEndReason }) => void;
  "dm:call-ended": (payload: { callId: string; endedBy: string | null; reason: CallEndReason }) => void;
  "dm:call-signal": (payload: { callId: string; from: string; [key: string]: unknown }) => void;
  // Voice (docs/voice.md).
  "voice:existing": (participants: VoiceParticipant[]) => void;
  "voice:user-joined": (participant: VoiceParticipant) => void;
  "voice:user-left": (payload: { socketId: string }) => void;
  "voice:meeting-update": (payload: {
    socketId: string;
    userId: string;
    meetingRole: "audience" | "speaker";
    handRaised: boolean;
  }) => void;
  "voice:state-update": (payload: { socketId: string; userId: string; muted: boolean; deafened: boolean; video: boolean }) => void;
  "voice:speaking": (payload: { socketId: string; speaking: boolean }) => void;
  "voice:admin-mute-update": (payload: { socketId: string; userId: string; serverMuted: boolean }) => void;
  "voice:admin-deafen-update": (payload: { socketId: string; userId: string; serverDeafened: boolean }) => void;
  "voice:force-leave": (payload: { reason: string; channelId: string }) => void;
  "voice:force-disconnect": (payload: { reason: string; channelId: string }) => void;
  "voice:force-move": (payload: { channelId: string; fromChannelId: string }) => void;
  "voice:signal": (payload: { from: string; userId: string; [key: string]: unknown }) => void;
  "voice:error": (payload: { error: string }) => void;
  // pcm is forwarded as received (a Buffer on the server), a Socket.IO binary attachment.
  "bot:audio-data": (payload: { pcm: ArrayBuffer | ArrayBufferView; sampleRate: number; channels: number; botUserId: string }) => void;
  // Hearth extensions (docs/audio.md, "Bots that listen"): a bot starts or stops hearing the room's
  // people (to the room), and a person's microphone frame (only to the bots in the room that listen).
  "voice:listening": (payload: { socketId: string; userId: string; listening: boolean }) => void;
  "voice:audio-data": (payload: { channelId: string; pcm: ArrayBuffer | ArrayBufferView; sampleRate: number; channels: number; userId: string }) => void;
  // Hearth extension (docs/soundboard.md): a soundboard sound played into a voice room.
  "voice:soundboard": (payload: {
    channelId: string;
    sound: { id: string; name: string; icon: string; file_url: string };
    userId: string;
    username: string;
  }) => void;
  // Hearth extensions (the spec names no friend events), delivered to the other user's room.
  "friend:request": (payload: { from: { id: string; username: string; avatar: string | null } }) => void;
  "friend:accepted": (payload: { userId: string; username: string }) => void;
  "friend:removed": (payload: { userId: string }) => void;
}

/** A voice participant as clients see it; meetingRole and handRaised mean something in meetings only. */
export interface VoiceParticipant {
  socketId: string;
  userId: string;
  username: string;
  isBot: boolean;
  muted: boolean;
  deafened: boolean;
  video: boolean;
  serverMuted: boolean;
  serverDeafened: boolean;
  speaking: boolean;
  meetingRole: "audience" | "speaker" | null;
  handRaised: boolean;
  /** Hearth extension (docs/audio.md, "Bots that listen"): a bot that asked to hear the room's people; always false for people. */
  listening: boolean;
}

export type GatewayEventName = keyof ServerToClientEvents;
export type GatewayPayload<E extends GatewayEventName> = Parameters<ServerToClientEvents[E]>[0];

/** Room names, in one place so the domain and the gateway agree. */
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  server: (serverId: string) => `server:${serverId}`,
  channel: (channelId: string) => `channel:${channelId}`,
  /** A voice channel's participants (never the channel's text room). */
  voice: (channelId: string) => `voice:${channelId}`,
} as const;

/**
 * The seam between the domain and the gateway. The domain says who should hear what and
 * who belongs where; the gateway (or a recording bus in tests) does it.
 */
export interface EventBus {
  /** Delivers to every socket in `room`, except those also in one of the `except` rooms. */
  publish<E extends GatewayEventName>(room: string | string[], event: E, payload: GatewayPayload<E>, except?: string[]): void;
  /** Puts every socket currently in `selector` into `room` too. */
  addToRoom(selector: string, room: string): void;
  /** Takes every socket currently in `selector` out of `room`, at once. */
  removeFromRoom(selector: string, room: string): void;
  /** Disconnects every socket in `selector` (token revoked, account removed). */
  disconnect(selector: string): void;
  /** The users with at least one socket in `room` (each once). */
  usersIn(room: string): Promise<string[]>;
}
