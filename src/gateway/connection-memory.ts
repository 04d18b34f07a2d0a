import { createRequire } from "node:module";
import { dirname, join } from "node:path";
// After the package's index (its modules import each other in a cycle that only resolves from there).
import "@socket.io/bun-engine";
import { Socket as EngineSocketClass } from "@socket.io/bun-engine/dist/socket.js";
import { Adapter } from "socket.io-adapter";
import { ListenerTable, OneEntryMap, SmallSet } from "./small-maps.ts";

/**
 * What an idle connection costs inside Socket.IO and @socket.io/bun-engine, made smaller
 * without changing what they do (docs/gateway.md, "Memory per connection"; the heap snapshot
 * behind it: bench/README.md, "Idle gateway connections").
 *
 * Per connection, Socket.IO's `Client` bound four of its methods (`ondata`, `onerror`,
 * `onclose`, `ondecoded`: a bound function is ~130 bytes in JSC) and kept two `Map`s of one
 * entry each; the engine's socket made four closures for its transport's events (and a scope
 * for them), and both kept their listeners in a `Map`. Here:
 * - `Client.setup` registers one function per event shared by every client: the engine socket
 *   and the decoder carry a reference to their client (`CLIENT`) and the function finds it
 *   there, or is called on the client itself (src/audio/native-relay.ts calls
 *   `client.ondata(...)` and swaps it on the connection, as before);
 * - `Client.sockets` / `Client.nsps` are `OneEntryMap`s, the engine emitters' `_listeners`
 *   `ListenerTable`s (src/gateway/small-maps.ts);
 * - `Socket.bindTransport` (the engine's) registers shared functions that reach the engine
 *   socket through the transport (`OWNER`), and its ping timers take the socket as an
 *   argument (no closure), without keeping the last answered ping's timer;
 * - the in-memory adapter's `addAll` (socket.io-adapter's, under every adapter Hearth uses)
 *   makes its room sets `SmallSet`s: every socket has two (its list of rooms, and the room of
 *   its own id), ~300 bytes each as `Set`s.
 * The replacements are the same code as the originals otherwise (socket.io 4.8.4,
 * @socket.io/bun-engine 0.1.2, socket.io-adapter 2.5.8, all pinned exactly), installed once
 * per process; the versions are checked, and with any other version nothing is replaced.
 */

/** On an engine socket and a decoder: the Socket.IO client they belong to. */
const CLIENT = Symbol("hearth.client");
/** On a transport: the engine socket it is bound to. */
const OWNER = Symbol("hearth.owner");

type Listener = (...args: unknown[]) => void;
interface Emitter {
  on(event: string, listener: Listener): unknown;
  once(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  removeListener(event: string, listener: Listener): unknown;
}
interface EngineEmitter extends Emitter {
  _listeners: Map<string, Listener[]> | ListenerTable<Listener>;
}
interface IoClient {
  conn: EngineEmitter & { [CLIENT]?: IoClient };
  decoder: Emitter & { [CLIENT]?: IoClient };
  server: { _connectTimeout: number };
  nsps: Map<string, unknown> | OneEntryMap<string, unknown>;
  sockets: Map<string, unknown> | OneEntryMap<string, unknown>;
  connectTimeout?: ReturnType<typeof setTimeout>;
  ondata: Listener;
  onerror: Listener;
  onclose: Listener;
  ondecoded: Listener;
  close(): void;
}
interface EngineSocket extends EngineEmitter {
  transport: Transport;
  opts: { pingInterval: number; pingTimeout: number };
  pingIntervalTimer?: ReturnType<typeof setTimeout>;
  pingTimeoutTimer?: ReturnType<typeof setTimeout>;
  sendPacket(type: "ping"): void;
  resetPingTimeout(): void;
  onError(error: unknown): void;
  onPacket(packet: unknown): void;
  onClose(reason: string): void;
  flush(): void;
}
interface Transport extends EngineEmitter {
  [OWNER]?: EngineSocket;
}

const require = createRequire(import.meta.url);
const socketIoDist = dirname(require.resolve("socket.io"));
const versionOf = (pkg: string): string => (require(`${pkg}/package.json`) as { version: string }).version;

/** An engine emitter's listeners in a `ListenerTable` (once per emitter). */
function compactListeners(emitter: EngineEmitter): void {
  if (emitter._listeners instanceof Map) emitter._listeners = new ListenerTable(emitter._listeners);
}

function shareClientListeners(): void {
  if (versionOf("socket.io") !== "4.8.4") return;
  const { Client } = require(join(socketIoDist, "client.js")) as { Client: { prototype: IoClient & { setup(): void } } };
  const proto = Client.prototype;
  const { ondata, onerror, onclose, ondecoded } = proto;
  // `this` is the emitter the listener was registered on (engine socket, decoder), or the client.
  const clientOf = (self: unknown): IoClient => (self as { [CLIENT]?: IoClient })[CLIENT] ?? (self as IoClient);
  const shared: Pick<IoClient, "ondata" | "onerror" | "onclose" | "ondecoded"> = {
    ondata(this: unknown, ...args: unknown[]) {
      ondata.apply(clientOf(this), args);
    },
    onerror(this: unknown, ...args: unknown[]) {
      onerror.apply(clientOf(this), args);
    },
    onclose(this: unknown, ...args: unknown[]) {
      onclose.apply(clientOf(this), args);
    },
    ondecoded(this: unknown, ...args: unknown[]) {
      ondecoded.apply(clientOf(this), args);
    },
  };
  // socket.io 4.8.4's `setup`, with the shared functions instead of bound ones.
  proto.setup = function setup(this: IoClient) {
    this.sockets = new OneEntryMap();
    this.nsps = new OneEntryMap();
    this.conn[CLIENT] = this;
    this.decoder[CLIENT] = this;
    this.onclose = shared.onclose;
    this.ondata = shared.ondata;
    this.onerror = shared.onerror;
    this.ondecoded = shared.ondecoded;
    this.decoder.on("decoded", this.ondecoded);
    this.conn.on("data", this.ondata);
    this.conn.on("error", this.onerror);
    this.conn.on("close", this.onclose);
    this.connectTimeout = setTimeout(() => {
      if (this.nsps.size === 0) this.close();
    }, this.server._connectTimeout);
  };
}

function shareTransportListeners(): void {
  if (versionOf("@socket.io/bun-engine") !== "0.1.2") return;
  const proto = EngineSocketClass.prototype as unknown as EngineSocket & { bindTransport(transport: Transport): void; schedulePing(): void };
  function onTransportError(this: Transport, error: unknown) {
    // Once, as the engine's own `once("error", ...)`.
    this.off("error", onTransportError);
    this[OWNER]?.onError(error);
  }
  function onTransportPacket(this: Transport, packet: unknown) {
    this[OWNER]?.onPacket(packet);
  }
  function onTransportDrain(this: Transport) {
    this[OWNER]?.flush();
  }
  function onTransportClose(this: Transport) {
    this[OWNER]?.onClose("transport close");
  }
  // @socket.io/bun-engine 0.1.2's `bindTransport`, with shared listeners instead of closures.
  proto.bindTransport = function bindTransport(this: EngineSocket, transport: Transport) {
    compactListeners(this);
    compactListeners(transport);
    this.transport = transport;
    transport[OWNER] = this;
    transport.on("error", onTransportError as Listener);
    transport.on("packet", onTransportPacket as Listener);
    transport.on("drain", onTransportDrain as Listener);
    transport.on("close", onTransportClose as Listener);
  };

  function sendPing(socket: EngineSocket) {
    socket.sendPacket("ping");
    socket.resetPingTimeout();
  }
  function pingTimedOut(socket: EngineSocket) {
    socket.onClose("ping timeout");
  }
  // The engine's ping timers, given the socket as an argument instead of a closure over it. The
  // engine called `schedulePing` at open and on each pong (having just cleared the ping-timeout
  // timer); it refreshed the interval timer but kept the cleared timeout timer referenced until
  // the next ping, a second timer per idle connection. Here that reference is dropped.
  proto.schedulePing = function schedulePing(this: EngineSocket) {
    if (this.pingIntervalTimer) {
      this.pingTimeoutTimer = undefined;
      this.pingIntervalTimer.refresh();
      return;
    }
    this.pingIntervalTimer = setTimeout(sendPing, this.opts.pingInterval, this);
  };
  proto.resetPingTimeout = function resetPingTimeout(this: EngineSocket) {
    clearTimeout(this.pingTimeoutTimer);
    this.pingTimeoutTimer = setTimeout(pingTimedOut, this.opts.pingTimeout, this);
  };
}

interface RoomsAdapter {
  rooms: Map<string, Set<string> | SmallSet<string>>;
  sids: Map<string, Set<string> | SmallSet<string>>;
  emit(event: "create-room", room: string): boolean;
  emit(event: "join-room", room: string, id: string): boolean;
}

function smallRoomSets(): void {
  if (versionOf("socket.io-adapter") !== "2.5.8") return;
  // socket.io-adapter 2.5.8's `addAll`, with `SmallSet`s for new sets (socket.io's own uWS
  // support wraps the same method the same way).
  (Adapter.prototype as unknown as { addAll(id: string, rooms: Set<string>): void }).addAll = function addAll(this: RoomsAdapter, id: string, rooms: Set<string>) {
    let mine = this.sids.get(id);
    if (!mine) this.sids.set(id, (mine = new SmallSet()));
    for (const room of rooms) {
      mine.add(room);
      let members = this.rooms.get(room);
      if (!members) {
        this.rooms.set(room, (members = new SmallSet()));
        this.emit("create-room", room);
      }
      if (!members.has(id)) {
        members.add(id);
        this.emit("join-room", room, id);
      }
    }
  };
}

let installed = false;

/** Installs the smaller per-connection state in Socket.IO and the engine (once per process). */
export function slimConnectionState(): void {
  if (installed) return;
  installed = true;
  shareClientListeners();
  shareTransportListeners();
  smallRoomSets();
}
