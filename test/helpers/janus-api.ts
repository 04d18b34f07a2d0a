/**
 * The two Janus APIs as the tests speak them: the Admin API over HTTP (one POST a request,
 * `admin_secret` added) and the Janus API over WebSocket (subprotocol "janus-protocol",
 * requests matched to replies by `transaction`; a plugin's asynchronous answer comes after an
 * `ack` and is what `request` resolves with).
 */
import type { Janus } from "./janus.ts";

/** A Janus reply: `janus` is its kind ("success", "error", "event", ...), the rest depends on it. */
export type JanusReply = { janus: string; transaction?: string; error?: { code: number; reason: string }; data?: Record<string, unknown>; plugindata?: { plugin: string; data: Record<string, unknown> }; response?: Record<string, unknown> } & Record<string, unknown>;

/** One Admin API request, `admin_secret` (the Janus's secret unless given) and a transaction added. */
export async function adminRequest(janus: Janus, body: Record<string, unknown>): Promise<JanusReply> {
  const response = await fetch(janus.adminUrl, {
    method: "POST",
    body: JSON.stringify({ admin_secret: janus.secret, transaction: crypto.randomUUID(), ...body }),
    signal: AbortSignal.timeout(5000),
  });
  return (await response.json()) as JanusReply;
}

/** A VideoRoom request through the Admin API's `message_plugin` (no session needed); resolves with the plugin's response. */
export async function videoroomAdmin(janus: Janus, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await adminRequest(janus, { janus: "message_plugin", plugin: "janus.plugin.videoroom", request });
  if (reply.janus !== "success" || !reply.response) throw new Error(`message_plugin failed: ${JSON.stringify(reply)}`);
  return reply.response;
}

export interface JanusSocket {
  /** Sends `body` with a new transaction and resolves with its reply (skipping an `ack`). */
  request(body: Record<string, unknown>): Promise<JanusReply>;
  close(): void;
}

export function openJanusSocket(url: string): Promise<JanusSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, "janus-protocol");
    const waiting = new Map<string, (reply: JanusReply) => void>();
    socket.onmessage = (event) => {
      const reply = JSON.parse(String(event.data)) as JanusReply;
      if (reply.janus === "ack" || !reply.transaction) return;
      waiting.get(reply.transaction)?.(reply);
      waiting.delete(reply.transaction);
    };
    socket.onerror = () => reject(new Error(`could not open ${url}`));
    socket.onopen = () =>
      resolve({
        request(body) {
          const transaction = crypto.randomUUID();
          return new Promise((done, failed) => {
            const timer = setTimeout(() => failed(new Error(`no reply to ${JSON.stringify(body)}`)), 5000);
            waiting.set(transaction, (reply) => (clearTimeout(timer), done(reply)));
            socket.send(JSON.stringify({ ...body, transaction }));
          });
        },
        close: () => socket.close(),
      });
  });
}

/** Whether Janus at `url` opens a session with `token` (what a page joining the room does first). */
export async function opensSession(url: string, token: string): Promise<boolean> {
  const socket = await openJanusSocket(url);
  try {
    return (await socket.request({ janus: "create", token })).janus === "success";
  } finally {
    socket.close();
  }
}
