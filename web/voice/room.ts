/**
 * A voice room as the page holds it: the participants (in join order) and how each gateway
 * event changes them, plus the rules the page applies on its side (who may talk, when the
 * microphone goes out; its voice detection is web/audio/speaking.ts). Pure: unit-tested in
 * test/web/voice-room.test.ts.
 */
import type { MeetingUpdate, StateUpdate, VoiceParticipant } from "./types.ts";

export type RoomEvent =
  | { type: "voice:user-joined"; payload: VoiceParticipant }
  | { type: "voice:user-left"; payload: { socketId: string } }
  | { type: "voice:state-update"; payload: StateUpdate }
  | { type: "voice:speaking"; payload: { socketId: string; speaking: boolean } }
  | { type: "voice:meeting-update"; payload: MeetingUpdate }
  | { type: "voice:admin-mute-update"; payload: { socketId: string; serverMuted: boolean } }
  | { type: "voice:admin-deafen-update"; payload: { socketId: string; serverDeafened: boolean } }
  | { type: "voice:listening"; payload: { socketId: string; listening: boolean } };

export const ROOM_EVENTS: RoomEvent["type"][] = [
  "voice:user-joined",
  "voice:user-left",
  "voice:state-update",
  "voice:speaking",
  "voice:meeting-update",
  "voice:admin-mute-update",
  "voice:admin-deafen-update",
  "voice:listening",
];

const patch = (list: VoiceParticipant[], socketId: string, change: Partial<VoiceParticipant>) =>
  list.some((p) => p.socketId === socketId) ? list.map((p) => (p.socketId === socketId ? { ...p, ...change } : p)) : list;

/** The room after one event (the same list when the event changes nothing in it). */
export function applyRoomEvent(list: VoiceParticipant[], event: RoomEvent): VoiceParticipant[] {
  switch (event.type) {
    case "voice:user-joined": {
      const others = list.filter((p) => p.socketId !== event.payload.socketId && p.userId !== event.payload.userId);
      return [...others, event.payload];
    }
    case "voice:user-left":
      return list.filter((p) => p.socketId !== event.payload.socketId);
    case "voice:state-update": {
      const { muted, deafened, video } = event.payload;
      return patch(list, event.payload.socketId, muted ? { muted, deafened, video, speaking: false } : { muted, deafened, video });
    }
    case "voice:speaking":
      return patch(list, event.payload.socketId, { speaking: event.payload.speaking });
    case "voice:meeting-update":
      return patch(list, event.payload.socketId, { meetingRole: event.payload.meetingRole, handRaised: event.payload.handRaised });
    case "voice:admin-mute-update":
      return patch(list, event.payload.socketId, event.payload.serverMuted ? { serverMuted: true, speaking: false } : { serverMuted: false });
    case "voice:admin-deafen-update":
      return patch(list, event.payload.socketId, { serverDeafened: event.payload.serverDeafened });
    case "voice:listening":
      return patch(list, event.payload.socketId, { listening: event.payload.listening });
  }
}

/** Whether the server lets this participant's voice out now (its own mute aside): not server-muted, a speaker in a meeting. */
export function maySpeak(p: VoiceParticipant): boolean {
  return !p.serverMuted && p.meetingRole !== "audience";
}

export type TalkMode = "voice-activity" | "push-to-talk";

/** Whether the microphone goes out now: allowed, unmuted, and voice detected or the talk key held. */
export function transmitting(input: { me: VoiceParticipant | undefined; micLive: boolean; mode: TalkMode; voiceDetected: boolean; talkHeld: boolean }): boolean {
  const { me } = input;
  if (!me || !input.micLive || me.muted || !maySpeak(me)) return false;
  return input.mode === "push-to-talk" ? input.talkHeld : input.voiceDetected;
}

/** The bots in the room that hear its people (docs/audio.md, "Bots that listen"). */
export const listeningBots = (list: VoiceParticipant[]) => list.filter((p) => p.isBot && p.listening);

/** A meeting's speakers and audience, each in join order. */
export function meetingSections(list: VoiceParticipant[]): { speakers: VoiceParticipant[]; audience: VoiceParticipant[] } {
  return { speakers: list.filter((p) => p.meetingRole === "speaker"), audience: list.filter((p) => p.meetingRole !== "speaker") };
}
