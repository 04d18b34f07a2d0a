/**
 * Voice activity from a level (docs/web.md, "Voice"): on at once when the level reaches a
 * threshold, off after a hangover below it, so the state does not drop between syllables (or
 * between a test microphone's beeps). One rule for the page's two uses: the microphone's own
 * voice detection (web/voice/microphone.ts, RMS every 20 ms) and who is heard speaking
 * (`AudioEngine.speaking`, each speaker's level read ten times a second), which the voice
 * tiles' ring and the DM call bar's Speaking flag show. Pure: unit-tested in
 * test/web/speaking.test.ts.
 */

/** A heard speaker's level (RMS, 0-1) from which they count as speaking. */
export const SPEAKING_LEVEL = 0.01;
/** How long voice stays detected after the last loud reading. */
export const HANGOVER_MS = 400;

export class VoiceActivity {
  private lastLoud = -Infinity;
  active = false;

  constructor(
    readonly threshold = 0.015,
    readonly hangoverMs = HANGOVER_MS,
  ) {}

  /** Feeds one level reading; returns whether voice is detected now. */
  update(level: number, nowMs: number): boolean {
    if (level >= this.threshold) this.lastLoud = nowMs;
    this.active = nowMs - this.lastLoud <= this.hangoverMs;
    return this.active;
  }
}

/**
 * The heard speakers speaking now, given each one's level: one `VoiceActivity` per speaker in
 * `detectors`, kept between calls; a speaker no longer in `levels` is forgotten.
 */
export function speakingNow(levels: ReadonlyMap<string, number>, detectors: Map<string, VoiceActivity>, nowMs: number): Set<string> {
  const speaking = new Set<string>();
  for (const [id, level] of levels) {
    let detector = detectors.get(id);
    if (!detector) detectors.set(id, (detector = new VoiceActivity(SPEAKING_LEVEL)));
    if (detector.update(level, nowMs)) speaking.add(id);
  }
  for (const id of detectors.keys()) if (!levels.has(id)) detectors.delete(id);
  return speaking;
}

/** Whether two sets hold the same members (the signal is set only when who speaks changes). */
export const sameMembers = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((id) => b.has(id));
