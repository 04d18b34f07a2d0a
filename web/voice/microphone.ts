/**
 * The person's microphone: asked for when joining (the browser's permission prompt), its
 * level and voice-activity detection from the capture worklet, the track WebRTC sends (on
 * only while transmitting), and PCM frames for the bots that listen.
 */
import { signal } from "@preact/signals";
import type { AudioEngine, MicPipe } from "../audio/audio-engine.ts";
import { VoiceActivity } from "../audio/speaking.ts";

type MicState = "off" | "asking" | "on" | "denied" | "unavailable";

export class Microphone {
  readonly state = signal<MicState>("off");
  /** The level, refreshed ~5 times a second (0-1). */
  readonly level = signal(0);
  readonly voiceDetected = signal(false);
  /** PCM frames handed to `onFrame` since opening. */
  framesSent = 0;
  /** Whether frames are wanted now (the last capture() call). */
  private capturing = false;
  private stream: MediaStream | null = null;
  /** What WebRTC sends: a clone of the microphone, enabled only while transmitting (a disabled
   *  track is silence everywhere, so the level and voice detection read the original). */
  private outgoing: MediaStreamTrack | null = null;
  private pipe: MicPipe | null = null;
  private readonly vad = new VoiceActivity();
  private levelTick = 0;
  private generation = 0;

  constructor(private readonly onFrame: (pcm: ArrayBuffer, sampleRate: number) => void) {}

  get track(): MediaStreamTrack | null {
    return this.outgoing;
  }

  /** Asks for the microphone (once per opening); the track starts disabled. */
  async open(engine: AudioEngine): Promise<MediaStreamTrack | null> {
    const generation = ++this.generation;
    if (!navigator.mediaDevices?.getUserMedia) {
      this.state.value = "unavailable";
      return null;
    }
    this.state.value = "asking";
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
      if (generation !== this.generation) {
        for (const track of stream.getTracks()) track.stop();
        return null;
      }
      this.stream = stream;
      const track = stream.getAudioTracks()[0]!.clone();
      track.enabled = false;
      this.outgoing = track;
      this.pipe = await engine.microphone(stream, (report) => {
        if (report.type === "frame") {
          // Frames the worklet cut before it heard capture(false) still cross its port: dropped
          // here, so nothing goes out after a mute is sent (the server would refuse it).
          if (!this.capturing) return;
          this.framesSent++;
          this.onFrame(report.pcm, report.sampleRate);
          return;
        }
        this.voiceDetected.value = this.vad.update(report.level, performance.now());
        if (++this.levelTick % 10 === 0) this.level.value = report.level;
      });
      this.state.value = "on";
      return track;
    } catch (error) {
      this.state.value = (error as Error)?.name === "NotAllowedError" ? "denied" : "unavailable";
      return null;
    }
  }

  /** Whether the voice goes out (WebRTC sends silence otherwise). */
  setLive(on: boolean): void {
    if (this.outgoing) this.outgoing.enabled = on;
  }

  /** Whether PCM frames are cut for the bots that listen. */
  capture(on: boolean): void {
    this.capturing = on;
    this.pipe?.capture(on);
  }

  close(): void {
    this.generation++;
    this.pipe?.close();
    this.pipe = null;
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.outgoing?.stop();
    this.stream = null;
    this.outgoing = null;
    this.state.value = "off";
    this.level.value = 0;
    this.voiceDetected.value = false;
    this.vad.active = false;
  }
}
