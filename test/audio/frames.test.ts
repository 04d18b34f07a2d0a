import { describe, expect, test } from "bun:test";
import { checkFrame } from "../../src/audio/frames.ts";
import { LIMITS } from "../../src/domain/shared/limits.ts";

const bytes = (n: number) => new Uint8Array(n);

type Case = [name: string, input: { pcm: unknown; sampleRate?: unknown; channels?: unknown }, expected: string | { sampleRate: number; channels: number }];

const cases: Case[] = [
  ["20 ms 48 kHz stereo, defaults", { pcm: bytes(3840) }, { sampleRate: 48000, channels: 2 }],
  ["Buffer", { pcm: Buffer.alloc(3840) }, { sampleRate: 48000, channels: 2 }],
  ["ArrayBuffer", { pcm: new ArrayBuffer(1920) }, { sampleRate: 48000, channels: 2 }],
  ["Int16Array view", { pcm: new Int16Array(960) }, { sampleRate: 48000, channels: 2 }],
  ["mono, odd sample count", { pcm: bytes(6), channels: 1 }, { sampleRate: 48000, channels: 1 }],
  ["8 kHz mono", { pcm: bytes(320), sampleRate: 8000, channels: 1 }, { sampleRate: 8000, channels: 1 }],
  ["12 kHz", { pcm: bytes(480), sampleRate: 12000 }, { sampleRate: 12000, channels: 2 }],
  ["16 kHz", { pcm: bytes(640), sampleRate: 16000 }, { sampleRate: 16000, channels: 2 }],
  ["24 kHz", { pcm: bytes(960), sampleRate: 24000 }, { sampleRate: 24000, channels: 2 }],
  ["exactly the maximum", { pcm: bytes(LIMITS.audioFrameBytes) }, { sampleRate: 48000, channels: 2 }],
  ["one stereo sample", { pcm: bytes(4) }, { sampleRate: 48000, channels: 2 }],
  ["null sampleRate and channels take the defaults", { pcm: bytes(4), sampleRate: null, channels: null }, { sampleRate: 48000, channels: 2 }],
  ["string pcm", { pcm: "AAAA" }, "pcm: must be binary (16-bit PCM)"],
  ["array of numbers", { pcm: [0, 0, 0, 0] }, "pcm: must be binary (16-bit PCM)"],
  ["missing pcm", { pcm: undefined }, "pcm: must be binary (16-bit PCM)"],
  ["object pcm", { pcm: { type: "Buffer", data: [0, 0] } }, "pcm: must be binary (16-bit PCM)"],
  ["empty", { pcm: bytes(0) }, "pcm: must not be empty"],
  ["one byte over", { pcm: bytes(LIMITS.audioFrameBytes + 4) }, `pcm: must be at most ${LIMITS.audioFrameBytes} bytes`],
  ["odd byte count", { pcm: bytes(3841) }, "pcm: must be a whole number of 16-bit samples for 2 channel(s) (a multiple of 4 bytes)"],
  ["half a stereo sample", { pcm: bytes(6) }, "pcm: must be a whole number of 16-bit samples for 2 channel(s) (a multiple of 4 bytes)"],
  ["odd byte count, mono", { pcm: bytes(5), channels: 1 }, "pcm: must be a whole number of 16-bit samples for 1 channel(s) (a multiple of 2 bytes)"],
  ["44.1 kHz", { pcm: bytes(4), sampleRate: 44100 }, "sampleRate: must be one of 8000, 12000, 16000, 24000, 48000"],
  ["sampleRate as a string", { pcm: bytes(4), sampleRate: "48000" }, "sampleRate: must be one of 8000, 12000, 16000, 24000, 48000"],
  ["sampleRate 0", { pcm: bytes(4), sampleRate: 0 }, "sampleRate: must be one of 8000, 12000, 16000, 24000, 48000"],
  ["3 channels", { pcm: bytes(6), channels: 3 }, "channels: must be one of 1, 2"],
  ["0 channels", { pcm: bytes(4), channels: 0 }, "channels: must be one of 1, 2"],
  ["1.5 channels", { pcm: bytes(4), channels: 1.5 }, "channels: must be one of 1, 2"],
];

describe("checkFrame", () => {
  test.each(cases)("%s", (_name, input, expected) => {
    const result = checkFrame(input);
    if (typeof expected === "string") {
      expect(result).toEqual({ ok: false, error: expected });
    } else {
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.frame.sampleRate).toBe(expected.sampleRate);
      expect(result.frame.channels).toBe(expected.channels);
      // The very same bytes: nothing is copied.
      expect(result.frame.pcm).toBe(input.pcm as never);
    }
  });
});
