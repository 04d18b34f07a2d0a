import { Adapter, type BroadcastOptions, type Session } from "socket.io-adapter";
import type { ServerOptions } from "socket.io";
import { resumeWindowMsOf } from "./socket-io-internals.ts";

type AdapterConstructor = NonNullable<ServerOptions["adapter"]>;

/**
 * The one-node adapter with session resume (docs/gateway.md, "Resume"): socket.io-adapter's
 * in-memory `Adapter`, plus what Socket.IO's connection state recovery needs from an adapter:
 * each stored broadcast gets an offset (appended as the event's last argument), a socket that
 * drops keeps its session (rooms, data) for `maxDisconnectionDuration`, and a reconnect with
 * that session's id and the last offset it saw gets back its rooms, its data and the
 * broadcasts it missed, in order.
 *
 * Unlike socket.io-adapter's `SessionAwareAdapter` (every packet of the last 2-3 minutes in an
 * array searched from the start), the buffer is bounded in count as well as in age, offsets are
 * consecutive numbers (a lookup is an index), and a session is used once. Not stored: acks,
 * volatile and local packets, and audio frames (never replayed, whichever way they are sent).
 * In cluster mode the Redis streams adapter does all this with the stream instead.
 */

/** Events never stored for replay: real-time audio is useless late. */
const NEVER_REPLAYED: ReadonlySet<string> = new Set(["bot:audio-data", "voice:audio-data"]);

/** How often expired sessions and packets are dropped. */
const SWEEP_MS = 10_000;

interface StoredPacket {
  seq: number;
  at: number;
  rooms: Set<string>;
  except: Set<string>;
  data: unknown[];
}
interface StoredSession {
  session: Omit<Session, "missedPackets">;
  disconnectedAt: number;
}
interface EventPacket {
  type: number;
  data: unknown[];
  id?: number;
}

/** The adapter option for Socket.IO (which calls it with `new`): a ResumableAdapter keeping `maxPackets`. */
export function resumableAdapter(maxPackets: number): AdapterConstructor {
  return function (nsp: ConstructorParameters<typeof Adapter>[0]) {
    return new ResumableAdapter(nsp, maxPackets);
  } as unknown as AdapterConstructor;
}

export class ResumableAdapter extends Adapter {
  private readonly sessions = new Map<string, StoredSession>();
  /** packets[head..] are the stored broadcasts, seq consecutive from packets[head].seq. */
  private packets: StoredPacket[] = [];
  private head = 0;
  private seq = 0;
  private readonly maxAgeMs: number;
  private readonly timer: ReturnType<typeof setInterval>;

  /** At most `maxPackets` broadcasts are kept (older ones make a resume from before them fail). */
  constructor(
    nsp: ConstructorParameters<typeof Adapter>[0],
    private readonly maxPackets: number,
  ) {
    super(nsp);
    this.maxAgeMs = resumeWindowMsOf(nsp) ?? 120_000;
    this.timer = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.timer.unref();
  }

  /** How many broadcasts are stored for replay (for tests and metrics). */
  get storedPackets(): number {
    return this.packets.length - this.head;
  }

  /** The event names of the stored broadcasts, oldest first (for tests). */
  storedEvents(): string[] {
    return this.packets.slice(this.head).map((packet) => packet.data[0] as string);
  }

  override close(): void {
    clearInterval(this.timer);
  }

  override broadcast(packet: EventPacket, opts: BroadcastOptions): void {
    const flags = opts.flags ?? {};
    const stored = packet.type === 2 && packet.id === undefined && flags.volatile === undefined && !flags.local && !NEVER_REPLAYED.has(packet.data[0] as string);
    if (stored) {
      const seq = ++this.seq;
      packet.data.push(String(seq));
      this.packets.push({ seq, at: Date.now(), rooms: opts.rooms, except: opts.except ?? new Set(), data: packet.data });
      if (this.packets.length - this.head > this.maxPackets) this.drop(1);
    }
    super.broadcast(packet, opts);
  }

  override persistSession(session: Omit<Session, "missedPackets">): void {
    this.sessions.set(session.pid, { session, disconnectedAt: Date.now() });
  }

  /** Rejects when the session is unknown or expired, or some packet it missed is gone (as the Redis streams adapter does). */
  override async restoreSession(pid: string, offset: string): Promise<Session> {
    const stored = this.sessions.get(pid);
    if (!stored) throw new Error("no such session");
    this.sessions.delete(pid);
    if (stored.disconnectedAt + this.maxAgeMs < Date.now()) throw new Error("session expired");
    if (!/^[0-9]{1,15}$/.test(offset)) throw new Error("invalid offset");
    const seen = Number(offset);
    const first = this.packets[this.head]?.seq ?? this.seq + 1;
    // The packet the client saw last must still be here (or be the newest): else some it missed are gone.
    if (seen > this.seq || seen < first - 1) throw new Error("offset no longer stored");
    const { rooms } = stored.session;
    const missedPackets: unknown[][] = [];
    for (let i = this.head + (seen - first + 1); i < this.packets.length; i++) {
      const packet = this.packets[i]!;
      const included = packet.rooms.size === 0 || rooms.some((room) => packet.rooms.has(room));
      if (included && rooms.every((room) => !packet.except.has(room))) missedPackets.push(packet.data);
    }
    return { ...stored.session, missedPackets };
  }

  private sweep(now: number): void {
    for (const [pid, stored] of this.sessions) if (stored.disconnectedAt + this.maxAgeMs < now) this.sessions.delete(pid);
    let expired = 0;
    while (this.head + expired < this.packets.length && this.packets[this.head + expired]!.at + this.maxAgeMs < now) expired++;
    if (expired > 0) this.drop(expired);
  }

  /** Forgets the `count` oldest packets; the array is compacted once half of it is forgotten. */
  private drop(count: number): void {
    this.head += count;
    if (this.head > 1024 && this.head * 2 > this.packets.length) {
      this.packets = this.packets.slice(this.head);
      this.head = 0;
    }
  }
}
