import { LIMITS } from "../domain/shared/limits.ts";
/**
 * Validation of one `bot:audio-data` frame, pure: no Socket.IO and no rules about who may
 * speak (that is the relay's job). The bytes are only inspected, never copied or re-encoded,
 * so the frame that passes is forwarded exactly as it arrived.
 */

/** Sample rates a frame may declare (the Opus family); 48 kHz when omitted. */
export const SAMPLE_RATES = [8000, 12000, 16000, 24000, 48000] as const;
export const DEFAULT_SAMPLE_RATE = 48000;

/** Mono or stereo; stereo when omitted. */
export const CHANNEL_COUNTS = [1, 2] as const;
export const DEFAULT_CHANNELS = 2;

/** Signed 16-bit little-endian PCM. */
export const BYTES_PER_SAMPLE = 2;


/** Binary as Socket.IO delivers an attachment: a Buffer (a Uint8Array), another view, or an ArrayBuffer. */
type Pcm = Uint8Array | ArrayBufferView | ArrayBuffer;

export interface AudioFrame {
  pcm: Pcm;
  sampleRate: number;
  channels: number;
}

type FrameCheck = { ok: true; frame: AudioFrame } | { ok: false; error: string };

const isBinary = (value: unknown): value is Pcm => value instanceof ArrayBuffer || ArrayBuffer.isView(value);

/** Checks `{pcm, sampleRate?, channels?}` and fills in the defaults; the `pcm` in the result is the same object. */
export function checkFrame(input: { pcm: unknown; sampleRate?: unknown; channels?: unknown }): FrameCheck {
  const { pcm } = input;
  const sampleRate = input.sampleRate ?? DEFAULT_SAMPLE_RATE;
  const channels = input.channels ?? DEFAULT_CHANNELS;
  if (!(SAMPLE_RATES as readonly unknown[]).includes(sampleRate)) {
    return { ok: false, error: `sampleRate: must be one of ${SAMPLE_RATES.join(", ")}` };
  }
  if (!(CHANNEL_COUNTS as readonly unknown[]).includes(channels)) {
    return { ok: false, error: `channels: must be one of ${CHANNEL_COUNTS.join(", ")}` };
  }
  if (!isBinary(pcm)) return { ok: false, error: "pcm: must be binary (16-bit PCM)" };
  const bytes = pcm.byteLength;
  if (bytes === 0) return { ok: false, error: "pcm: must not be empty" };
  // One cap for every format keeps the rule simple (LIMITS.audioFrameBytes: Opus's longest frame
  // at the highest rate and channel count); a 20 ms 48 kHz stereo frame is 3840 bytes.
  if (bytes > LIMITS.audioFrameBytes) return { ok: false, error: `pcm: must be at most ${LIMITS.audioFrameBytes} bytes` };
  const frameBytes = BYTES_PER_SAMPLE * (channels as number);
  if (bytes % frameBytes !== 0) {
    return { ok: false, error: `pcm: must be a whole number of 16-bit samples for ${channels} channel(s) (a multiple of ${frameBytes} bytes)` };
  }
  return { ok: true, frame: { pcm, sampleRate: sampleRate as number, channels: channels as number } };
}

/**
 * The text half of a binary Socket.IO event whose one attachment is `pcm`, as the native relays
 * write it themselves: Engine.IO message `4`, binary event `5`, one attachment `1-`, then the
 * event and its payload with `pcm` as placeholder 0. A standard client pairs it with the binary
 * websocket message sent right after it.
 */
export const pcmEventHeader = (event: string, fields: Record<string, unknown>): string =>
  "451-" + JSON.stringify([event, { pcm: { _placeholder: true, num: 0 }, ...fields }]);
