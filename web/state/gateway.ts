/**
 * The app's Socket.IO connection to Hearth's gateway (same origin, `auth.token`). It asks to
 * resume (`auth.resume`, docs/gateway.md "Resume"): after a dropped connection the server gives
 * back the socket's rooms and replays the events it missed, so nothing is fetched again; only a
 * reconnect that did not resume calls `onReconnect` (reload over REST). It remembers the server
 * and channel rooms the app wants and joins them again after every reconnect (and leaves those
 * the app let go of while away, which a resumed session still holds), and reports an
 * `Unauthorized` refusal so the app can return to the login page.
 */
import { signal } from "@preact/signals";
import { io, type Socket } from "socket.io-client";

export type Ack<T = Record<string, unknown>> = ({ ok: true } & T) | { ok: false; error: string };

type Listener = (payload: any) => void;

export class Gateway {
  private socket: Socket | null = null;
  private readonly servers = new Set<string>();
  private readonly channels = new Set<string>();
  /** Rooms left while disconnected: a resumed session still holds them. */
  private readonly leftWhileAway = { servers: new Set<string>(), channels: new Set<string>() };
  private readonly listeners = new Map<string, Set<Listener>>();
  /** True while connected; false before the first connection and while reconnecting. */
  readonly connected = signal(false);
  /** Called after a reconnection that did not resume (not the first connection), to refetch what may have been missed. */
  onReconnect: () => void = () => {};

  constructor(private readonly onUnauthorized: () => void) {}

  connect(token: string): void {
    this.disconnect();
    let everConnected = false;
    const socket = io({ auth: { token, resume: true }, transports: ["websocket", "polling"], tryAllTransports: true });
    this.socket = socket;
    socket.on("connect", () => {
      this.connected.value = true;
      if (socket.recovered) {
        for (const id of this.leftWhileAway.servers) socket.emit("server:leave", id);
        for (const id of this.leftWhileAway.channels) socket.emit("channel:leave", id);
      }
      this.leftWhileAway.servers.clear();
      this.leftWhileAway.channels.clear();
      // Joining a room the socket is in is a no-op; a resumed socket lacks only those added while away.
      for (const id of this.servers) socket.emit("server:join", id);
      for (const id of this.channels) socket.emit("channel:join", id);
      if (everConnected && !socket.recovered) this.onReconnect();
      everConnected = true;
    });
    socket.on("disconnect", (reason) => {
      this.connected.value = false;
      // The server closed us on purpose (tokens revoked): try again; a refused token ends in connect_error.
      if (reason === "io server disconnect") socket.connect();
    });
    socket.on("connect_error", (error) => {
      if (error.message === "Unauthorized") {
        this.disconnect();
        this.onUnauthorized();
      }
    });
    socket.onAny((event: string, payload: unknown) => {
      for (const listener of this.listeners.get(event) ?? []) listener(payload);
    });
  }

  disconnect(): void {
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.socket = null;
    this.connected.value = false;
    this.leftWhileAway.servers.clear();
    this.leftWhileAway.channels.clear();
  }

  /** Subscribes to a server event; returns the unsubscribe function. */
  on(event: string, listener: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  joinServer(serverId: string): void {
    if (this.servers.has(serverId)) return;
    this.servers.add(serverId);
    this.leftWhileAway.servers.delete(serverId);
    if (this.socket?.connected) this.socket.emit("server:join", serverId);
  }

  leaveServer(serverId: string): void {
    if (!this.servers.delete(serverId)) return;
    if (this.socket?.connected) this.socket.emit("server:leave", serverId);
    else this.leftWhileAway.servers.add(serverId);
  }

  joinChannel(channelId: string): void {
    if (this.channels.has(channelId)) return;
    this.channels.add(channelId);
    this.leftWhileAway.channels.delete(channelId);
    if (this.socket?.connected) this.socket.emit("channel:join", channelId);
  }

  leaveChannel(channelId: string): void {
    if (!this.channels.delete(channelId)) return;
    if (this.socket?.connected) this.socket.emit("channel:leave", channelId);
    else this.leftWhileAway.channels.add(channelId);
  }

  /** Emits without waiting for an answer (typing). Dropped while disconnected. */
  emit(event: string, payload: unknown): void {
    if (this.socket?.connected) this.socket.emit(event, payload);
  }

  /** Emits and waits for the ack; a timeout or a lost connection is an `{ok: false}` ack. */
  async request<T = Record<string, unknown>>(event: string, payload: unknown, timeoutMs = 10_000): Promise<Ack<T>> {
    if (!this.socket?.connected) return { ok: false, error: "Not connected to the server. Try again in a moment." };
    try {
      return (await this.socket.timeout(timeoutMs).emitWithAck(event, payload)) as Ack<T>;
    } catch {
      return { ok: false, error: "The server did not answer in time." };
    }
  }
}
