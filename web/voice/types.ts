/**
 * The voice wire shapes the app reads (docs/voice.md, docs/audio.md, docs/soundboard.md,
 * docs/dm-calls.md). test/web/voice-wire-types.check.ts checks the server's types still fit.
 */

export type MeetingRole = "audience" | "speaker";

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
  meetingRole: MeetingRole | null;
  handRaised: boolean;
  listening: boolean;
}

export interface StateUpdate {
  socketId: string;
  userId: string;
  muted: boolean;
  deafened: boolean;
  video: boolean;
}

export interface MeetingUpdate {
  socketId: string;
  userId: string;
  meetingRole: MeetingRole;
  handRaised: boolean;
}

/** A sound of the premium catalog (`GET /premium/soundboard/catalog`). */
export interface CatalogSound {
  id: string;
  name: string;
  icon: string;
  file_url: string;
  server_id: string;
  server_name: string;
}

export interface SoundboardPlayed {
  channelId: string;
  sound: { id: string; name: string; icon: string; file_url: string };
  userId: string;
  username: string;
}

export interface IncomingCall {
  callId: string;
  conversationId: string;
  from: { id: string; username: string; avatar: string | null };
}
