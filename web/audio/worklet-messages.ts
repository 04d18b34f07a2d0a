/** What the page and its audio worklets say to each other (types only). */
import type { JitterStats } from "./jitter-buffer.ts";

/** Page -> player: a frame (its bytes transferred) or the end. `arrival` is the output clock's time at arrival, in seconds. */
export type PlayerMessage = { type: "frame"; pcm: ArrayBuffer; channels: number; sampleRate: number; arrival: number } | { type: "close" };

/** Player -> page, every ~100 ms. */
export interface PlayerReport extends JitterStats {
  type: "report";
  /** RMS level, peak-held (0-1). */
  level: number;
  bufferedMs: number;
  /** Arrival-to-output delays measured since the last report, in ms. */
  delays: number[];
}

/** Page -> microphone: whether to send PCM frames, or the end. */
export type MicMessage = { type: "capture"; on: boolean } | { type: "close" };

/** Microphone -> page: its level every 20 ms, and each 20 ms frame while capturing (bytes transferred). */
export type MicReport = { type: "level"; level: number } | { type: "frame"; pcm: ArrayBuffer; sampleRate: number };
