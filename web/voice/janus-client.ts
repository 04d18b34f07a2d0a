/**
 * Janus's API over WebSocket (https://janus.conf.meetecho.com/docs/rest.html, the `janus-protocol`
 * subprotocol), as much of it as a VideoRoom page needs: a session made with the join's token,
 * kept alive, plugin handles, requests answered at once (`success`) or later (`ack`, then an
 * `event` with the same transaction), trickled candidates, and the events Janus sends unasked.
 */

const KEEPALIVE_MS = 25_000;
const REQUEST_TIMEOUT_MS = 10_000;

type Jsep = RTCSessionDescriptionInit;
/** A plugin's answer or event: its `plugindata.data`, and a JSEP when it carries one. */
export interface PluginMessage {
  data: Record<string, unknown>;
  jsep?: Jsep;
}

interface JanusMessage {
  janus: string;
  transaction?: string;
  session_id?: number;
  sender?: number;
  data?: { id?: number };
  plugindata?: { data?: Record<string, unknown> };
  jsep?: Jsep;
  error?: { code?: number; reason?: string };
}

interface Pending {
  resolve(message: JanusMessage): void;
  reject(error: Error): void;
  /** An `ack` is not the answer: the plugin's event is. */
  waitForEvent: boolean;
}

export class JanusConnection {
  private readonly pending = new Map<string, Pending>();
  private readonly handles = new Map<number, JanusHandle>();
  private transactions = 0;
  private sessionId = 0;
  private keepalive: ReturnType<typeof setInterval> | null = null;
  private closedByUs = false;
  /** The connection ended without `close()`: Janus went away, or dropped the session. */
  onLost: (() => void) | null = null;

  private constructor(
    private readonly socket: WebSocket,
    private readonly token: string,
  ) {
    socket.onmessage = (event) => this.receive(JSON.parse(String(event.data)) as JanusMessage);
    socket.onclose = () => this.ended();
  }

  /** Connects and makes a session with `token`. */
  static async open(url: string, token: string): Promise<JanusConnection> {
    const socket = new WebSocket(url, "janus-protocol");
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error(`Could not reach the voice media server (${url})`));
    });
    const connection = new JanusConnection(socket, token);
    const created = await connection.send({ janus: "create" });
    connection.sessionId = created.data?.id ?? 0;
    connection.keepalive = setInterval(() => void connection.send({ janus: "keepalive" }).catch(() => {}), KEEPALIVE_MS);
    return connection;
  }

  /** A handle on the VideoRoom plugin. */
  async attach(): Promise<JanusHandle> {
    const attached = await this.send({ janus: "attach", plugin: "janus.plugin.videoroom" });
    const handle = new JanusHandle(this, attached.data?.id ?? 0);
    this.handles.set(handle.id, handle);
    return handle;
  }

  /** @internal A request of the session (or of a handle), answered by Janus. */
  send(body: Record<string, unknown>, waitForEvent = false): Promise<JanusMessage> {
    const transaction = `t${++this.transactions}`;
    const message = { ...body, transaction, token: this.token, ...(this.sessionId ? { session_id: this.sessionId } : {}) };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new Error(`The voice media server did not answer ${String(body.janus)}`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(transaction, {
        resolve: (answer) => (clearTimeout(timer), resolve(answer)),
        reject: (error) => (clearTimeout(timer), reject(error)),
        waitForEvent,
      });
      if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
      else this.pending.get(transaction)?.reject(new Error("The voice media server connection is closed"));
    });
  }

  private receive(message: JanusMessage): void {
    const waiting = message.transaction ? this.pending.get(message.transaction) : undefined;
    if (waiting && !(message.janus === "ack" && waiting.waitForEvent)) {
      this.pending.delete(message.transaction!);
      if (message.janus === "error") waiting.reject(new Error(message.error?.reason ?? "The voice media server refused a request"));
      else if (message.plugindata?.data && typeof message.plugindata.data.error === "string") waiting.reject(new Error(message.plugindata.data.error));
      else waiting.resolve(message);
      return;
    }
    if (waiting) return;
    const handle = message.sender === undefined ? undefined : this.handles.get(message.sender);
    if (message.janus === "event" && handle) handle.onEvent?.({ data: message.plugindata?.data ?? {}, jsep: message.jsep });
    else if ((message.janus === "hangup" || message.janus === "detached") && handle) handle.onHangup?.();
    else if (message.janus === "timeout") this.ended();
  }

  private ended(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
    for (const waiting of this.pending.values()) waiting.reject(new Error("The voice media server connection closed"));
    this.pending.clear();
    if (!this.closedByUs) {
      this.closedByUs = true;
      this.onLost?.();
    }
  }

  close(): void {
    if (this.closedByUs) return;
    this.closedByUs = true;
    if (this.socket.readyState === WebSocket.OPEN) void this.send({ janus: "destroy" }).catch(() => {});
    this.socket.close();
    this.ended();
  }
}

export class JanusHandle {
  /** Events of the plugin that answer no request of ours (publishers arriving, leaving). */
  onEvent: ((message: PluginMessage) => void) | null = null;
  /** Janus closed this handle's peer connection. */
  onHangup: (() => void) | null = null;

  constructor(
    private readonly connection: JanusConnection,
    readonly id: number,
  ) {}

  /** A VideoRoom request; resolves with the plugin's answer (or, for asynchronous ones, its event). */
  async request(body: Record<string, unknown>, jsep?: Jsep): Promise<PluginMessage> {
    const answer = await this.connection.send({ janus: "message", handle_id: this.id, body, ...(jsep ? { jsep } : {}) }, true);
    return { data: answer.plugindata?.data ?? {}, jsep: answer.jsep };
  }

  trickle(candidate: RTCIceCandidateInit | null): void {
    void this.connection.send({ janus: "trickle", handle_id: this.id, candidate: candidate ?? { completed: true } }).catch(() => {});
  }
}
