/**
 * PCM as Hearth's audio relay carries it (docs/audio.md): signed 16-bit little-endian samples,
 * interleaved, mono or stereo, at one of the Opus rates, in frames of at most
 * LIMITS.audioFrameBytes. Shared by the voice helper and the WAV reader.
 */
import { HearthLimitError } from "./errors.js";
import { CHANNEL_COUNTS, DEFAULT_CHANNELS, DEFAULT_SAMPLE_RATE, LIMITS, SAMPLE_RATES } from "./generated/constants.js";

export { CHANNEL_COUNTS, DEFAULT_CHANNELS, DEFAULT_SAMPLE_RATE, SAMPLE_RATES };

export type SampleRate = (typeof SAMPLE_RATES)[number];
export type ChannelCount = (typeof CHANNEL_COUNTS)[number];

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/** Decoded audio in memory: what `readWav` returns and what `play()` takes. */
export interface PcmAudio extends PcmFormat {
  /** Interleaved 16-bit samples. */
  pcm: Int16Array;
}

/** Bytes of PCM as they come: a Node Buffer, any typed array, an ArrayBuffer. */
export type PcmChunk = ArrayBuffer | ArrayBufferView;

export const BYTES_PER_SAMPLE = 2;

/** Throws unless the relay accepts this format. */
export function checkFormat(format: PcmFormat): void {
  if (!(SAMPLE_RATES as readonly number[]).includes(format.sampleRate)) throw new HearthLimitError("sampleRate", `must be one of ${SAMPLE_RATES.join(", ")}`);
  if (!(CHANNEL_COUNTS as readonly number[]).includes(format.channels)) throw new HearthLimitError("channels", `must be one of ${CHANNEL_COUNTS.join(", ")}`);
}

/** Bytes in `frameMs` of audio, checked against the relay's frame limit. */
export function frameBytes(format: PcmFormat, frameMs: number): number {
  checkFormat(format);
  const samples = (format.sampleRate * frameMs) / 1000;
  if (!Number.isInteger(samples) || samples <= 0) throw new HearthLimitError("frameMs", `${frameMs} ms is not a whole number of samples at ${format.sampleRate} Hz`);
  const bytes = samples * format.channels * BYTES_PER_SAMPLE;
  if (bytes > LIMITS.audioFrameBytes) throw new HearthLimitError("frameMs", `a ${frameMs} ms frame is ${bytes} bytes; the relay takes at most ${LIMITS.audioFrameBytes}`);
  return bytes;
}

/** Milliseconds of audio in `bytes` of this format. */
export function durationMs(bytes: number, format: PcmFormat): number {
  return (bytes / (format.channels * BYTES_PER_SAMPLE) / format.sampleRate) * 1000;
}

/** A byte view of any chunk, without copying. */
export function bytesOf(chunk: PcmChunk): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return new Uint8Array(chunk);
}

/** 16-bit samples of a chunk: a view when aligned, else a copy (a Node Buffer may start at an odd offset). */
export function samplesOf(chunk: PcmChunk): Int16Array {
  if (chunk instanceof Int16Array) return chunk;
  const bytes = bytesOf(chunk);
  const whole = bytes.byteLength - (bytes.byteLength % 2);
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, whole / 2);
  return new Int16Array(bytes.slice(0, whole).buffer);
}

/**
 * Cuts any sequence of chunks into frames of exactly `size` bytes (the last one may be
 * shorter, cut to whole samples of every channel). In-memory chunks are cut without copying.
 */
export async function* frames(chunks: AsyncIterable<PcmChunk> | Iterable<PcmChunk>, size: number, channels: number): AsyncGenerator<Uint8Array> {
  const sampleFrame = channels * BYTES_PER_SAMPLE;
  let pending: Uint8Array | null = null;
  for await (const chunk of chunks) {
    let bytes = bytesOf(chunk);
    if (pending) {
      const joined: Uint8Array = new Uint8Array(pending.byteLength + bytes.byteLength);
      joined.set(pending);
      joined.set(bytes, pending.byteLength);
      bytes = joined;
      pending = null;
    }
    let offset = 0;
    for (; offset + size <= bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
    if (offset < bytes.byteLength) pending = bytes.slice(offset);
  }
  if (pending) {
    const whole = pending.byteLength - (pending.byteLength % sampleFrame);
    if (whole > 0) yield pending.subarray(0, whole);
  }
}

/** Joins received frames (all of one format) into one piece of audio. */
export function joinFrames(list: readonly (PcmFormat & { pcm: PcmChunk })[]): PcmAudio {
  const first = list[0];
  if (!first) return { sampleRate: DEFAULT_SAMPLE_RATE, channels: DEFAULT_CHANNELS, pcm: new Int16Array(0) };
  let length = 0;
  for (const frame of list) {
    if (frame.sampleRate !== first.sampleRate || frame.channels !== first.channels) throw new HearthLimitError("frames", "must all have one sample rate and channel count");
    length += samplesOf(frame.pcm).length;
  }
  const pcm = new Int16Array(length);
  let at = 0;
  for (const frame of list) {
    const samples = samplesOf(frame.pcm);
    pcm.set(samples, at);
    at += samples.length;
  }
  return { sampleRate: first.sampleRate, channels: first.channels, pcm };
}

/**
 * Converts 16-bit audio to another rate by linear interpolation (for a WAV at 44.1 kHz, which
 * the relay does not take). Plain and quick; fine for speech and effects, audibly softer on
 * high frequencies than a band-limited resampler.
 */
export function resample(audio: PcmAudio, sampleRate: number): PcmAudio {
  if (audio.sampleRate === sampleRate) return audio;
  const { channels } = audio;
  const inFrames = audio.pcm.length / channels;
  const outFrames = Math.max(0, Math.round((inFrames * sampleRate) / audio.sampleRate));
  const pcm = new Int16Array(outFrames * channels);
  const step = audio.sampleRate / sampleRate;
  for (let i = 0; i < outFrames; i++) {
    const position = i * step;
    const left = Math.min(Math.floor(position), inFrames - 1);
    const right = Math.min(left + 1, inFrames - 1);
    const t = position - left;
    for (let c = 0; c < channels; c++) {
      const a = audio.pcm[left * channels + c]!;
      const b = audio.pcm[right * channels + c]!;
      pcm[i * channels + c] = Math.round(a + (b - a) * t);
    }
  }
  return { sampleRate, channels, pcm };
}
