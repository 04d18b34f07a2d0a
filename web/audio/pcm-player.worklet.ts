/**
 * The AudioWorklet that plays one remote speaker's PCM frames (docs/web.md, "Voice"): the page
 * posts each `bot:audio-data` frame here as it arrives (the bytes are transferred, not copied);
 * the jitter buffer resamples it to the output rate and plays it. Every ~100 ms it posts its
 * counters, its level and the delays it measured. Built by web/build.ts as an asset of its own.
 */
import { JitterBuffer } from "./jitter-buffer.ts";
import type { PlayerMessage, PlayerReport } from "./worklet-messages.ts";

// The AudioWorkletGlobalScope, which lib.dom does not describe (module-scoped here).
declare const sampleRate: number;
declare const currentTime: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;

/** Quanta between reports: 37 x 128 samples is ~100 ms at 48 kHz. */
const REPORT_EVERY = 37;

class PcmPlayer extends AudioWorkletProcessor {
  private readonly buffer = new JitterBuffer(sampleRate);
  private quanta = 0;
  private level = 0;
  private open = true;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<PlayerMessage>) => {
      const message = event.data;
      if (message.type === "frame") this.buffer.push(new Int16Array(message.pcm), message.channels, message.sampleRate, message.arrival, currentTime);
      else if (message.type === "close") this.open = false;
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0];
    if (!output?.[0]) return this.open;
    const rms = this.buffer.pull(output[0], output[1] ?? null, currentTime);
    // A level that rises at once and falls over ~150 ms, for the speaking indicator.
    this.level = rms > this.level ? rms : this.level * 0.98;
    if (++this.quanta % REPORT_EVERY === 0) {
      const report: PlayerReport = { type: "report", ...this.buffer.stats, level: this.level, bufferedMs: this.buffer.bufferedMs, delays: this.buffer.takeDelays() };
      this.port.postMessage(report);
    }
    return this.open;
  }
}

registerProcessor("hearth-pcm-player", PcmPlayer);
