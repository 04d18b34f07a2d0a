/**
 * The AudioWorklet on the person's microphone (docs/web.md, "Voice"): it measures the level
 * every 20 ms (the page's voice-activity detection, which keeps running in a background tab,
 * unlike timers), and while capture is on it cuts the first channel into 20 ms frames of
 * signed 16-bit PCM at the context's rate, for the bots that listen (docs/audio.md). Built by
 * web/build.ts as an asset of its own.
 */
import { floatToPcm16 } from "./pcm.ts";
import type { MicMessage, MicReport } from "./worklet-messages.ts";

declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;

class MicCapture extends AudioWorkletProcessor {
  private readonly frameLength = Math.round(sampleRate / 50);
  private frame = new Float32Array(this.frameLength);
  private filled = 0;
  private sum = 0;
  private counted = 0;
  private capturing = false;
  private open = true;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<MicMessage>) => {
      const message = event.data;
      if (message.type === "capture") {
        this.capturing = message.on;
        this.filled = 0;
      } else this.open = false;
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (input) {
      for (let i = 0; i < input.length; i++) {
        const v = input[i]!;
        this.sum += v * v;
        if (this.capturing) this.frame[this.filled++] = v;
        if (++this.counted === this.frameLength) {
          this.post({ type: "level", level: Math.sqrt(this.sum / this.counted) });
          this.sum = 0;
          this.counted = 0;
        }
        if (this.filled === this.frameLength) {
          const pcm = floatToPcm16(this.frame);
          this.port.postMessage({ type: "frame", pcm: pcm.buffer, sampleRate } satisfies MicReport, [pcm.buffer]);
          this.filled = 0;
        }
      }
    }
    return this.open;
  }

  private post(report: MicReport): void {
    this.port.postMessage(report);
  }
}

registerProcessor("hearth-mic-capture", MicCapture);
