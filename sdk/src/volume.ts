/**
 * Volume: a gain on 16-bit samples, applied to each frame just before it is sent, so it can
 * change while playing. A change ramps linearly across one frame (20 ms) instead of jumping,
 * which would click. Samples are clipped to 16 bits; above 1 loud audio distorts, which is the
 * price of a gain (no limiter). The source's own buffers are never written: a frame with a gain
 * is a copy.
 */
import { HearthLimitError } from "./errors.js";
import { BYTES_PER_SAMPLE, samplesOf } from "./pcm.js";

/** The loudest gain (2: twice as loud, +6 dB); 0 is silence, 1 the audio as it is. */
export const MAX_VOLUME = 2;

/** A volume checked and clamped to 0..MAX_VOLUME; not a number is refused. */
export function clampVolume(volume: number): number {
  if (typeof volume !== "number" || Number.isNaN(volume)) throw new HearthLimitError("volume", `must be a number from 0 to ${MAX_VOLUME}`);
  return Math.min(MAX_VOLUME, Math.max(0, volume));
}

/**
 * `frame` (interleaved 16-bit PCM of `channels`) with a gain going from `from` at its first
 * sample to `to` at its last; the frame itself when both are 1.
 */
export function applyGain(frame: Uint8Array, channels: number, from: number, to: number): Uint8Array {
  if (from === 1 && to === 1) return frame;
  const input = samplesOf(frame);
  const output = new Int16Array(input.length);
  const sampleFrames = input.length / channels;
  const step = sampleFrames > 1 ? (to - from) / (sampleFrames - 1) : 0;
  for (let i = 0; i < sampleFrames; i++) {
    const gain = from === to ? to : from + step * i;
    for (let c = 0; c < channels; c++) {
      const at = i * channels + c;
      const value = Math.round(input[at]! * gain);
      output[at] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
    }
  }
  return new Uint8Array(output.buffer, 0, output.length * BYTES_PER_SAMPLE);
}
