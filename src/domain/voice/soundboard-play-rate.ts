/** Plays one user may make per window (SOUNDBOARD_PLAYS_PER_WINDOW, SOUNDBOARD_PLAY_WINDOW_SECONDS). */
export interface SoundboardPlayRate {
  plays: number;
  windowSeconds: number;
}

/** A play every 2 s on average, three at once (docs/soundboard.md, "Playing"). */
export const DEFAULT_SOUNDBOARD_PLAY_RATE: SoundboardPlayRate = { plays: 3, windowSeconds: 6 };
