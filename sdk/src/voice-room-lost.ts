/**
 * The `voice:error`s that mean the socket's voice room is gone (cluster mode: the node holding it
 * died, docs/audio.md "Several nodes"), not that one event was refused (a `You are not in this
 * voice channel` may be either, so it is not one of them): the SDK's voice
 * connection and the web app join again by themselves when they get one.
 */
const ROOM_LOST: ReadonlySet<string> = new Set(["The voice room's node went away; join again", "The node holding this room cannot be reached; try again"]);

export const isVoiceRoomLost = (error: string): boolean => ROOM_LOST.has(error);

/** How long to wait before rejoin attempt `attempt` (1, 2, ...): 250 ms doubling to 5 s, with jitter (half to all of it). */
export function rejoinDelayMs(attempt: number): number {
  const delay = Math.min(5000, 250 * 2 ** (attempt - 1));
  return Math.round(delay * (0.5 + Math.random() * 0.5));
}
