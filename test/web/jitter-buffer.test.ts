/**
 * The playback buffer of bot audio (web/audio/jitter-buffer.ts), run as the AudioWorklet runs
 * it: frames pushed as they arrive, 128-sample quanta pulled on the output clock.
 */
import { describe, expect, test } from "bun:test";
import { JitterBuffer, type JitterOptions } from "../../web/audio/jitter-buffer.ts";

const OUT = 48000;
const QUANTUM = 128;

/** Frames of a continuous sine (phase carried across frames), as a sender would stream it. */
function sineFrames(freq: number, rate: number, channels: number, frameMs: number, count: number, amplitude = 0.5): Int16Array[] {
  const n = Math.round((rate * frameMs) / 1000);
  const frames: Int16Array[] = [];
  let t = 0;
  for (let f = 0; f < count; f++) {
    const pcm = new Int16Array(n * channels);
    for (let i = 0; i < n; i++, t++) {
      const v = Math.round(Math.sin((2 * Math.PI * freq * t) / rate) * amplitude * 32767);
      for (let c = 0; c < channels; c++) pcm[i * channels + c] = v;
    }
    frames.push(pcm);
  }
  return frames;
}

interface Run {
  out: Float32Array;
  buffer: JitterBuffer;
  delays: number[];
  /** Buffered ms after each quantum. */
  levels: number[];
}

/**
 * Plays `frames` into a buffer in simulated real time: frame k arrives at `arrivalOf(k)`
 * seconds; quanta are pulled every 128 samples of the output clock unless `paused(t)`.
 */
function play(
  frames: Int16Array[],
  { rate, channels, frameMs, seconds, arrivalOf, paused = () => false, lagOf = () => 0, options }: {
    rate: number;
    channels: number;
    frameMs: number;
    seconds: number;
    arrivalOf?: (k: number) => number;
    paused?: (t: number) => boolean;
    /** Seconds between the page stamping frame k and the worklet reading it. */
    lagOf?: (k: number) => number;
    options?: JitterOptions;
  },
): Run {
  const buffer = new JitterBuffer(OUT, options);
  const arrival = arrivalOf ?? ((k: number) => (k * frameMs) / 1000);
  const quanta = Math.floor((seconds * OUT) / QUANTUM);
  const out: number[] = [];
  const levels: number[] = [];
  const left = new Float32Array(QUANTUM);
  const right = new Float32Array(QUANTUM);
  let next = 0;
  let clock = 0; // output samples played so far
  for (let q = 0; q < quanta; q++) {
    const wall = (q * QUANTUM) / OUT;
    while (next < frames.length && arrival(next) <= wall) {
      buffer.push(frames[next]!, channels, rate, clock / OUT - lagOf(next), clock / OUT);
      next++;
    }
    if (paused(wall)) continue;
    buffer.pull(left, right, clock / OUT);
    clock += QUANTUM;
    for (let j = 0; j < QUANTUM; j++) out.push(left[j]!);
    levels.push(buffer.bufferedMs);
  }
  return { out: Float32Array.from(out), buffer, delays: buffer.takeDelays(), levels };
}

/** The largest second difference between `from` and `to`: a click is a spike in it. */
function roughness(signal: Float32Array, from = 0, to = signal.length): number {
  let worst = 0;
  for (let i = Math.max(from, 2); i < to; i++) worst = Math.max(worst, Math.abs(signal[i]! - 2 * signal[i - 1]! + signal[i - 2]!));
  return worst;
}

/**
 * The sine's own second difference plus quantization slack. Resampled from `rate`, linear
 * interpolation bends at each input sample by the input's second difference spread over
 * OUT/rate output samples; a sample lost or repeated at a frame boundary would be a spike of
 * the input's first difference, several times more.
 */
const smoothBound = (freq: number, rate = OUT, amplitude = 0.5) =>
  ((2 * Math.PI * freq) / rate) ** 2 * amplitude * (rate / OUT) * 1.5 + 4 / 32768;

/** The first index from which the output is not silent. */
const firstSound = (signal: Float32Array) => signal.findIndex((v) => Math.abs(v) > 1e-6);

describe("steady input", () => {
  test("48 kHz stereo 20 ms frames of 440 Hz play as one continuous sine: no click at any frame boundary", () => {
    const frames = sineFrames(440, 48000, 2, 20, 150);
    const { out, buffer, delays } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 3 });
    const start = firstSound(out) + 130; // past the fade-in (128 samples)
    expect(roughness(out, start, start + 2.5 * OUT)).toBeLessThan(smoothBound(440));
    expect(buffer.stats).toMatchObject({ frames: 150, underruns: 0, drops: 0, dropped: 0 });
    // The added delay: from arrival to output, bounded by the target plus one frame.
    expect(delays.length).toBeGreaterThan(100);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
  });

  for (const rate of [8000, 12000, 16000, 24000, 48000]) {
    for (const channels of [1, 2]) {
      test(`${rate} Hz, ${channels} channel(s): resampled to 48 kHz smoothly, at the right pitch`, () => {
        const freq = Math.min(440, rate / 8);
        const frames = sineFrames(freq, rate, channels, 20, 100);
        const { out, buffer } = play(frames, { rate, channels, frameMs: 20, seconds: 2 });
        const start = firstSound(out) + 130;
        const end = start + OUT;
        expect(roughness(out, start, end)).toBeLessThan(smoothBound(freq, rate));
        let crossings = 0;
        for (let i = start + 1; i < end; i++) if (out[i - 1]! < 0 && out[i]! >= 0) crossings++;
        expect(Math.abs(crossings - freq)).toBeLessThanOrEqual(2);
        expect(buffer.stats.underruns).toBe(0);
        expect(buffer.stats.drops).toBe(0);
      });
    }
  }

  test("arrival jitter of up to 15 ms is absorbed without gaps", () => {
    const frames = sineFrames(440, 48000, 2, 20, 150);
    const jitter = (k: number) => ((k * 7919) % 16) / 1000; // deterministic 0-15 ms
    const { out, buffer } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 3, arrivalOf: (k) => k * 0.02 + jitter(k) });
    const start = firstSound(out) + 130;
    expect(roughness(out, start, start + 2.5 * OUT)).toBeLessThan(smoothBound(440));
    expect(buffer.stats.underruns).toBe(0);
  });

  test("60 ms frames: the target grows to 1.5 frames, and playback does not run dry", () => {
    const frames = sineFrames(300, 48000, 2, 60, 50);
    const { out, buffer } = play(frames, { rate: 48000, channels: 2, frameMs: 60, seconds: 2.9 });
    const start = firstSound(out) + 130;
    expect(buffer.target).toBe(Math.round(0.09 * OUT));
    expect(roughness(out, start, start + 2.5 * OUT)).toBeLessThan(smoothBound(300));
    expect(buffer.stats.underruns).toBe(0);
  });

  for (const drift of [0.003, -0.003]) {
    test(`a sender clock ${drift > 0 ? "fast" : "slow"} by 0.3% neither drops nor runs dry: the rate follows`, () => {
      const frames = sineFrames(440, 48000, 2, 20, 1000);
      const { buffer, levels } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 19.5, arrivalOf: (k) => (k * 0.02) / (1 + drift) });
      expect(buffer.stats.drops).toBe(0);
      expect(buffer.stats.underruns).toBe(0);
      const late = levels.slice(-2000);
      expect(Math.max(...late)).toBeLessThan(80);
      expect(Math.min(...late)).toBeGreaterThan(0);
    });
  }
});

describe("late audio is dropped, not played late", () => {
  test("a stalled tab that catches up: frames held back 400 ms arrive at once; the old ones are skipped", () => {
    const frames = sineFrames(440, 48000, 2, 20, 150);
    // Frames 50-69 are held back until t = 1.4 s (the main thread was busy), then arrive together.
    const arrivalOf = (k: number) => (k >= 50 && k < 70 ? 1.4 : k * 0.02);
    const { out, buffer, delays } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 3, arrivalOf });
    expect(buffer.stats.underruns).toBe(1); // ran dry while nothing came
    expect(buffer.stats.drops).toBeGreaterThanOrEqual(1);
    expect(buffer.stats.dropped).toBeGreaterThan(0.3 * OUT);
    // What was played after the catch-up was never more than the target plus a frame behind.
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
    // And the skip itself is crossfaded: no click where the audio jumps ahead.
    const resumed = Math.round(1.4 * OUT);
    expect(roughness(out, resumed, resumed + 0.5 * OUT)).toBeLessThan(0.02);
  });

  test("an audio clock that stops (suspended context) and resumes skips what piled up meanwhile", () => {
    const frames = sineFrames(440, 48000, 2, 20, 150);
    const { buffer, levels } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 3, paused: (t) => t >= 1 && t < 1.5 });
    expect(buffer.stats.drops).toBeGreaterThanOrEqual(1);
    expect(Math.max(...levels)).toBeLessThanOrEqual(80 + 20);
  });

  test("frames that reach the worklet long after the page got them (its thread rendered ahead) are dropped whole, joined smoothly", () => {
    // 437 Hz: a dropped 20 ms is not a whole number of cycles, so the sound jumps phase there.
    const frames = sineFrames(437, 48000, 2, 20, 150);
    // Frames 50, 80 and 110 were stamped 300 ms before the worklet read them; a steady lag of 40 ms is the norm.
    const late = new Set([50, 80, 110]);
    // A 60 ms target, so that dropping one frame does not also run the buffer dry (that fades out and in).
    const options = { targetMs: 60, maxMs: 120 };
    const { out, buffer, delays } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 3, lagOf: (k) => (late.has(k) ? 0.3 : 0.04), options });
    expect(buffer.stats.drops).toBe(3);
    expect(buffer.stats.dropped).toBe(3 * 960);
    expect(buffer.stats.underruns).toBe(0);
    // The steady 40 ms lag is not "late": those frames play, 40 ms later than they would.
    expect(buffer.stats.played).toBeGreaterThan(140 * 960);
    expect(Math.max(...delays)).toBeLessThanOrEqual(120 + 40);
    // Joined with a 2.7 ms ramp: a bend no sharper than the sine's own slope (0.029 a sample),
    // where a step between two phases of it would be up to 1.0.
    const start = firstSound(out) + 130;
    expect(roughness(out, start, start + 2.5 * OUT)).toBeLessThan(0.04);
  });

});

describe("gaps", () => {
  test("when the sender stops, the sound fades out instead of stepping to silence, then plays again after a new start", () => {
    const first = sineFrames(440, 48000, 2, 20, 25);
    const frames = [...first, ...sineFrames(440, 48000, 2, 20, 25)];
    const arrivalOf = (k: number) => (k < 25 ? k * 0.02 : 1 + (k - 25) * 0.02);
    const { out, buffer } = play(frames, { rate: 48000, channels: 2, frameMs: 20, seconds: 2, arrivalOf });
    expect(buffer.stats.underruns).toBe(2);
    // No jump anywhere bigger than the sine's own slope would allow.
    let worst = 0;
    for (let i = 1; i < out.length; i++) worst = Math.max(worst, Math.abs(out[i]! - out[i - 1]!));
    expect(worst).toBeLessThan(((2 * Math.PI * 440) / OUT) * 0.5 * 1.2);
    // Every sample was played (give or take the rate correction's 0.4%).
    expect(Math.abs(buffer.stats.played - 50 * 960)).toBeLessThan(50 * 960 * 0.004);
  });
});
