/**
 * Voice-room membership as the voice domain sees it: who is in which voice channel, with which
 * socket and state. The domain holds the rules and defines this interface; the audio layer
 * implements it (src/audio/voice-rooms.ts, in memory, node-local) and reads it for every frame.
 * The composition root is given the implementation, as it is given the event bus.
 */

export type MeetingRole = "audience" | "speaker";

export interface Participant {
  socketId: string;
  userId: string;
  username: string;
  isBot: boolean;
  serverId: string;
  channelId: string;
  muted: boolean;
  deafened: boolean;
  video: boolean;
  serverMuted: boolean;
  serverDeafened: boolean;
  speaking: boolean;
  /** Meeting channels only: audience or speaker; null elsewhere. */
  meetingRole: MeetingRole | null;
  handRaised: boolean;
  /** A bot that asked to hear the people of its room (`voice:listen`); never true for people. */
  listening: boolean;
  joinedAt: number;
}

/** One voice channel per user at a time. No rules in here: the voice domain decides who may do what. */
export interface VoiceRoomMembership {
  /**
   * Adds the participant. A user is in one voice channel at a time: the participant they
   * had before (another channel, or another device) is removed and returned.
   */
  join(participant: Participant): { previous: Participant | null };
  /** Removes the socket's participant, if any, and returns it. */
  leave(socketId: string): Participant | null;
  participant(socketId: string): Participant | null;
  ofUser(userId: string): Participant | null;
  /** The channel's participants, in join order. */
  inChannel(channelId: string): Participant[];
  /** Applies a change of state (not of channel: moving is leave + join). */
  update(socketId: string, patch: Partial<Omit<Participant, "socketId" | "userId" | "channelId" | "serverId">>): Participant | null;
  /** Every participant (for presence-style lookups such as friends in voice). */
  all(): Participant[];
  /**
   * The channel's participants with `listening` set, kept apart so that relaying a person's
   * microphone frame does not walk the whole room (src/audio/listen-relay.ts).
   */
  listeners(channelId: string): ReadonlySet<Participant>;
}
