import { Adapter, MessageType, type BroadcastOptions } from "socket.io-adapter";
import {
  addOffsetIfNecessary,
  aroundPublish,
  clusterNodeId,
  decodeOptions,
  encodeOptions,
  isClusterAdapter,
  publishAndReturnOffset,
  type EncodedOptions,
} from "./socket-io-adapter-internals.ts";

/**
 * Cluster mode: each node delivers the broadcasts to its own sockets in the order of the Redis
 * stream (docs/gateway.md, "Resume"). The Redis streams adapter delivers a node's own broadcast
 * as soon as its XADD is answered, and the other nodes' when its stream reader gets to them, so
 * under load a socket could get a newer event before an older one. Its client's last offset
 * (what it resumes from) would then not cover everything it has, and a resume would send an
 * event a second time; two messages posted one after the other through two nodes could also
 * arrive swapped. Here a node's own broadcasts are delivered when its stream reader reads them
 * back, like everyone else's, so a socket's offsets only go up. Broadcasts flagged `local`
 * (never in the stream) are delivered at once; so is a broadcast whose XADD failed
 * (without an offset, as the adapter does).
 *
 * A node's own room joins and leaves (`io.in(...).socketsJoin/socketsLeave`) and its own
 * disconnects (`disconnectSockets`: an account disabled, a password changed, a bot deleted) are
 * applied here when read back too, in the same order as its broadcasts. The adapter applies
 * them when their XADD is answered, and that answer (on the publishing connection) and the stream reader's
 * (another connection) come in either order: a socket that left a voice room could then still
 * be in it when the room's `voice:user-left`, sent right after, was read back, and get it
 * (a moved member got its own `voice:user-left`), where one node's adapter leaves first. In
 * stream order, a leave then a broadcast to the room skips the socket, and a broadcast then a
 * leave reaches it, as on one node. Likewise a bot deleted gets its own `member:left` before its
 * socket is closed. A join, leave or disconnect whose XADD failed is applied at once.
 *
 * Answers wait for their events (`whenPublished`): a REST write's response and a gateway event's
 * ack are sent once every XADD made so far on this node is answered, so a client that waits for
 * the answer before its next write, through whichever node, has its events in the stream, and so
 * at every socket, in the order it made them (docs/gateway.md, "Resume"). Bounded: an XADD not
 * answered within `PUBLISH_WAIT_MS` (Redis unreachable) no longer holds the answer.
 *
 * Redis outages (docs/gateway.md, "Resync"): what could not be written to the stream is kept
 * for when Redis is back (`takeUnrelayed`, used by ./outage-recovery.ts): the rooms of the
 * broadcasts that reached this node's sockets only (their sockets elsewhere are told to resync),
 * and the joins, leaves and disconnects applied here only, in order (written to the stream
 * again, so the other nodes apply them too). Broadcasts read from the stream more than
 * `LATE_MS` after they were written (a reader that lost Redis catching up) are counted as late.
 */

/** The cluster messages handled here: a broadcast, a room join, a room leave and a disconnect. */
const { BROADCAST, SOCKETS_JOIN, SOCKETS_LEAVE, DISCONNECT_SOCKETS } = MessageType;

/** The Redis streams adapter's public methods used here (its cluster internals: socket-io-adapter-internals.ts). */
interface StreamAdapter {
  broadcast(packet: Packet, opts: BroadcastOptions): Promise<void> | void;
  addSockets(opts: BroadcastOptions, rooms: string[]): Promise<void> | void;
  delSockets(opts: BroadcastOptions, rooms: string[]): Promise<void> | void;
  disconnectSockets(opts: BroadcastOptions, close: boolean): Promise<void> | void;
  onRawMessage(raw: RawMessage, offset: string): void;
  constructor: { decode(raw: RawMessage): DecodedMessage };
}
interface Packet {
  type: number;
  data: unknown[];
  nsp?: string;
}
interface RawMessage {
  uid?: string;
  type?: string;
}
interface DecodedMessage {
  data: { packet: Packet; opts: EncodedOptions; requestId?: string; rooms?: string[]; close?: boolean };
}
/** `addSockets(opts, rooms)`, `delSockets(opts, rooms)` or `disconnectSockets(opts, close)`. */
type Here = (this: StreamAdapter, opts: BroadcastOptions, arg: string[] | boolean) => void;
interface RoomOperation {
  here: Here;
  data(opts: EncodedOptions, arg: string[] | boolean): Omit<DecodedMessage["data"], "packet">;
  arg(data: DecodedMessage["data"]): string[] | boolean;
}

/** What did not reach the stream during an outage (see above). */
export interface Unrelayed {
  /** The rooms of the broadcasts delivered on this node only; `everyone` when one had no room. */
  rooms: Set<string>;
  everyone: boolean;
  /** The room joins, leaves and disconnects applied on this node only, in order. */
  operations: { type: number; data: Omit<DecodedMessage["data"], "packet"> }[];
}

/** Broadcasts kept from other nodes' sockets (`dropped`) and read late (`late`), process-wide (hearth_cluster_broadcasts_total). */
export const broadcastFigures = { dropped: 0, late: 0 };
/** A broadcast read this long after its XADD counts as late. */
const LATE_MS = 1000;
/** Beyond this many rooms or operations kept, every socket is told to resync instead. */
const MAX_KEPT = 10_000;

const unrelayedOf = new WeakMap<object, Unrelayed>();
const nothingUnrelayed = (): Unrelayed => ({ rooms: new Set(), everyone: false, operations: [] });

/** What did not reach the stream since the last call (null without the stream order installed). */
export function takeUnrelayed(adapter: object): Unrelayed | null {
  const kept = unrelayedOf.get(adapter);
  if (!kept) return null;
  unrelayedOf.set(adapter, nothingUnrelayed());
  return kept;
}

/** Writes an operation kept by an outage to the stream again (the other nodes apply it; this one again, harmlessly). */
export function publishAgain(adapter: object, operation: Unrelayed["operations"][number]): Promise<unknown> {
  return publishAndReturnOffset(adapter as StreamAdapter, { type: operation.type, data: operation.data });
}

/** How long an answer waits at most for its events' XADDs (Redis unreachable: answered anyway). */
export const PUBLISH_WAIT_MS = 2000;

/**
 * An adapter's XADDs not yet answered, and a promise that settles once all of them made so far
 * have (ioredis settles every command: answered, or failed once its retries are spent, so a Redis
 * outage holds answers only for the bound, and the chain frees itself once Redis is back).
 */
interface InFlight {
  pending: number;
  all: Promise<unknown>;
}
const inFlight = new WeakMap<object, InFlight>();

/** What an answer waits for: a promise while this node has XADDs not yet answered, else nothing. */
export type WhenPublished = () => Promise<void> | undefined;

/**
 * For an adapter with the stream order installed: a function whose promise settles once every
 * XADD made so far through it is answered (or failed), at most `PUBLISH_WAIT_MS` later, and
 * which returns nothing when none is pending. Null for any other adapter (one node).
 */
export function whenPublished(adapter: object): WhenPublished | null {
  const state = inFlight.get(adapter);
  if (!state) return null;
  return () => {
    if (state.pending === 0) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, PUBLISH_WAIT_MS)));
    return Promise.race([state.all.then(() => undefined), bound]).finally(() => clearTimeout(timer));
  };
}

/** Installs it on a Redis streams adapter instance (resume.ts does, in cluster mode). */
export function installStreamOrder(adapter: StreamAdapter): void {
  if (typeof adapter.onRawMessage !== "function" || !isClusterAdapter(adapter)) return;
  const deliverHere = Adapter.prototype.broadcast as (this: StreamAdapter, packet: Packet, opts: BroadcastOptions) => void;
  const state: InFlight = { pending: 0, all: Promise.resolve() };
  inFlight.set(adapter, state);
  unrelayedOf.set(adapter, nothingUnrelayed());
  const keep = (record: (kept: Unrelayed) => void) => {
    const kept = unrelayedOf.get(adapter)!;
    if (kept.everyone && kept.operations.length >= MAX_KEPT) return;
    record(kept);
    if (kept.rooms.size > MAX_KEPT) {
      kept.rooms.clear();
      kept.everyone = true;
    }
    if (kept.operations.length > MAX_KEPT) {
      // Too much to replay: every socket resyncs (its client refetches, and reconnects if rooms may differ).
      kept.operations.length = MAX_KEPT;
      kept.everyone = true;
    }
  };
  // Every XADD of this node goes through here, counted until answered (whenPublished).
  aroundPublish(adapter, (message, publish) => {
    const offset = publish(message);
    state.pending++;
    const settled = offset.then(
      () => void state.pending--,
      () => void state.pending--,
    );
    state.all = Promise.all([state.all, settled]);
    return offset;
  });
  adapter.broadcast = async function (packet, opts) {
    if (opts.flags?.local) return deliverHere.call(this, packet, opts);
    try {
      await publishAndReturnOffset(this, { type: BROADCAST, data: { packet, opts: encodeOptions(opts) } });
    } catch {
      deliverHere.call(this, packet, opts);
      broadcastFigures.dropped++;
      keep((kept) => {
        if (opts.rooms.size === 0) kept.everyone = true;
        else for (const room of opts.rooms) kept.rooms.add(room);
      });
    }
  };
  // Joins, leaves and disconnects: `arg` is the rooms or the `close` flag; `here` is the
  // in-memory adapter's own (this node's sockets only, at once); `data` what the stream carries.
  const operations: Record<string, RoomOperation> = {
    [SOCKETS_JOIN]: { here: Adapter.prototype.addSockets as Here, data: (opts, rooms) => ({ opts, rooms: rooms as string[] }), arg: (data) => data.rooms ?? [] },
    [SOCKETS_LEAVE]: { here: Adapter.prototype.delSockets as Here, data: (opts, rooms) => ({ opts, rooms: rooms as string[] }), arg: (data) => data.rooms ?? [] },
    [DISCONNECT_SOCKETS]: { here: Adapter.prototype.disconnectSockets as Here, data: (opts, close) => ({ opts, close: close === true }), arg: (data) => data.close === true },
  };
  const inStreamOrder = (type: number) =>
    async function (this: StreamAdapter, opts: BroadcastOptions, arg: string[] | boolean) {
      const { here, data } = operations[type]!;
      if (opts.flags?.local) return here.call(this, opts, arg);
      const message = { type, data: data(encodeOptions(opts), arg) };
      try {
        await publishAndReturnOffset(this, message);
      } catch {
        here.call(this, opts, arg);
        keep((kept) => kept.operations.push(message));
      }
    };
  adapter.addSockets = inStreamOrder(SOCKETS_JOIN);
  adapter.delSockets = inStreamOrder(SOCKETS_LEAVE);
  adapter.disconnectSockets = inStreamOrder(DISCONNECT_SOCKETS);
  const onRawMessage = adapter.onRawMessage;
  adapter.onRawMessage = function (raw, offset) {
    // A stream id is "<ms>-<seq>": when the XADD was made.
    if (Date.now() - Number.parseInt(offset, 10) > LATE_MS) broadcastFigures.late++;
    const own = raw.uid === clusterNodeId(this) && (raw.type === String(BROADCAST) || raw.type! in operations);
    if (!own) return onRawMessage.call(this, raw, offset);
    // Our own broadcast, join, leave or disconnect, read back: done here now (the adapter skips its own messages).
    let message: DecodedMessage;
    try {
      message = this.constructor.decode(raw);
    } catch {
      return;
    }
    if (raw.type !== String(BROADCAST)) {
      const { here, arg } = operations[raw.type!]!;
      return here.call(this, decodeOptions(message.data.opts), arg(message.data));
    }
    if (message.data.requestId !== undefined) return;
    const { packet } = message.data;
    const opts = decodeOptions(message.data.opts);
    addOffsetIfNecessary(this, packet, opts, offset);
    deliverHere.call(this, packet, opts);
  };
}
