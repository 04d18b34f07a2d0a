/**
 * The playback buffer of one remote PCM speaker (a bot's `bot:audio-data` frames), pure: the
 * AudioWorklet (pcm-player.worklet.ts) runs it on the audio thread, and the unit tests run it
 * as it is. Frames of 16-bit PCM at any allowed rate and channel count go in; the output
 * device's rate comes out, in 128-sample render quanta (docs/web.md, "Voice").
 *
 * - Resampling is linear, carried across frames (the last sample and the fractional position
 *   are kept), so consecutive frames join without a step: no click at frame boundaries.
 * - A small jitter buffer: playback starts once `target` audio is buffered (30 ms, or 1.5
 *   frames when frames are longer), and a gentle rate correction (at most 0.4%) keeps the
 *   average buffered audio there, so sender and sound-card clocks drifting apart cost
 *   neither gaps nor growing delay.
 * - Late audio is dropped, not played late: past `max` buffered (80 ms, or target + two
 *   frames), the oldest audio is skipped down to the target, with a short crossfade. This is
 *   what happens when a stalled tab (or a suspended audio context) catches up. And a frame
 *   that reaches the buffer more than `max` older than the frames usually are (the audio
 *   thread fell behind and rendered ahead before reading its messages) is dropped whole; the
 *   next one fades in from where the sound was.
 * - An underrun (the sender stopped, or a frame is late) fades out over 2.7 ms instead of
 *   stopping dead, waits for the target again, then fades in.
 */

export interface JitterOptions {
  /** Average buffered audio aimed at, in ms (raised to 1.5 frames for long frames). */
  targetMs?: number;
  /** Buffered audio past which the oldest is dropped, in ms (raised to target + 2 frames). */
  maxMs?: number;
}

export interface JitterStats {
  /** Frames pushed. */
  frames: number;
  /** Output samples (per channel) of real audio played. */
  played: number;
  /** Output samples (per channel) dropped because they were late. */
  dropped: number;
  /** Times late audio was dropped. */
  drops: number;
  /** Times playback ran dry. */
  underruns: number;
}

const DEFAULT_TARGET_MS = 30;
const DEFAULT_MAX_MS = 80;
/** Samples of fade at an underrun, a resume and a drop (about 2.7 ms at 48 kHz). */
const FADE = 128;
/** At most this much faster or slower than nominal, to follow clock drift. */
const MAX_RATE_CORRECTION = 0.004;
/** Latency marks kept at most (one per frame not yet played). */
const MAX_MARKS = 256;
/** Frames whose age at arrival sets the usual age (the least of them). */
const AGE_WINDOW = 50;

export class JitterBuffer {
  readonly stats: JitterStats = { frames: 0, played: 0, dropped: 0, drops: 0, underruns: 0 };
  private readonly capacity: number;
  private readonly left: Float32Array;
  private readonly right: Float32Array;
  /** Absolute sample counts: `write - read` is what is buffered. */
  private read = 0;
  private write = 0;
  private playing = false;
  private fadeIn = 0;
  private fadeOut = 0;
  private tailL = 0;
  private tailR = 0;
  // The resampler's state, carried from frame to frame.
  private inRate = 0;
  private primed = false;
  private pos = 0;
  private lastL = 0;
  private lastR = 0;
  /** Buffered samples, smoothed over ~0.3 s, for the rate correction. */
  private smoothed = 0;
  private frameSamples = 0;
  /** Output index of each frame's first sample, with the frame's arrival time. */
  private marks: { at: number; arrival: number }[] = [];
  private delays: number[] = [];
  /** How old the last frames were when they reached the buffer (seconds), and the next slot. */
  private readonly ages = new Float64Array(AGE_WINDOW).fill(Infinity);
  private ageSlot = 0;
  /** Samples of the next frame still to fade in from `lastL`/`lastR` (after a dropped frame). */
  private rampIn = 0;

  constructor(
    readonly outputRate: number,
    private readonly options: JitterOptions = {},
  ) {
    // Three seconds: far above `max` for every frame a sender may use (the longest, 720 ms of
    // 8 kHz mono, makes the target 1.08 s).
    this.capacity = Math.ceil(outputRate * 3);
    this.left = new Float32Array(this.capacity);
    this.right = new Float32Array(this.capacity);
  }

  /** Output samples buffered now. */
  get buffered(): number {
    return this.write - this.read;
  }

  get bufferedMs(): number {
    return (this.buffered / this.outputRate) * 1000;
  }

  /** The target in output samples: the configured target, at least 1.5 frames. */
  get target(): number {
    const ms = this.options.targetMs ?? DEFAULT_TARGET_MS;
    return Math.max(Math.round((ms / 1000) * this.outputRate), Math.round(this.frameSamples * 1.5));
  }

  /** Past this many buffered output samples, late audio is dropped. */
  get max(): number {
    const ms = this.options.maxMs ?? DEFAULT_MAX_MS;
    const max = Math.max(Math.round((ms / 1000) * this.outputRate), this.target + 2 * this.frameSamples);
    return Math.min(max, this.capacity - this.frameSamples);
  }

  /** Playback delays measured since the last call (ms from a frame's arrival to its first sample's output). */
  takeDelays(): number[] {
    const out = this.delays;
    this.delays = [];
    return out;
  }

  /**
   * Adds a frame: interleaved signed 16-bit samples, `channels` of them per instant, at
   * `sampleRate`. `arrival` (seconds on the output clock, when the page got the frame) lets
   * the delay be measured; with `now` (the output clock as the frame reaches the buffer) a
   * frame far older than usual is dropped.
   */
  push(pcm: Int16Array, channels: number, sampleRate: number, arrival = -1, now = -1): void {
    const n = Math.floor(pcm.length / channels);
    if (n === 0) return;
    this.stats.frames++;
    if (sampleRate !== this.inRate) {
      this.inRate = sampleRate;
      this.primed = false;
    }
    this.frameSamples = Math.round((n * this.outputRate) / sampleRate);
    if (arrival >= 0 && now >= 0 && this.late(now - arrival)) {
      this.stats.dropped += this.frameSamples;
      this.stats.drops++;
      this.primed = false;
      this.rampIn = FADE;
      return;
    }
    if (arrival >= 0) {
      if (this.marks.length >= MAX_MARKS) this.marks.shift();
      this.marks.push({ at: this.write, arrival });
    }
    const correction = Math.max(-MAX_RATE_CORRECTION, Math.min(MAX_RATE_CORRECTION, ((this.smoothed - this.target) / this.target) * 0.01));
    const step = (sampleRate / this.outputRate) * (1 + (this.playing ? correction : 0));
    const scale = 1 / 32768;
    const second = channels > 1 ? 1 : 0;
    if (!this.primed) {
      this.pos = 0;
      this.primed = true;
    }
    let pos = this.pos;
    const cap = this.capacity;
    // Positions in [-1, 0) fall between the previous frame's last sample and this one's first.
    while (pos < n - 1) {
      const i = Math.floor(pos);
      const f = pos - i;
      let aL: number, aR: number;
      if (i < 0) {
        aL = this.lastL;
        aR = this.lastR;
      } else {
        aL = pcm[i * channels]! * scale;
        aR = pcm[i * channels + second]! * scale;
      }
      const bL = pcm[(i + 1) * channels]! * scale;
      const bR = pcm[(i + 1) * channels + second]! * scale;
      const at = this.write % cap;
      let l = aL + (bL - aL) * f;
      let r = aR + (bR - aR) * f;
      if (this.rampIn > 0) {
        // After a dropped frame: from the last sound to the new one, not a step.
        const w = 1 - this.rampIn / FADE;
        l = this.lastL + (l - this.lastL) * w;
        r = this.lastR + (r - this.lastR) * w;
        this.rampIn--;
      }
      this.left[at] = l;
      this.right[at] = r;
      this.write++;
      pos += step;
    }
    this.rampIn = 0;
    this.lastL = pcm[(n - 1) * channels]! * scale;
    this.lastR = pcm[(n - 1) * channels + second]! * scale;
    this.pos = pos - n;
    if (this.buffered > cap) this.skipTo(this.write - this.target, false);
    else if (this.buffered > this.max) this.skipTo(this.write - this.target, true);
  }

  /**
   * Fills one render quantum. `right` may be null (mono output). `now` is the output time of
   * the quantum's first sample, in seconds. Returns the quantum's RMS level.
   */
  pull(left: Float32Array, right: Float32Array | null, now = 0): number {
    const m = left.length;
    this.smoothed += (this.buffered - this.smoothed) * 0.01;
    if (!this.playing && this.fadeOut === 0 && this.buffered >= this.target) {
      this.playing = true;
      this.fadeIn = FADE;
    }
    const start = this.read;
    const cap = this.capacity;
    let sum = 0;
    for (let j = 0; j < m; j++) {
      let l = 0;
      let r = 0;
      if (this.playing && this.read < this.write) {
        const at = this.read % cap;
        l = this.left[at]!;
        r = this.right[at]!;
        if (this.fadeIn > 0) {
          const gain = 1 - this.fadeIn / FADE;
          l *= gain;
          r *= gain;
          this.fadeIn--;
        }
        this.read++;
        this.stats.played++;
        this.tailL = l;
        this.tailR = r;
      } else {
        if (this.playing) {
          // Ran dry: fade the last sample out rather than stepping to silence.
          this.playing = false;
          this.stats.underruns++;
          this.fadeOut = FADE;
        }
        if (this.fadeOut > 0) {
          const gain = this.fadeOut / FADE;
          l = this.tailL * gain;
          r = this.tailR * gain;
          this.fadeOut--;
        }
      }
      left[j] = l;
      if (right) right[j] = r;
      sum += l * l + r * r;
    }
    while (this.marks.length > 0 && this.marks[0]!.at < this.read) {
      const mark = this.marks.shift()!;
      if (mark.at >= start) this.delays.push((now + (mark.at - start) / this.outputRate - mark.arrival) * 1000);
    }
    return Math.sqrt(sum / (2 * m));
  }

  /**
   * Whether a frame `age` seconds old on arrival is late: more than `max` older than the
   * youngest of the last frames (so a steady lag of the audio thread is the norm, not late).
   */
  private late(age: number): boolean {
    this.ages[this.ageSlot] = age;
    this.ageSlot = (this.ageSlot + 1) % AGE_WINDOW;
    let usual = Infinity;
    for (const a of this.ages) if (a < usual) usual = a;
    return age - usual > this.max / this.outputRate;
  }

  /** Drops everything before `to` (late audio), crossfading from where playback was. */
  private skipTo(to: number, crossfade: boolean): void {
    if (to <= this.read) return;
    const cap = this.capacity;
    if (crossfade && this.playing) {
      const span = Math.min(FADE, this.write - to);
      for (let k = 0; k < span; k++) {
        const w = (k + 1) / (span + 1);
        const from = (this.read + k) % cap;
        const into = (to + k) % cap;
        this.left[into] = this.left[from]! * (1 - w) + this.left[into]! * w;
        this.right[into] = this.right[from]! * (1 - w) + this.right[into]! * w;
      }
    }
    this.stats.dropped += to - this.read;
    this.stats.drops++;
    this.read = to;
    this.smoothed = this.buffered;
    while (this.marks.length > 0 && this.marks[0]!.at < this.read) this.marks.shift();
  }
}
