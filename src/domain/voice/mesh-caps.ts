/**
 * How big a voice room may grow while people's audio goes peer to peer (the embedded default,
 * no media server; docs/voice.md, "Room sizes"). In the mesh every person sends their audio
 * once per other person who hears them, so a room's cost grows with the square of its size:
 * past a handful of people the uploads of home connections give out. Two caps, each named
 * in its refusal so a host knows what to raise (or that the room needs a media server):
 *
 * - publishers: people (not bots: their audio goes through Hearth's relay) who send audio in
 *   one room. In a voice room every person publishes; in a meeting, the speakers.
 * - audience: a meeting's audience members (they only listen, but each is one more upload for
 *   every speaker).
 *
 * `meshRefusal` is the one place that decides; a media server mode answers no refusal here.
 */
import type { Participant } from "./voice-rooms.ts";

export interface MeshCaps {
  /** VOICE_MESH_MAX_PUBLISHERS. */
  publishers: number;
  /** VOICE_MESH_MAX_AUDIENCE. */
  audience: number;
}

export const DEFAULT_MESH_CAPS: MeshCaps = { publishers: 8, audience: 16 };

/** What is about to happen in a room: someone joins it, or a meeting's audience member becomes a speaker. */
export type MeshChange = { kind: "join"; meeting: boolean; isBot: boolean } | { kind: "speak" };

export const roomFullMessage = (caps: MeshCaps) =>
  `This voice room is full: at most ${caps.publishers} people talk in one room (VOICE_MESH_MAX_PUBLISHERS)`;
export const speakersFullMessage = (caps: MeshCaps) =>
  `This meeting has its most speakers: at most ${caps.publishers} (VOICE_MESH_MAX_PUBLISHERS)`;
export const audienceFullMessage = (caps: MeshCaps) =>
  `This meeting is full: at most ${caps.audience} people listen in the audience (VOICE_MESH_MAX_AUDIENCE)`;

/**
 * The refusal of `change` in a room whose participants are `present` (the one changing not
 * among them), or null when it fits.
 */
export function meshRefusal(caps: MeshCaps, present: readonly Participant[], change: MeshChange): string | null {
  const people = present.filter((p) => !p.isBot);
  if (change.kind === "speak") return people.filter((p) => p.meetingRole === "speaker").length >= caps.publishers ? speakersFullMessage(caps) : null;
  if (change.isBot) return null;
  // Meeting joiners start in the audience.
  if (change.meeting) return people.filter((p) => p.meetingRole !== "speaker").length >= caps.audience ? audienceFullMessage(caps) : null;
  return people.length >= caps.publishers ? roomFullMessage(caps) : null;
}
