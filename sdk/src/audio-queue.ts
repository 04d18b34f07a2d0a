/**
 * A queue of sources played one after another on a voice connection (`connection.queue`, or
 * `new AudioQueue(connection)`): what a music bot needs. Each item is a `play()` of its own (a
 * file or URL starts its ffmpeg only when its turn comes), with the queue's volume and pause
 * carried from one item to the next.
 *
 * Events (`on`): `start {item, playback}` when an item begins, `end {item, stats}` when it
 * finishes or is skipped or stopped, `error {item, error}` instead of `end` when its source
 * fails (ffmpeg missing, a file it cannot read): the queue goes on with the next, and `idle`
 * once nothing is playing and nothing is queued. When the bot leaves the channel the queue
 * empties and goes idle.
 */
import { HearthError } from "./errors.js";
import { describeInput, type EncodedInput } from "./ffmpeg.js";
import type { Playback, PlaybackStats, PlayOptions, PlaySource, VoiceConnection } from "./voice.js";
import { clampVolume } from "./volume.js";

export interface QueueItem {
  /** 1, 2, ... in the order added. */
  readonly id: number;
  /** A name to show: the `title` given, else the path or URL, else "audio". */
  readonly title: string;
  readonly source: PlaySource | EncodedInput;
  readonly options: PlayOptions;
}

export interface AudioQueueEvents {
  start: { item: QueueItem; playback: Playback };
  end: { item: QueueItem; stats: PlaybackStats };
  error: { item: QueueItem; error: unknown };
  idle: Record<string, never>;
}

type QueueListener<E extends keyof AudioQueueEvents> = (payload: AudioQueueEvents[E]) => void;

export class AudioQueue {
  private readonly upcoming: QueueItem[] = [];
  private current: { item: QueueItem; playback: Playback } | null = null;
  private nextId = 1;
  private gain = 1;
  private held = false;
  private readonly listeners = new Map<keyof AudioQueueEvents, Set<(payload: never) => void>>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly connection: VoiceConnection) {}

  /** Adds a source (anything `play()` takes, with its options and a `title`); it starts at once when nothing is playing. */
  add(source: PlaySource | EncodedInput, options: PlayOptions & { title?: string } = {}): QueueItem {
    if (!this.connection.active) throw new HearthError("queue.add(): the bot left this voice channel");
    const { title, ...playOptions } = options;
    const item: QueueItem = { id: this.nextId++, title: title ?? titleOf(source), source, options: playOptions };
    this.upcoming.push(item);
    if (!this.current) this.next();
    return item;
  }

  /** What is playing now, or null. */
  get nowPlaying(): { item: QueueItem; playback: Playback } | null {
    return this.current;
  }

  /** The items waiting their turn, in order (not the one playing). */
  list(): readonly QueueItem[] {
    return [...this.upcoming];
  }

  /** Ends the current item (its `end` says `ended: "stopped"`); the next one starts. Returns the item skipped. */
  skip(): QueueItem | null {
    const current = this.current;
    current?.playback.stop();
    return current?.item ?? null;
  }

  /** Removes the waiting items (the one playing goes on); returns how many. */
  clear(): number {
    return this.upcoming.splice(0).length;
  }

  /** Clears the queue and stops the current item. */
  stop(): void {
    this.clear();
    this.current?.playback.stop();
  }

  /** Holds the current item, and any next one until `resume()`. */
  pause(): void {
    this.held = true;
    this.current?.playback.pause();
  }

  resume(): void {
    this.held = false;
    this.current?.playback.resume();
  }

  get isPaused(): boolean {
    return this.held;
  }

  /**
   * The gain (0 to 2, clamped) of the current item and the ones after it; an item added with a
   * `volume` of its own plays at the product of the two (clamped).
   */
  get volume(): number {
    return this.gain;
  }

  set volume(volume: number) {
    this.gain = clampVolume(volume);
    if (this.current) this.current.playback.volume = this.gainOf(this.current.item);
  }

  private gainOf(item: QueueItem): number {
    return clampVolume(this.gain * (item.options.volume ?? 1));
  }

  /** Whether nothing is playing and nothing is queued. */
  get idle(): boolean {
    return !this.current && this.upcoming.length === 0;
  }

  /** Resolves once the queue is idle (at once if it is). */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Listens to `start`, `end`, `error` or `idle`; returns a function that stops listening. */
  on<E extends keyof AudioQueueEvents>(event: E, listener: QueueListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  private fire<E extends keyof AudioQueueEvents>(event: E, payload: AudioQueueEvents[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as QueueListener<E>)(payload);
      } catch {
        // A listener that throws does not stop the queue.
      }
    }
  }

  private next(): void {
    for (;;) {
      if (!this.connection.active) this.upcoming.length = 0;
      const item = this.upcoming.shift();
      if (!item) {
        this.fire("idle", {});
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        return;
      }
      let playback: Playback;
      try {
        // add() took what play() takes; the cast picks the overload that accepts every kind.
        playback = this.connection.play(item.source as EncodedInput, { ...item.options, volume: this.gainOf(item) } as PlayOptions & { encoded: true });
      } catch (error) {
        this.fire("error", { item, error });
        continue;
      }
      if (this.held) playback.pause();
      this.current = { item, playback };
      this.fire("start", { item, playback });
      playback.finished.then(
        (stats) => this.finish(() => this.fire("end", { item, stats })),
        (error: unknown) => this.finish(() => this.fire("error", { item, error })),
      );
      return;
    }
  }

  private finish(report: () => void): void {
    this.current = null;
    report();
    this.next();
  }
}

function titleOf(source: PlaySource | EncodedInput): string {
  return typeof source === "string" || source instanceof URL ? describeInput(source) : "audio";
}
