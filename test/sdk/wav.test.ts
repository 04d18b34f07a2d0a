/** The WAV helper: every sample format to 16-bit PCM at a rate the relay takes. */
import { expect, test } from "bun:test";
import { encodeWaveFromFloat32Channels, SampleFormat } from "@echogarden/wave-codec";
import { encodeWav, readWav, resample, tone } from "../../sdk/src/wav.ts";
import { HearthLimitError } from "../../sdk/src/index.ts";

const sine = (length: number, phase = 0) => Float32Array.from({ length }, (_, i) => 0.5 * Math.sin((i + phase) / 7));

test("16-bit PCM reads back exactly, mono and stereo", () => {
  for (const channels of [1, 2]) {
    const audio = tone({ durationMs: 100, sampleRate: 24000, channels });
    const read = readWav(encodeWav(audio));
    expect(read.sampleRate).toBe(24000);
    expect(read.channels).toBe(channels);
    expect(read.pcm).toEqual(audio.pcm);
  }
});

test("8-, 24- and 32-bit integers, floats and A-law become 16-bit samples of the same sound", () => {
  const left = sine(480);
  const right = sine(480, 3);
  for (const [bitDepth, format] of [[8, SampleFormat.PCM], [24, SampleFormat.PCM], [32, SampleFormat.PCM], [32, SampleFormat.Float], [64, SampleFormat.Float], [8, SampleFormat.Alaw]] as const) {
    const read = readWav(encodeWaveFromFloat32Channels([left, right], 48000, bitDepth, format));
    expect({ bitDepth, format, sampleRate: read.sampleRate, channels: read.channels, length: read.pcm.length }).toEqual({ bitDepth, format, sampleRate: 48000, channels: 2, length: 960 });
    // Interleaved left/right, within the format's precision (8-bit: 1/128).
    const tolerance = bitDepth === 8 ? 0.04 : 0.001;
    for (let i = 0; i < 480; i += 37) {
      expect(Math.abs(read.pcm[2 * i]! / 32768 - left[i]!)).toBeLessThan(tolerance);
      expect(Math.abs(read.pcm[2 * i + 1]! / 32768 - right[i]!)).toBeLessThan(tolerance);
    }
  }
});

test("a rate the relay does not take (44.1 kHz) is resampled to 48 kHz, or to the rate asked for", () => {
  const wav = encodeWaveFromFloat32Channels([sine(44100)], 44100);
  const read = readWav(wav);
  expect(read.sampleRate).toBe(48000);
  expect(read.pcm.length).toBe(48000);
  expect(readWav(wav, { sampleRate: 16000 }).pcm.length).toBe(16000);
  // Linear interpolation keeps a slow sine's shape.
  const slow = resample({ sampleRate: 8000, channels: 1, pcm: Int16Array.from({ length: 80 }, (_, i) => Math.round(10000 * Math.sin(i / 10))) }, 16000);
  expect(slow.pcm.length).toBe(160);
  expect(Math.abs(slow.pcm[21]! - 10000 * Math.sin(10.5 / 10))).toBeLessThan(100);
});

test("what is not a mono or stereo WAV file is refused", () => {
  expect(() => readWav(new TextEncoder().encode("not a wav file at all"))).toThrow(HearthLimitError);
  expect(() => readWav(encodeWaveFromFloat32Channels([sine(10), sine(10), sine(10)], 48000))).toThrow("wav: has 3 channels; voice takes mono or stereo");
});
