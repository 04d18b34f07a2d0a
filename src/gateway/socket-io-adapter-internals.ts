import type { BroadcastOptions } from "socket.io-adapter";
// Imported, not read at run time, so that the compiled binary (which has no node_modules) carries it.
import socketIoAdapterPackage from "socket.io-adapter/package.json" with { type: "json" };

/**
 * Every use Hearth makes of socket.io-adapter's non-public members, and only here
 * (docs/architecture.md, "Dependency internals"). The package is pinned exactly; each member
 * below has a contract test (test/gateway/socket-io-adapter-internals.test.ts) that names it
 * and the installed version when an upgrade changes it.
 *
 * - `Adapter._encode` and `Adapter.apply` (private), and `Adapter.encoder` (private): every
 *   adapter class (the in-memory one, Hearth's ResumableAdapter, the cluster adapters) delivers
 *   to this node's sockets through `Adapter.broadcast`, which encodes the packet with
 *   `_encode` and then loops over the receivers with `apply`. The native fan-out
 *   (src/gateway/native-fanout.ts) takes those two steps over on the adapter instance: the
 *   packet is encoded once by the adapter's own encoder and published by Bun.
 * - `ClusterAdapter.uid` (protected), `ClusterAdapter.publishAndReturnOffset` (protected),
 *   `ClusterAdapter.addOffsetIfNecessary` (private) and the options' wire form
 *   (`encodeOptions`, not exported):
 *   in cluster mode each node delivers its own broadcasts, joins, leaves and disconnects when
 *   it reads them back from the stream (src/gateway/stream-order.ts), so the node counts its
 *   publishes, recognises its own messages and gives a broadcast its offset as the adapter does.
 */

/** The installed version, for the contract tests' messages. */
export const SOCKET_IO_ADAPTER_VERSION = socketIoAdapterPackage.version;

/** A Socket.IO packet as the adapter's `broadcast` gets it. */
export interface EventPacket {
  type: number;
  data: unknown[];
  id?: number;
}

/** The options `Adapter.broadcast` gives each receiver's write. */
export interface PacketOptions {
  preEncoded: boolean;
  volatile?: boolean;
  compress?: boolean;
}

/** What takes over an adapter's local delivery. */
interface LocalDeliveryHook {
  /** Whether this packet's local delivery is taken over; the adapter's own steps deliver the others. */
  takes(packet: EventPacket): boolean;
  /** Delivers a taken packet, given the one text frame its encoder made (the Socket.IO packet, without Engine.IO's "4"). */
  deliver(opts: BroadcastOptions, packet: EventPacket, text: string, packetOpts: PacketOptions): void;
}

interface AdapterInternals {
  _encode(packet: EventPacket, packetOpts: PacketOptions): unknown[];
  apply(opts: BroadcastOptions, callback: (socket: unknown) => void): void;
  readonly encoder: { encode(packet: EventPacket): unknown[] };
}

/**
 * Takes over `adapter`'s delivery to this node's sockets (`_encode`, then `apply`, in one
 * synchronous `broadcast`): a packet `hook.takes` is encoded by the adapter's encoder (without
 * the precomputed `ws` frame, which Bun does not use) and handed to `hook.deliver` instead of
 * the per-socket loop, unless the encoder made more than one text part (binary attachments).
 * Every other use of `apply` (fetchSockets, addSockets, ...) is the adapter's own.
 */
export function takeOverLocalDelivery(adapter: object, hook: LocalDeliveryHook): void {
  const internals = adapter as AdapterInternals;
  const encode = internals._encode;
  const apply = internals.apply;
  /** Set by `_encode`, taken by the `apply` right after it. */
  let taken: { packet: EventPacket; text: string; packetOpts: PacketOptions } | null = null;
  internals._encode = function (this: AdapterInternals, packet, packetOpts) {
    if (!hook.takes(packet)) {
      taken = null;
      return encode.call(this, packet, packetOpts);
    }
    const encoded = this.encoder.encode(packet);
    taken = encoded.length === 1 && typeof encoded[0] === "string" ? { packet, text: encoded[0], packetOpts } : null;
    return encoded;
  };
  internals.apply = function (this: AdapterInternals, opts, callback) {
    const delivery = taken;
    taken = null;
    if (delivery) hook.deliver(opts, delivery.packet, delivery.text, delivery.packetOpts);
    else apply.call(this, opts, callback);
  };
}

/** Broadcast options as a cluster message carries them (socket.io-adapter's `encodeOptions`). */
export interface EncodedOptions {
  rooms: string[];
  except: string[];
  flags: BroadcastOptions["flags"];
}
export const encodeOptions = (opts: BroadcastOptions): EncodedOptions => ({ rooms: [...opts.rooms], except: [...(opts.except ?? [])], flags: opts.flags });
export const decodeOptions = (opts: EncodedOptions): BroadcastOptions => ({ rooms: new Set(opts.rooms), except: new Set(opts.except), flags: opts.flags });

/** A message a cluster adapter publishes (its `nsp` and `uid` are added by the adapter). */
interface ClusterMessage {
  type: number;
  data: unknown;
}

interface ClusterInternals {
  readonly uid: string;
  publishAndReturnOffset(message: ClusterMessage): Promise<string>;
  addOffsetIfNecessary(packet: EventPacket, opts: BroadcastOptions, offset: string): void;
}

/** Whether `adapter` is a cluster adapter with the members used here. */
export function isClusterAdapter(adapter: object): boolean {
  const internals = adapter as Partial<ClusterInternals>;
  return typeof internals.uid === "string" && typeof internals.publishAndReturnOffset === "function" && typeof internals.addOffsetIfNecessary === "function";
}

/** This node's id in the cluster (`ClusterAdapter.uid`): its own messages carry it. */
export const clusterNodeId = (adapter: object): string => (adapter as ClusterInternals).uid;

/** Publishes a message to the cluster and answers its offset (`ClusterAdapter.publishAndReturnOffset`, as the adapter's own). */
export const publishAndReturnOffset = (adapter: object, message: ClusterMessage): Promise<string> => (adapter as ClusterInternals).publishAndReturnOffset(message);

/** Wraps every publish of the adapter (its own and this module's callers'): `around` gets the message and the adapter's publish. */
export function aroundPublish(adapter: object, around: (message: ClusterMessage, publish: (message: ClusterMessage) => Promise<string>) => Promise<string>): void {
  const internals = adapter as ClusterInternals;
  const publish = internals.publishAndReturnOffset;
  internals.publishAndReturnOffset = function (this: ClusterInternals, message) {
    return around(message, (m) => publish.call(this, m));
  };
}

/** Gives a broadcast its offset as the cluster adapter does when it delivers one (`ClusterAdapter.addOffsetIfNecessary`). */
export const addOffsetIfNecessary = (adapter: object, packet: EventPacket, opts: BroadcastOptions, offset: string): void =>
  (adapter as ClusterInternals).addOffsetIfNecessary(packet, opts, offset);
