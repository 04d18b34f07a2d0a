/**
 * The page's audio graph (docs/web.md, "Voice"): one AudioContext at 48 kHz, and per speaker
 * (a bot's PCM frames, or a person's WebRTC stream) a source, a gain (their volume), an
 * analyser (their level and strongest frequency) and the master gain (deafen). Bot frames
 * are played by the `pcm-player` worklet; the microphone goes through the `mic-capture`
 * worklet. The context starts on a click (browsers allow sound after a gesture).
 */
import { signal } from "@preact/signals";
import type { MicMessage, MicReport, PlayerMessage, PlayerReport } from "./worklet-messages.ts";
import { workletUrl } from "./worklets.ts";
import { sameMembers, speakingNow, type VoiceActivity } from "./speaking.ts";

/** The relay's best rate; the microphone is captured at it, and bot frames at it need no resampling. */
const CONTEXT_RATE = 48000;
/** Delays kept per speaker for the diagnostics (the latency bench reads them). */
const DELAYS_KEPT = 4000;

interface SpeakerDiagnostics {
  kind: "frames" | "stream";
  volume: number;
  level: number;
  /** The analyser's strongest frequency, in Hz (null when silent). */
  dominantHz: number | null;
  /** Frames only: the player's counters and its arrival-to-output delays in ms. */
  frames?: number;
  played?: number;
  dropped?: number;
  drops?: number;
  underruns?: number;
  bufferedMs?: number;
  delays?: number[];
  /** Frames only: when the last frames reached the page (performance.now(), ms). */
  arrivals?: number[];
}

class Speaker {
  readonly gain: GainNode;
  readonly analyser: AnalyserNode;
  player: AudioWorkletNode | null = null;
  stream: { source: MediaStreamAudioSourceNode; element: HTMLAudioElement } | null = null;
  report: PlayerReport | null = null;
  delays: number[] = [];
  /** Main-thread arrival times of the last frames (performance.now(), ms). */
  arrivals: number[] = [];
  private readonly samples: Float32Array<ArrayBuffer>;

  constructor(
    private readonly ctx: AudioContext,
    destination: AudioNode,
    volume: number,
  ) {
    this.gain = new GainNode(ctx, { gain: volume });
    this.analyser = new AnalyserNode(ctx, { fftSize: 2048, smoothingTimeConstant: 0.5 });
    this.samples = new Float32Array(this.analyser.fftSize);
    this.gain.connect(this.analyser).connect(destination);
  }

  /** The level after the speaker's volume. */
  level(): number {
    if (this.player && this.report) return this.report.level * this.gain.gain.value;
    this.analyser.getFloatTimeDomainData(this.samples);
    let sum = 0;
    for (const v of this.samples) sum += v * v;
    return Math.sqrt(sum / this.samples.length);
  }

  dominantHz(): number | null {
    const bins = new Float32Array(this.analyser.frequencyBinCount);
    this.analyser.getFloatFrequencyData(bins);
    let best = 1;
    for (let i = 2; i < bins.length; i++) if (bins[i]! > bins[best]!) best = i;
    if (!(bins[best]! > -90)) return null;
    return (best * this.ctx.sampleRate) / this.analyser.fftSize;
  }

  close(): void {
    this.player?.port.postMessage({ type: "close" } satisfies PlayerMessage);
    this.player?.disconnect();
    if (this.stream) {
      this.stream.source.disconnect();
      this.stream.element.srcObject = null;
    }
    this.gain.disconnect();
    this.analyser.disconnect();
  }
}

/** The microphone's path through the graph. */
export interface MicPipe {
  /** Starts or stops cutting PCM frames (for listening bots). */
  capture(on: boolean): void;
  close(): void;
}

export class AudioEngine {
  private ctx: AudioContext | null = null;
  private loading: Promise<AudioContext> | null = null;
  private master: GainNode | null = null;
  private readonly speakers = new Map<string, Speaker>();
  private readonly volumes = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The speakers speaking now, from their levels read ten times a second while any speaker exists (web/audio/speaking.ts: a threshold and a hangover). */
  readonly speaking = signal<ReadonlySet<string>>(new Set());
  /** Each heard speaker's voice activity, for `speaking`. */
  private readonly activity = new Map<string, VoiceActivity>();
  private deafened = false;
  /** Soundboard sounds played (decoded and started). */
  private soundsPlayed = 0;

  /** Creates (or resumes) the context and loads the worklets. Call it from a click. */
  start(): Promise<AudioContext> {
    if (this.ctx) {
      if (this.ctx.state === "suspended") void this.ctx.resume();
      return this.loading!;
    }
    const ctx = new AudioContext({ sampleRate: CONTEXT_RATE, latencyHint: "interactive" });
    this.ctx = ctx;
    this.master = new GainNode(ctx, { gain: this.deafened ? 0 : 1 });
    this.master.connect(ctx.destination);
    if (ctx.state === "suspended") void ctx.resume();
    this.loading = Promise.all([ctx.audioWorklet.addModule(workletUrl("pcm-player")), ctx.audioWorklet.addModule(workletUrl("mic-capture"))]).then(() => ctx);
    return this.loading;
  }

  get context(): AudioContext | null {
    return this.ctx;
  }

  /** Deafened: nothing is heard (the master gain is 0). */
  setDeafened(on: boolean): void {
    this.deafened = on;
    if (this.master && this.ctx) this.master.gain.setTargetAtTime(on ? 0 : 1, this.ctx.currentTime, 0.01);
  }

  private speaker(id: string): Speaker | null {
    if (!this.ctx || !this.master) return null;
    let speaker = this.speakers.get(id);
    if (!speaker) {
      speaker = new Speaker(this.ctx, this.master, this.volumes.get(id) ?? 1);
      this.speakers.set(id, speaker);
      this.watchLevels();
    }
    return speaker;
  }

  /** One `bot:audio-data` frame from `id`: transferred to its player worklet at once. */
  playFrame(id: string, pcm: ArrayBuffer, sampleRate: number, channels: number): void {
    const ctx = this.ctx;
    if (!ctx || ctx.state !== "running") return;
    const speaker = this.speaker(id);
    if (!speaker) return;
    if (!speaker.player) {
      speaker.player = new AudioWorkletNode(ctx, "hearth-pcm-player", { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [2] });
      speaker.player.port.onmessage = (event: MessageEvent<PlayerReport>) => {
        speaker.report = event.data;
        if (event.data.delays.length > 0) speaker.delays = speaker.delays.concat(event.data.delays).slice(-DELAYS_KEPT);
      };
      speaker.player.connect(speaker.gain);
    }
    speaker.arrivals.push(performance.now());
    if (speaker.arrivals.length > 500) speaker.arrivals.splice(0, 100);
    const message: PlayerMessage = { type: "frame", pcm, channels, sampleRate, arrival: ctx.currentTime };
    speaker.player.port.postMessage(message, [pcm]);
  }

  /** A person's audio over WebRTC. */
  attachStream(id: string, stream: MediaStream): void {
    const speaker = this.speaker(id);
    if (!speaker || !this.ctx) return;
    if (speaker.stream) {
      speaker.stream.source.disconnect();
      speaker.stream.element.srcObject = null;
    }
    // Chromium passes a remote WebRTC stream to Web Audio only while a media element plays it
    // too; the element is muted, so the sound is heard once, through the graph.
    const element = new Audio();
    element.muted = true;
    element.srcObject = stream;
    void element.play().catch(() => {});
    const source = this.ctx.createMediaStreamSource(stream);
    source.connect(speaker.gain);
    speaker.stream = { source, element };
  }

  detach(id: string): void {
    this.speakers.get(id)?.close();
    this.speakers.delete(id);
    if (this.speakers.size === 0) this.stopWatching();
  }

  /** The speakers heard now (bots' players and people's streams), by id. */
  speakerIds(): string[] {
    return [...this.speakers.keys()];
  }

  volume(id: string): number {
    return this.volumes.get(id) ?? 1;
  }

  /** A speaker's volume, 0-2 (remembered for when they speak again). */
  setVolume(id: string, volume: number): void {
    this.volumes.set(id, volume);
    const speaker = this.speakers.get(id);
    if (speaker && this.ctx) speaker.gain.gain.setTargetAtTime(volume, this.ctx.currentTime, 0.01);
  }

  /** The microphone through the capture worklet: its level every 20 ms, PCM frames while capturing. */
  async microphone(stream: MediaStream, onReport: (report: MicReport) => void): Promise<MicPipe> {
    const ctx = await this.start();
    const source = ctx.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(ctx, "hearth-mic-capture", { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
    node.port.onmessage = (event: MessageEvent<MicReport>) => onReport(event.data);
    // The worklet's output is silent and unheard; connecting it keeps it processing.
    const sink = new GainNode(ctx, { gain: 0 });
    source.connect(node).connect(sink).connect(ctx.destination);
    return {
      capture: (on) => node.port.postMessage({ type: "capture", on } satisfies MicMessage),
      close: () => {
        node.port.postMessage({ type: "close" } satisfies MicMessage);
        source.disconnect();
        node.disconnect();
        sink.disconnect();
      },
    };
  }

  /** Plays a soundboard sound (fetched from this origin) for this page. */
  async playSound(url: string): Promise<void> {
    const ctx = this.ctx;
    if (!ctx || !this.master) return;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`The sound could not be loaded (${response.status})`);
    const buffer = await ctx.decodeAudioData(await response.arrayBuffer());
    const source = new AudioBufferSourceNode(ctx, { buffer });
    source.connect(this.master);
    source.start();
    this.soundsPlayed++;
  }

  /** A soft two-tone ring, repeated until stopped (an incoming call). Silent if audio is not allowed yet. */
  ring(): () => void {
    const ctx = this.ctx ?? (this.start(), this.ctx);
    if (!ctx || !this.master) return () => {};
    const gain = new GainNode(ctx, { gain: 0 });
    gain.connect(this.master);
    const tones = [440, 480].map((frequency) => {
      const osc = new OscillatorNode(ctx, { frequency });
      osc.connect(gain);
      osc.start();
      return osc;
    });
    const t0 = ctx.currentTime;
    for (let i = 0; i < 30; i++) {
      gain.gain.setTargetAtTime(0.08, t0 + i * 3, 0.02);
      gain.gain.setTargetAtTime(0, t0 + i * 3 + 1.2, 0.02);
    }
    return () => {
      for (const osc of tones) osc.stop();
      gain.disconnect();
    };
  }

  /** Stops everything heard and suspends the context (leaving voice). */
  stop(): void {
    for (const id of [...this.speakers.keys()]) this.detach(id);
    if (this.ctx?.state === "running") void this.ctx.suspend();
  }

  private watchLevels(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const levels = new Map<string, number>();
      for (const [id, speaker] of this.speakers) levels.set(id, speaker.level());
      const speaking = speakingNow(levels, this.activity, performance.now());
      if (!sameMembers(speaking, this.speaking.value)) this.speaking.value = speaking;
    }, 100);
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.activity.clear();
    if (this.speaking.value.size > 0) this.speaking.value = new Set();
  }

  /** What tests, the latency bench and a curious developer read (window.hearthVoice). */
  diagnostics(): { state: string; sampleRate: number; baseLatency: number; soundsPlayed: number; speakers: Record<string, SpeakerDiagnostics> } {
    const speakers: Record<string, SpeakerDiagnostics> = {};
    for (const [id, speaker] of this.speakers) {
      const entry: SpeakerDiagnostics = { kind: speaker.player ? "frames" : "stream", volume: this.volume(id), level: speaker.level(), dominantHz: speaker.dominantHz() };
      if (speaker.report) {
        const { frames, played, dropped, drops, underruns, bufferedMs } = speaker.report;
        Object.assign(entry, { frames, played, dropped, drops, underruns, bufferedMs, delays: speaker.delays, arrivals: speaker.arrivals });
      }
      speakers[id] = entry;
    }
    return { state: this.ctx?.state ?? "none", sampleRate: this.ctx?.sampleRate ?? 0, baseLatency: this.ctx?.baseLatency ?? 0, soundsPlayed: this.soundsPlayed, speakers };
  }
}
