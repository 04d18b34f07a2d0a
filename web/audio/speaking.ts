/**
 * Who is speaking, from the levels the page measures (docs/web.md, "Voice"): a speaker counts as
 * speaking from a level above SPEAKING_LEVEL until SPEAKING_HOLD_MS after the last one. Speech
 * (and a beeping test microphone) dips below the threshold between syllables, and the levels
 * are sampled ten times a second, so without the hold the indicator would blink on for one
 * sample and off for the next.
 */

/** A level above this (RMS, 0-1) is someone speaking. */
export const SPEAKING_LEVEL = 0.01;
/** ... and they still count as speaking this long after it. */
export const SPEAKING_HOLD_MS = 400;

/** The speakers who are speaking, given their levels now; `heardAt` carries each one's last loud moment between calls. */
export function speakingNow(levels: ReadonlyMap<string, number>, heardAt: Map<string, number>, now: number): Set<string> {
  const speaking = new Set<string>();
  for (const [id, level] of levels) {
    if (level > SPEAKING_LEVEL) heardAt.set(id, now);
    const at = heardAt.get(id);
    if (at !== undefined && now - at < SPEAKING_HOLD_MS) speaking.add(id);
  }
  // A speaker who is gone is forgotten.
  for (const id of heardAt.keys()) if (!levels.has(id)) heardAt.delete(id);
  return speaking;
}

/** Whether two sets hold the same members (the signal is set only when who speaks changes). */
export const sameMembers = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((id) => b.has(id));
