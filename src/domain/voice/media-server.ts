/**
 * A media server that carries people's audio in voice rooms instead of the peer-to-peer mesh
 * (docs/voice.md, "Janus"). The voice rules stay in Voice: it tells the media server who is let
 * in, who may publish, and who is out; the media server keeps its rooms and credentials to match.
 * Bots are never let in: their audio goes through Hearth's PCM relay.
 */
import * as v from "valibot";
import { Uuid } from "../shared/shapes.ts";
import type { Participant } from "./voice-rooms.ts";

/**
 * What a page needs to join the room's media (`voice:media`): the Janus API over WebSocket (the
 * page's Content-Security-Policy allows it), the VideoRoom room (the channel's id), the join's
 * own token (Janus's core auth and the room's allow list take it; revoked when the person
 * leaves), and the participant id to join with (the socket's id, so pages map feeds onto people).
 */
export const MediaGrant = v.object({ channelId: Uuid, server: v.literal("janus"), url: v.string(), room: Uuid, token: v.string(), id: v.string() });
export type MediaGrant = v.InferOutput<typeof MediaGrant>;

export interface MediaServer {
  /** A person entered the room: their grant (anything earlier of the same socket revoked first). */
  admit(participant: Participant, mayPublish: boolean): Promise<MediaGrant>;
  /** Out of the room: kicked from the media room, their token revoked; the room goes with its last person. */
  release(participant: Participant): Promise<void>;
  /** Whether what the person publishes reaches the others (server mute, a meeting's audience: false). */
  setPublishing(participant: Participant, mayPublish: boolean): Promise<void>;
  /** The media server's URLs, for the page's Content-Security-Policy. */
  readonly urls: readonly string[];
}
