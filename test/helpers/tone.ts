/**
 * What a tone heard over the relay is: its frequency and its level, measured on the first
 * channel of 16-bit PCM frames (`bot:audio-data` payloads as a listener receives them).
 */
export interface PcmFrame {
  pcm: Uint8Array;
  sampleRate: number;
  channels: number;
}

/** The first channel's samples of the frames, joined. */
export function firstChannel(frames: PcmFrame[]): Int16Array {
  const all = Buffer.concat(frames.map((f) => Buffer.from(f.pcm)));
  const samples = new Int16Array(all.buffer, all.byteOffset, all.byteLength / 2);
  const channels = frames[0]?.channels ?? 1;
  return samples.filter((_, i) => i % channels === 0);
}

/**
 * The tone's frequency: upward zero crossings per second between the first and the last, with
 * hysteresis (±300) so that near-silence (a decoder's padding, dither) counts none. 0 for silence.
 */
export function dominantHz(frames: PcmFrame[]): number {
  const samples = firstChannel(frames);
  const crossings: number[] = [];
  let low = false;
  for (let i = 0; i < samples.length; i++) {
    if (samples[i]! < -300) low = true;
    else if (low && samples[i]! > 300) {
      crossings.push(i);
      low = false;
    }
  }
  if (crossings.length < 2) return 0;
  return ((crossings.length - 1) * frames[0]!.sampleRate) / (crossings.at(-1)! - crossings[0]!);
}

/** The root mean square of the first channel: the level. */
export function rms(frames: PcmFrame[]): number {
  const samples = firstChannel(frames);
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** Makes an audio file at `path` with ffmpeg from its sine source (stereo, 44.1 kHz unless `args` say otherwise). */
export function toneFile(path: string, { hz = 440, seconds = 0.6, args = [] as string[] } = {}): string {
  const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=${hz}:duration=${seconds}`, "-ac", "2", "-ar", "44100", ...args, path]);
  if (made.exitCode !== 0) throw new Error(`ffmpeg could not make ${path}: ${made.stderr.toString()}`);
  return path;
}
