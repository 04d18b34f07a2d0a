/**
 * `@hearth/sdk/wav`: WAV files to and from the PCM the voice helper plays.
 *
 * Decoding is @echogarden/wave-codec (MIT, pure TypeScript, no dependencies, maintained), bundled
 * into this file when the SDK is built, so the package still depends on socket.io-client only and
 * nothing runs or downloads at install. It reads every sample format of the WAVE standard (8-,
 * 16-, 24- and 32-bit integers, 32- and 64-bit floats, A-law, mu-law, WAVE_FORMAT_EXTENSIBLE);
 * this module turns the result into 16-bit PCM at a rate the relay accepts.
 */
import { decodeWaveToBuffer, decodeWaveToFloat32Channels, encodeWaveFromBuffer, float32ChannelsToBuffer, SampleFormat } from "@echogarden/wave-codec";
import { HearthLimitError } from "./errors.js";
import { bytesOf, resample, samplesOf, SAMPLE_RATES, type PcmAudio, type PcmChunk } from "./pcm.js";

export interface ReadWavOptions {
  /**
   * The rate to convert to. Default: the file's own when the relay takes it (8, 12, 16, 24 or
   * 48 kHz), else 48 kHz (a 44.1 kHz file is resampled, see `resample`).
   */
  sampleRate?: number;
}

/** Decodes a WAV file's bytes into 16-bit PCM (mono or stereo). */
export function readWav(bytes: PcmChunk, options: ReadWavOptions = {}): PcmAudio {
  const data = bytesOf(bytes);
  let decoded: ReturnType<typeof decodeWaveToBuffer>;
  try {
    decoded = decodeWaveToBuffer(data);
  } catch (error) {
    throw new HearthLimitError("wav", `not a WAV file this reader understands (${error instanceof Error ? error.message : String(error)})`);
  }
  const { sampleRate, channelCount } = decoded;
  if (channelCount !== 1 && channelCount !== 2) throw new HearthLimitError("wav", `has ${channelCount} channels; voice takes mono or stereo`);
  let pcm: Int16Array;
  if (decoded.sampleFormat === SampleFormat.PCM && decoded.bitDepth === 16) {
    pcm = samplesOf(decoded.decodedAudioBuffer);
  } else {
    // Any other format: through 32-bit float channels, back to 16-bit interleaved.
    const { audioChannels } = decodeWaveToFloat32Channels(data);
    pcm = samplesOf(float32ChannelsToBuffer(audioChannels, 16, SampleFormat.PCM));
  }
  const audio: PcmAudio = { sampleRate, channels: channelCount, pcm };
  const target = options.sampleRate ?? ((SAMPLE_RATES as readonly number[]).includes(sampleRate) ? sampleRate : 48000);
  return resample(audio, target);
}

/** Reads and decodes a WAV file (Node and Bun). */
export async function readWavFile(path: string, options: ReadWavOptions = {}): Promise<PcmAudio> {
  // Node's own module, typed here so the package needs no @types/node.
  const { readFile } = (await import("node:fs/promises" as string)) as { readFile(path: string): Promise<Uint8Array> };
  return readWav(await readFile(path), options);
}

/** Encodes 16-bit PCM as a WAV file (what the echo bot records, a tone for a first try). */
export function encodeWav(audio: PcmAudio): Uint8Array {
  return encodeWaveFromBuffer(bytesOf(audio.pcm), audio.sampleRate, audio.channels, 16, SampleFormat.PCM);
}

/** A sine tone, for trying voice without a file at hand. */
export function tone(options: { frequency?: number; durationMs?: number; sampleRate?: number; channels?: number; volume?: number } = {}): PcmAudio {
  const { frequency = 440, durationMs = 1000, sampleRate = 48000, channels = 1, volume = 0.3 } = options;
  const frames = Math.round((sampleRate * durationMs) / 1000);
  const pcm = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const value = Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * volume * 32767);
    for (let c = 0; c < channels; c++) pcm[i * channels + c] = value;
  }
  return { sampleRate, channels, pcm };
}

export { resample, type PcmAudio };
