/**
 * `@hearth/sdk/voice`: a bot in a voice channel (docs/voice.md, docs/audio.md).
 *
 * Sending: `play(source)` cuts the audio into frames (20 ms by default) and sends each as a
 * `bot:audio-data` when it is due. Frame n is due at start + n x frame duration on a monotonic
 * clock (`performance.now()`), so timer lateness never accumulates: a frame sent 3 ms late is
 * followed by one sent on time. If the process stalls longer than `maxLagMs`, the schedule is
 * moved forward (`resyncs`) instead of sending the backlog in a burst. Pause, resume and stop
 * work between frames; frames are dropped, not queued, while the connection is down.
 *
 * Files, URLs and encoded streams (MP3, Ogg/Opus, FLAC, WAV, ...) are decoded by ffmpeg
 * (`./ffmpeg.ts`) into PCM that goes through the same paced path; a gain (`./volume.ts`) is applied
 * to each frame as it is sent; `queue` plays one source after another (`./audio-queue.ts`).
 *
 * Receiving: the room's audio, per speaker, as async iterators of frames (`receive()`,
 * `speakers()`). Other bots' `bot:audio-data` always arrives (`kind: "bot"`). People talk over
 * WebRTC, which the server never sees: a bot hears them only after `listen()` (the gateway's
 * `voice:listen`), and then the people's pages send their microphone as PCM, which arrives as
 * `voice:audio-data` (`kind: "person"`, the person's `userId`) through the same iterators
 * (docs/audio.md, "Bots that listen"). The server forgets the opt-in whenever the bot's
 * socket leaves the room (a reconnect, a move by a moderator): the connection asks again
 * after joining again and after `voice:force-move`, for as long as the bot wants to listen.
 *
 * Losing the room (cluster mode: the node holding it died, docs/audio.md, "Several nodes"): the
 * server says so with `voice:error`; the connection joins again by itself with backoff (250 ms
 * doubling to 5 s, with jitter) for as long as the bot has not left, emits `reconnecting` before
 * each try and `reconnected` once back, and playback goes on meanwhile without sending (frames
 * due while out are dropped, so the stream continues where it would be, and the server sees no
 * storm of refused frames).
 */
import { AudioQueue } from "./audio-queue.js";
import type { Bot } from "./bot.js";
import { HearthError } from "./errors.js";
import { FfmpegDecoder, isEncodedSource, type EncodedInput, type FfmpegOptions } from "./ffmpeg.js";
import type { Gateway } from "./gateway.js";
import type * as S from "./generated/schemas.js";
import { isVoiceRoomLost, rejoinDelayMs } from "./voice-room-lost.js";
import { loadNode, nodeModules, type NodeReadable } from "./node.js";
import { bytesOf, DEFAULT_CHANNELS, DEFAULT_SAMPLE_RATE, durationMs, frameBytes, frames, samplesOf, type PcmAudio, type PcmChunk, type PcmFormat } from "./pcm.js";
import { applyGain, clampVolume } from "./volume.js";

export * from "./pcm.js";
export * from "./ffmpeg.js";
export * from "./volume.js";
export * from "./audio-queue.js";
export type { NodeReadable } from "./node.js";

/**
 * What `play()` takes: decoded audio (`readWav`), raw PCM bytes with their format, a stream of
 * PCM chunks; or, decoded by ffmpeg, a file path, an http(s) URL (a string or a `URL`) or a web
 * `ReadableStream` of encoded bytes (a `fetch()` body). A Node stream or iterable of encoded bytes
 * is decoded with `{encoded: true}` (without it, chunks are raw PCM).
 */
export type PlaySource = PcmAudio | (PcmFormat & { pcm: PcmChunk }) | AsyncIterable<PcmChunk> | Iterable<PcmChunk> | string | URL | ReadableStream<Uint8Array>;

export interface PlayOptions extends FfmpegOptions {
  /**
   * The format of a raw stream, and what ffmpeg decodes to (default 48 kHz stereo, the relay's
   * own); decoded audio carries its own.
   */
  sampleRate?: number;
  channels?: number;
  /** The source is encoded audio (a Node stream of a file's bytes, a buffer holding a file): decode it with ffmpeg. */
  encoded?: boolean;
  /** The gain (default 1; 0 to 2, see `Playback.volume`). */
  volume?: number;
  /** Frame length (default 20 ms; at most 60 ms of 48 kHz stereo, the relay's limit). */
  frameMs?: number;
  /** How far behind schedule sending may fall before the schedule moves instead (default 200 ms). */
  maxLagMs?: number;
}

export interface PlaybackStats {
  frames: number;
  bytes: number;
  /** Audio sent, in ms. */
  audioMs: number;
  /** Frames sent more than one frame late. */
  lateFrames: number;
  /** Times the schedule moved forward after a stall. */
  resyncs: number;
  /** Why it ended. */
  ended: "finished" | "stopped" | "left";
}

/** One received frame. */
export interface ReceivedFrame {
  /** The speaker's user id. */
  userId: string;
  /** `bot`: a bot's `bot:audio-data`; `person`: a person's microphone (`voice:audio-data`, heard after `listen()`). */
  kind: "bot" | "person";
  pcm: Int16Array;
  sampleRate: number;
  channels: number;
  /** `performance.now()` when it arrived. */
  receivedAt: number;
}

export interface ReceiveOptions {
  /** End the stream after this long without a frame, once a first frame came (default: never). */
  idleMs?: number;
  /** Frames kept while nobody reads; past it the oldest are dropped (default 3000: one minute of 20 ms frames). */
  maxQueued?: number;
}

const now = () => performance.now();

/** An async iterator of frames fed by the connection, bounded, ended by idleness, `close()` or leaving. */
export class FrameStream implements AsyncIterable<ReceivedFrame> {
  /** Frames dropped because nobody read them in time. */
  dropped = 0;
  private readonly queue: ReceivedFrame[] = [];
  private waiter: ((result: IteratorResult<ReceivedFrame>) => void) | null = null;
  private done = false;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly onEnd: () => void;

  constructor(
    private readonly options: ReceiveOptions,
    onEnd: () => void,
  ) {
    this.onEnd = onEnd;
  }

  /** @internal */
  push(frame: ReceivedFrame): void {
    if (this.done) return;
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = null;
      resolve({ value: frame, done: false });
    } else {
      this.queue.push(frame);
      if (this.queue.length > (this.options.maxQueued ?? 3000)) {
        this.queue.shift();
        this.dropped++;
      }
    }
    if (this.options.idleMs !== undefined) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => this.close(), this.options.idleMs);
    }
  }

  /** Ends the stream (frames already queued are still read). */
  close(): void {
    if (this.done) return;
    this.done = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.onEnd();
    if (this.waiter && this.queue.length === 0) {
      this.waiter({ value: undefined, done: true });
      this.waiter = null;
    }
  }

  /**
   * The frames as a Node stream (`stream.Readable`): PCM bytes (a Buffer per frame), or with
   * `{objectMode: true}` the frames themselves. It ends when this stream ends (the speaker
   * paused, left, or `close()`); destroying it closes this stream. Read it one way only: as
   * this async iterator or as the Node stream.
   */
  toReadable(options: { objectMode?: boolean } = {}): NodeReadable {
    const { Readable } = nodeModules("toReadable()");
    const frames = this;
    const objectMode = options.objectMode === true;
    return Readable.from(
      (async function* () {
        for await (const frame of frames) yield objectMode ? frame : bytesOf(frame.pcm);
      })(),
      { objectMode },
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<ReceivedFrame> {
    return {
      next: () => {
        const frame = this.queue.shift();
        if (frame) return Promise.resolve({ value: frame, done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiter = resolve));
      },
      return: () => {
        this.close();
        this.queue.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** One speaker's audio until they pause (`idleMs`) or leave. */
export interface SpeakerStream {
  userId: string;
  kind: ReceivedFrame["kind"];
  frames: FrameStream;
}

/** A piece of audio being sent. */
export class Playback {
  /**
   * Resolves when it ends (finished, stopped, or the bot left the channel); rejects when the
   * source fails (`FfmpegNotFoundError`, `FfmpegError`, a stream's own error).
   */
  readonly finished: Promise<PlaybackStats>;
  /** The ffmpeg process decoding a file, URL or encoded stream (null for PCM). */
  readonly decoder: FfmpegDecoder | null;
  private paused = false;
  private stopped: PlaybackStats["ended"] | null = null;
  private wake: (() => void) | null = null;
  private gain: number;

  constructor(run: (playback: Playback) => Promise<PlaybackStats>, options: { decoder?: FfmpegDecoder | null; volume?: number } = {}) {
    this.decoder = options.decoder ?? null;
    this.gain = clampVolume(options.volume ?? 1);
    this.finished = run(this);
  }

  /**
   * The gain applied to each frame as it is sent: 0 (silence) to 2 (twice as loud, clipping
   * loud audio), 1 the audio as it is. Set it at any time; values outside are clamped, and a
   * change ramps across one frame.
   */
  get volume(): number {
    return this.gain;
  }

  set volume(volume: number) {
    this.gain = clampVolume(volume);
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Holds sending after the current frame; `resume()` goes on from the next one. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake?.();
  }

  /** Stops for good; `finished` resolves with `ended: "stopped"`. */
  stop(reason: PlaybackStats["ended"] = "stopped"): void {
    this.stopped ??= reason;
    this.decoder?.kill(); // also ends a wait for ffmpeg's next bytes (a stalled URL)
    this.wake?.();
  }

  /** @internal Waits `ms` (or until woken by pause, resume or stop). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /** @internal */
  get state(): { paused: boolean; stopped: PlaybackStats["ended"] | null } {
    return { paused: this.paused, stopped: this.stopped };
  }
}

function isAudio(source: PlaySource): source is PcmAudio | (PcmFormat & { pcm: PcmChunk }) {
  return typeof source === "object" && source !== null && "pcm" in source && "sampleRate" in source;
}

/** What `joinVoice()` takes. */
export interface JoinOptions {
  /** Hear the room's people from the start (`listen(true)` right after joining). */
  listen?: boolean;
}

const open = new WeakMap<Gateway, VoiceConnection>();

/** The connection's own events (`connection.on`), Discord.js-like. */
export interface VoiceConnectionEvents {
  /** The room was lost (`reason`: the server's message); try `attempt` joins again after `delayMs`. */
  reconnecting: { reason: string; attempt: number; delayMs: number };
  /** Back in the channel after `attempts` tries, `downtimeMs` after the room was lost. */
  reconnected: { attempts: number; downtimeMs: number };
}
type VoiceListener<E extends keyof VoiceConnectionEvents> = (payload: VoiceConnectionEvents[E]) => void;

/** A `speakers()` iteration: its options, the current stream of each speaker, and where new speakers go. */
interface Watcher {
  options: ReceiveOptions;
  current: Map<string, FrameStream>;
  push(speaker: SpeakerStream): void;
  close(): void;
}

/** The bot in one voice channel. */
export class VoiceConnection {
  channelId: string;
  /** Everyone in the room (the bot included), kept up to date from the room's events. */
  readonly participants = new Map<string, S.VoiceParticipant>();
  private readonly gateway: Gateway;
  private left = false;
  /** Whether the bot wants to hear people: sent again whenever the server forgot it. */
  private wantsToListen = false;
  /** Between `voice:force-move` and the `voice:existing` of the new room. */
  private moving = false;
  private readonly playbacks = new Set<Playback>();
  private readonly streams = new Set<{ userId: string | null; stream: FrameStream }>();
  private readonly watchers = new Set<Watcher>();
  private readonly unsubscribe: (() => void)[] = [];
  /** While joining again after the room was lost: frames are not sent. */
  private rejoining = false;
  private readonly listeners = new Map<keyof VoiceConnectionEvents, Set<(payload: never) => void>>();
  private audioQueue: AudioQueue | null = null;

  /** @internal use joinVoice() */
  constructor(gateway: Gateway, channelId: string, participants: S.VoiceParticipant[]) {
    this.gateway = gateway;
    this.channelId = channelId;
    this.setParticipants(participants);
    this.unsubscribe.push(
      gateway.on("bot:audio-data", (data) => this.deliver({ userId: data.botUserId, kind: "bot", pcm: samplesOf(data.pcm), sampleRate: data.sampleRate, channels: data.channels, receivedAt: now() })),
      gateway.on("voice:audio-data", (data) => {
        // A frame still on its way from the room the bot was moved out of is dropped.
        if (data.channelId !== this.channelId) return;
        this.deliver({ userId: data.userId, kind: "person", pcm: samplesOf(data.pcm), sampleRate: data.sampleRate, channels: data.channels, receivedAt: now() });
      }),
      gateway.on("voice:user-joined", (participant) => void this.participants.set(participant.socketId, participant)),
      gateway.on("voice:user-left", ({ socketId }) => this.participantLeft(socketId)),
      gateway.on("voice:listening", ({ socketId, listening }) => {
        const participant = this.participants.get(socketId);
        if (participant) this.participants.set(socketId, { ...participant, listening });
      }),
      gateway.on("voice:force-move", ({ channelId }) => {
        this.channelId = channelId;
        this.moving = true;
      }),
      // The server has put the socket in the new room: ask to listen there, learn who is in it.
      gateway.on("voice:existing", () => (this.moving ? this.arrived() : undefined)),
      gateway.on("voice:error", ({ error }) => {
        if (isVoiceRoomLost(error) && !this.left && !this.moving && !this.rejoining) void this.rejoin(error);
      }),
      gateway.on("voice:force-leave", () => this.close()),
      gateway.on("voice:force-disconnect", () => this.close()),
      // After a reconnect the socket is new and in no voice room: join again, listen again, and go on playing.
      gateway.onResume("voice", async () => {
        if (this.left) return;
        this.moving = false; // a move cut short by the drop: this join lands in the new room
        const ack = await gateway.emit("voice:join", { channelId: this.channelId });
        this.setParticipants(ack.participants);
        if (this.wantsToListen) await gateway.emit("voice:listen", { channelId: this.channelId, listening: true });
      }),
    );
  }

  get active(): boolean {
    return !this.left;
  }

  /** The connection's queue: `add()` sources to play one after another (an `AudioQueue`, made on first use). */
  get queue(): AudioQueue {
    return (this.audioQueue ??= new AudioQueue(this));
  }

  /** Whether the connection is joining again after the room was lost (`reconnecting` .. `reconnected`). */
  get reconnecting(): boolean {
    return this.rejoining;
  }

  /** Listens to `reconnecting` or `reconnected`; returns a function that stops listening. */
  on<E extends keyof VoiceConnectionEvents>(event: E, listener: VoiceListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  private fire<E extends keyof VoiceConnectionEvents>(event: E, payload: VoiceConnectionEvents[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as VoiceListener<E>)(payload);
      } catch {
        // A bot's listener that throws does not stop the rejoin.
      }
    }
  }

  /**
   * Joins the channel again after the server said the room is gone, with backoff, until back or
   * left; listens again if wanted. A drop of the whole gateway is its own reconnect (`onResume`).
   */
  private async rejoin(reason: string): Promise<void> {
    this.rejoining = true;
    const lostAt = now();
    try {
      for (let attempt = 1; !this.left; attempt++) {
        const delayMs = rejoinDelayMs(attempt);
        this.fire("reconnecting", { reason, attempt, delayMs });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (this.left) return;
        try {
          const ack = await this.gateway.emit("voice:join", { channelId: this.channelId });
          this.setParticipants(ack.participants);
          if (this.wantsToListen) await this.gateway.emit("voice:listen", { channelId: this.channelId, listening: true });
        } catch (error) {
          reason = error instanceof Error ? error.message : String(error);
          continue;
        }
        this.rejoining = false;
        this.fire("reconnected", { attempts: attempt, downtimeMs: Math.round(now() - lostAt) });
        return;
      }
    } finally {
      this.rejoining = false;
    }
  }

  /** Whether the bot asked to hear the room's people (and has not stopped). */
  get listening(): boolean {
    return this.wantsToListen;
  }

  /**
   * Starts (or, with `false`, stops) hearing the room's people: their microphone frames arrive
   * through `receive()` and `speakers()` with `kind: "person"`. The room is told
   * (`voice:listening`; people see that the bot hears them). Kept across reconnects and moves:
   * the connection asks the server again each time it forgets. While the connection is down
   * (or being moved) the wish is kept and sent once back in the room. A refusal throws
   * `HearthAckError` and leaves the previous state.
   */
  async listen(listening = true): Promise<void> {
    if (this.left) throw new HearthError("listen(): the bot left this voice channel");
    const before = this.wantsToListen;
    this.wantsToListen = listening;
    if (!this.gateway.connected || this.moving) return;
    try {
      await this.gateway.emit("voice:listen", { channelId: this.channelId, listening });
    } catch (error) {
      this.wantsToListen = before;
      throw error;
    }
  }

  /** After a move: listen again if wanted, then take the new room's participants (speakers of the old room end). */
  private async arrived(): Promise<void> {
    this.moving = false;
    if (this.left) return;
    try {
      if (this.wantsToListen) await this.gateway.emit("voice:listen", { channelId: this.channelId, listening: true });
    } finally {
      // A refusal is reported (`error`); the participants are still the new room's.
      const { participants } = await this.gateway.emit("bot:voice-participants", { channelId: this.channelId });
      const before = new Set([...this.participants.values()].map((p) => p.userId));
      this.setParticipants(participants);
      const present = new Set(participants.map((p) => p.userId));
      for (const userId of before) if (!present.has(userId)) this.endSpeaker(userId);
    }
  }

  /**
   * Starts sending audio; returns at once with the Playback (await `.finished` for the end, or
   * catch it: a source that fails rejects it). Files, URLs and encoded streams start ffmpeg,
   * which is killed when the playback ends however it ends.
   */
  play(source: EncodedInput, options: PlayOptions & { encoded: true }): Playback;
  play(source: PlaySource, options?: PlayOptions): Playback;
  play(source: PlaySource | EncodedInput, options: PlayOptions = {}): Playback {
    if (this.left) throw new HearthError("play(): the bot left this voice channel");
    const audio = !options.encoded && isAudio(source as PlaySource) ? (source as PcmAudio | (PcmFormat & { pcm: PcmChunk })) : null;
    const format: PcmFormat = audio ?? { sampleRate: options.sampleRate ?? DEFAULT_SAMPLE_RATE, channels: options.channels ?? DEFAULT_CHANNELS };
    const frameMs = options.frameMs ?? 20;
    const size = frameBytes(format, frameMs);
    const decoder = options.encoded || isEncodedSource(source) ? new FfmpegDecoder(source as EncodedInput, format, options) : null;
    const chunks = decoder ?? (audio ? [audio.pcm] : (source as AsyncIterable<PcmChunk> | Iterable<PcmChunk>));
    const run = (self: Playback) => this.pace(self, frames(chunks, size, format.channels), format, frameMs, options.maxLagMs ?? 200);
    const playback = new Playback(run, { decoder, volume: options.volume });
    this.playbacks.add(playback);
    const forget = () => void this.playbacks.delete(playback);
    playback.finished.then(forget, forget);
    return playback;
  }

  private async pace(playback: Playback, source: AsyncIterable<Uint8Array>, format: PcmFormat, frameMs: number, maxLagMs: number): Promise<PlaybackStats> {
    const stats: PlaybackStats = { frames: 0, bytes: 0, audioMs: 0, lateFrames: 0, resyncs: 0, ended: "finished" };
    let start = now();
    let gain = playback.volume;
    const iterator = source[Symbol.asyncIterator]();
    this.speaking(true);
    try {
      for (;;) {
        if (playback.state.stopped) break;
        const next = await iterator.next();
        if (next.done) break;
        const frame = next.value;
        // Wait for the frame's time; pauses and stops are checked whenever the wait ends.
        for (;;) {
          const { paused, stopped } = playback.state;
          if (stopped) break;
          if (paused) {
            this.speaking(false);
            await playback.sleep(3_600_000);
            if (!playback.state.paused) {
              start = now() - stats.audioMs; // continue from here, not from before the pause
              this.speaking(true);
            }
            continue;
          }
          const wait = start + stats.audioMs - now();
          if (wait <= 0) break;
          await playback.sleep(wait);
        }
        if (playback.state.stopped) break;
        const lag = now() - (start + stats.audioMs);
        if (lag > maxLagMs) {
          start += lag; // a stall: move the schedule rather than send the backlog at once
          stats.resyncs++;
        } else if (lag > frameMs) stats.lateFrames++;
        stats.audioMs += durationMs(frame.byteLength, format);
        if (this.rejoining) continue; // due while out of the room: dropped, the schedule goes on
        const pcm = applyGain(frame, format.channels, gain, (gain = playback.volume));
        this.gateway.send("bot:audio-data", { channelId: this.channelId, pcm, sampleRate: format.sampleRate, channels: format.channels }, { dropWhileDisconnected: true });
        stats.frames++;
        stats.bytes += frame.byteLength;
      }
    } finally {
      this.speaking(false);
      await iterator.return?.();
    }
    stats.ended = playback.state.stopped ?? "finished";
    return stats;
  }

  /** Frames from one speaker (`userId`) or from everyone, as they arrive. */
  receive(userId: string | null = null, options: ReceiveOptions = {}): FrameStream {
    const entry = { userId, stream: null as unknown as FrameStream };
    entry.stream = new FrameStream(options, () => this.streams.delete(entry));
    if (this.left) entry.stream.close();
    else this.streams.add(entry);
    return entry.stream;
  }

  /**
   * Each speaker as they start: a stream of their frames that ends when they pause for `idleMs`
   * (default 1 s) or leave; a new one starts when they speak again. As a Node stream:
   * `toReadable()`, an object-mode `Readable` of the same `SpeakerStream`s (each one's
   * `frames.toReadable()` a stream of its PCM that ends when they stop).
   */
  speakers(options: ReceiveOptions = {}): AsyncIterable<SpeakerStream> & { close(): void; toReadable(): NodeReadable } {
    const pending: SpeakerStream[] = [];
    let waiter: ((result: IteratorResult<SpeakerStream>) => void) | null = null;
    let closed = false;
    const watcher: Watcher = {
      options: { idleMs: 1000, ...options },
      current: new Map(),
      push: (speaker) => {
        if (waiter) {
          waiter({ value: speaker, done: false });
          waiter = null;
        } else pending.push(speaker);
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.watchers.delete(watcher);
        for (const stream of watcher.current.values()) stream.close();
        waiter?.({ value: undefined, done: true });
        waiter = null;
      },
    };
    if (this.left) watcher.close();
    else this.watchers.add(watcher);
    const iterable = {
      close: watcher.close,
      toReadable: (): NodeReadable => nodeModules("toReadable()").Readable.from(iterable, { objectMode: true }),
      [Symbol.asyncIterator]: (): AsyncIterator<SpeakerStream> => ({
        next: () => {
          const speaker = pending.shift();
          if (speaker) return Promise.resolve({ value: speaker, done: false });
          if (closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => (waiter = resolve));
        },
        return: () => {
          watcher.close();
          return Promise.resolve({ value: undefined, done: true });
        },
      }),
    };
    return iterable;
  }

  private deliver(frame: ReceivedFrame): void {
    if (this.left) return;
    for (const { userId, stream } of this.streams) if (userId === null || userId === frame.userId) stream.push(frame);
    for (const watcher of this.watchers) {
      let stream = watcher.current.get(frame.userId);
      if (!stream) {
        const created: FrameStream = new FrameStream(watcher.options, () => {
          if (watcher.current.get(frame.userId) === created) watcher.current.delete(frame.userId);
        });
        stream = created;
        watcher.current.set(frame.userId, stream);
        watcher.push({ userId: frame.userId, kind: frame.kind, frames: stream });
      }
      stream.push(frame);
    }
  }

  private participantLeft(socketId: string): void {
    const participant = this.participants.get(socketId);
    this.participants.delete(socketId);
    if (!participant) return;
    const stillHere = [...this.participants.values()].some((p) => p.userId === participant.userId);
    if (!stillHere) this.endSpeaker(participant.userId);
  }

  /** Ends the streams of a speaker who is no longer in the room. */
  private endSpeaker(userId: string): void {
    for (const entry of [...this.streams]) if (entry.userId === userId) entry.stream.close();
    for (const watcher of this.watchers) watcher.current.get(userId)?.close();
  }

  private setParticipants(list: S.VoiceParticipant[]): void {
    this.participants.clear();
    for (const participant of list) this.participants.set(participant.socketId, participant);
  }

  private speaking(speaking: boolean): void {
    if (this.left || !this.gateway.connected) return;
    const others = [...this.playbacks].some((p) => !p.isPaused);
    if (!speaking && others && this.playbacks.size > 1) return;
    this.gateway.send("voice:speaking", { speaking });
  }

  /** Leaves the voice channel: playbacks end (`left`), streams end. */
  async leave(): Promise<void> {
    if (this.left) return;
    this.close();
    if (this.gateway.connected) await this.gateway.emit("voice:leave");
  }

  /** @internal The server took the bot out of this channel (another join, a kick from voice). */
  ended(): void {
    this.close();
  }

  private close(): void {
    if (this.left) return;
    this.left = true;
    for (const playback of this.playbacks) playback.stop("left");
    for (const { stream } of [...this.streams]) stream.close();
    for (const watcher of [...this.watchers]) watcher.close();
    for (const off of this.unsubscribe) off();
    if (open.get(this.gateway) === this) open.delete(this.gateway);
  }
}

/**
 * Joins a voice channel (VIEW_CHANNEL and CONNECT needed); a socket is in one voice channel at
 * a time. `{listen: true}` also starts hearing the room's people (if that is refused, the bot
 * leaves again and the refusal is thrown).
 */
export async function joinVoice(bot: Bot | Gateway, channelId: string, options: JoinOptions = {}): Promise<VoiceConnection> {
  const gateway = "gateway" in bot ? bot.gateway : bot;
  // Node's modules for ffmpeg and toReadable(), loaded now so toReadable() can be synchronous.
  await loadNode().catch(() => undefined);
  const ack = await gateway.emit("voice:join", { channelId });
  // Joining moves the socket out of its previous voice channel: that connection ends.
  open.get(gateway)?.ended();
  const connection = new VoiceConnection(gateway, ack.channelId, ack.participants);
  open.set(gateway, connection);
  if (options.listen) {
    try {
      await connection.listen(true);
    } catch (error) {
      await connection.leave();
      throw error;
    }
  }
  return connection;
}

