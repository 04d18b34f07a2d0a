import { randomUUID } from "node:crypto";
import type { Socket } from "socket.io";
import type { Session } from "socket.io-adapter";
import type { NativeFanout } from "./native-fanout.ts";
import type { PacketOptions } from "./socket-io-adapter-internals.ts";
import type { GatewayServer } from "./socket-types.ts";
import { sendPacket } from "./socket-io-internals.ts";

/**
 * What a resumed socket missed, with nothing lost or sent twice (docs/gateway.md, "Resume").
 *
 * Reading the missed events and making the socket live again cannot be one step: the room
 * checks run in between (src/gateway/resume.ts), the Redis stream is read over the network,
 * and this node delivers a broadcast only when it has it (its own after the XADD, the other
 * nodes' when its stream reader gets to them). So a resumed socket is rebuilt in its rooms and
 * *held* first (src/gateway/native-fanout.ts): its broadcasts are queued here, not sent. Then
 * the events after the client's offset are read again, for the rooms it got back, and sent;
 * then the queued ones whose offset was not among them; from then on each broadcast to it is
 * written to its connection unless its offset was already sent. The hold ends (native delivery)
 * once the socket is connected and, in cluster mode, this node's stream reader has passed the
 * last event sent (a broadcast read by the resume before the reader got to it would otherwise
 * come a second time), or after `READER_WAIT_MS`.
 */

/** The longest a resumed socket waits for this node's stream reader before it is delivered natively. */
const READER_WAIT_MS = 5_000;

interface Store {
  restoreSession(pid: string, offset: string): Promise<Session>;
  /** The Redis streams adapter's entry point for each stream entry its reader gets (none on one node). */
  onRawMessage?(message: unknown, offset: string): void;
}
interface Connection {
  readonly readyState: string;
  write(packet: string, opts: PacketOptions): void;
  once(event: "close", listener: () => void): void;
}
type Persist = (session: Omit<Session, "missedPackets">) => void;
/** Which of the missed packets (`[event, payload, offset]`) the socket may still be sent; null: not resumed (the client reloads). */
export type ScreenMissed = (socket: Socket, missed: unknown[][]) => Promise<unknown[][] | null>;

/** Redis stream ids ("ms-seq") in order. */
function streamIdAtLeast(id: string, than: string): boolean {
  const [ms, seq] = id.split("-").map(Number) as [number, number];
  const [thanMs, thanSeq] = than.split("-").map(Number) as [number, number];
  return ms > thanMs || (ms === thanMs && seq >= thanSeq);
}

export class ResumeCatchUp {
  /** The last stream entry this node's reader handled (cluster mode). */
  private lastRead: string | null = null;
  private readonly readerWaiters = new Set<{ offset: string; resolve: () => void }>();
  /** Held sockets not connected yet, by id: called on `connection`. */
  private readonly connecting = new Map<string, () => void>();

  constructor(
    io: GatewayServer,
    private readonly store: Store,
    private readonly persist: Persist,
    private readonly fanout: NativeFanout,
    private readonly screen: ScreenMissed = async (_socket, missed) => missed,
  ) {
    const onRawMessage = store.onRawMessage;
    if (onRawMessage) {
      const self = this;
      store.onRawMessage = function (message, offset) {
        onRawMessage.call(this, message, offset);
        self.read(offset);
      };
    }
    io.of("/").on("connection", (socket) => {
      const connected = this.connecting.get(socket.id);
      this.connecting.delete(socket.id);
      connected?.();
    });
  }

  /**
   * Holds `socket` (just rebuilt in its rooms), sends it the events after `offset` and those
   * broadcast meanwhile, each once, in order; resolves false, with the hold dropped, when the
   * events could not be read again (the caller then does not resume it). The hold ends later,
   * by itself. The missed events pass `screen` first (a refusal is a false too).
   */
  async start(socket: Socket, offset: string): Promise<boolean> {
    const conn = socket.conn as unknown as Connection;
    const sent = new Set<string>();
    let queued: [string | null, string, PacketOptions][] | null = [];
    const deliver = (at: string | null, full: string, packetOpts: PacketOptions) => {
      if (queued) return void queued.push([at, full, packetOpts]);
      if (at !== null) {
        if (sent.has(at)) return;
        sent.add(at);
      }
      conn.write(full, packetOpts);
    };
    this.fanout.hold(socket, deliver);

    let missed: unknown[][];
    try {
      // The adapter's own read, for a one-use session with the rooms the socket has now.
      const pid = `resume-${randomUUID()}`;
      this.persist({ sid: socket.id, pid, rooms: [...socket.rooms], data: socket.data });
      const read = await this.store.restoreSession(pid, offset);
      const kept = await this.screen(socket, read.missedPackets as unknown[][]);
      if (!kept) throw new Error("missed events it may not be sent");
      missed = kept;
    } catch {
      this.fanout.release(socket);
      return false;
    }
    if (conn.readyState !== "open") {
      // Gone meanwhile: Socket.IO will not connect it.
      this.fanout.release(socket);
      return true;
    }
    for (const data of missed) {
      const at = data.at(-1);
      if (typeof at === "string") sent.add(at);
      sendPacket(socket, { type: 2, data });
    }
    const meanwhile = queued;
    queued = null;
    for (const [at, full, packetOpts] of meanwhile) deliver(at, full, packetOpts);

    const last = missed.at(-1)?.at(-1);
    const connected = new Promise<void>((resolve) => {
      this.connecting.set(socket.id, resolve);
      conn.once("close", () => {
        if (this.connecting.get(socket.id) === resolve) this.connecting.delete(socket.id);
        resolve();
      });
    });
    void Promise.all([connected, this.readerPassed(typeof last === "string" ? last : null)]).then(() => this.fanout.release(socket));
    return true;
  }

  /** Resolves once this node's stream reader has handled `offset` (at once on one node), or after READER_WAIT_MS. */
  private readerPassed(offset: string | null): Promise<void> {
    if (offset === null || !this.store.onRawMessage) return Promise.resolve();
    if (this.lastRead !== null && streamIdAtLeast(this.lastRead, offset)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { offset, resolve: () => {} };
      const timer = setTimeout(() => waiter.resolve(), READER_WAIT_MS);
      waiter.resolve = () => {
        clearTimeout(timer);
        this.readerWaiters.delete(waiter);
        resolve();
      };
      this.readerWaiters.add(waiter);
    });
  }

  private read(offset: string): void {
    this.lastRead = offset;
    for (const waiter of this.readerWaiters) if (streamIdAtLeast(offset, waiter.offset)) waiter.resolve();
  }
}
