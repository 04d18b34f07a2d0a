import { PNG_1X1 } from "./images.ts";
import type { TestServer, TestUser } from "./server.ts";
import { letTimePass } from "./wait.ts";

/** What the stand-in provider received. */
interface ProviderRequest {
  path: string;
  authorization: string | null;
  body: { model: string; stream: boolean; messages: { role: string; content: unknown }[] };
  /** Resolves when the client went away (aborted) before the answer ended. */
  aborted: Promise<void>;
  wasAborted: () => boolean;
}

/** Text every provider error carries: it must never reach a Hearth client. */
export const PROVIDER_SECRET_PAYLOAD = "provider-internal-detail-7731";

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

/**
 * A real local HTTP server that speaks the OpenAI streaming chat-completions format. The model
 * name picks the behaviour:
 * - `fast` (and any unknown name): "Hello", ", ", "world", "!" then `[DONE]`
 * - `slow`: "tick " every 50 ms, 200 times (for cancel)
 * - `stall`: one "partial" chunk, then silence (idle timeout mid-stream)
 * - `hang`: never answers at all (timeout before the headers)
 * - `error500` / `busy429`: that status with a JSON body holding the key and a secret
 * - `malformed`: one good chunk, then `data: {not json`
 * - `midstream-error`: one good chunk, then an OpenAI error object
 * - `truncated`: one chunk, then the body ends without `[DONE]` or a finish reason
 * - `image`: "Here:" and a generated PNG as a data URL in `delta.images`
 * - `json`: ignores `stream` and answers one JSON completion
 * - `crlf`: the fast reply with \r\n line ends, split at awkward places
 * - `echo`: replies with the number of messages it was sent
 */
export function startFakeProvider() {
  const requests: ProviderRequest[] = [];
  const encoder = new TextEncoder();

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = (await req.json()) as ProviderRequest["body"];
      let aborted = false;
      let onAbort!: () => void;
      const abortedPromise = new Promise<void>((resolve) => (onAbort = resolve));
      req.signal.addEventListener("abort", () => {
        aborted = true;
        onAbort();
      });
      requests.push({ path: url.pathname, authorization: req.headers.get("authorization"), body, aborted: abortedPromise, wasAborted: () => aborted });
      if (url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });

      const sse = (produce: (push: (text: string) => void, close: () => void) => void | Promise<void>) =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              let closed = false;
              const push = (text: string) => {
                if (!closed && !aborted) controller.enqueue(encoder.encode(text));
              };
              const close = () => {
                if (closed) return;
                closed = true;
                controller.close();
              };
              await produce(push, close);
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      const failure = (status: number) =>
        Response.json(
          { error: { message: `Bad key ${req.headers.get("authorization")} ${PROVIDER_SECRET_PAYLOAD}`, type: "server_error" } },
          { status },
        );

      switch (body.model) {
        case "slow":
          return sse(async (push, close) => {
            for (let i = 0; i < 200 && !aborted; i++) {
              push(chunk("tick "));
              await letTimePass(50, "a slow provider: a chunk every 50 ms until aborted");
            }
            push("data: [DONE]\n\n");
            close();
          });
        case "stall":
          return sse((push) => push(chunk("partial")));
        case "hang":
          return new Promise<Response>(() => undefined);
        case "error500":
          return failure(500);
        case "busy429":
          return failure(429);
        case "malformed":
          return sse((push, close) => {
            push(chunk("Half"));
            push(`data: {not json ${PROVIDER_SECRET_PAYLOAD}\n\n`);
            close();
          });
        case "midstream-error":
          return sse((push, close) => {
            push(chunk("Half"));
            push(`data: ${JSON.stringify({ error: { message: `quota exceeded ${PROVIDER_SECRET_PAYLOAD}` } })}\n\n`);
            close();
          });
        case "truncated":
          return sse((push, close) => {
            push(chunk("Cut"));
            close();
          });
        case "image":
          return sse((push, close) => {
            push(chunk("Here:"));
            const image = { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(PNG_1X1).toString("base64")}` } };
            push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { images: [image] }, finish_reason: "stop" }] })}\n\n`);
            push("data: [DONE]\n\n");
            close();
          });
        case "json":
          return Response.json({ choices: [{ index: 0, message: { role: "assistant", content: "Whole answer" }, finish_reason: "stop" }] });
        case "crlf":
          return sse(async (push, close) => {
            const text = [chunk("Hello"), chunk(", world", "stop"), "data: [DONE]\n\n"].join("").replaceAll("\n", "\r\n");
            // Cut inside "data:", and between a "\r" and its "\n".
            const first = text.indexOf("\r\n");
            let from = 0;
            for (const cut of [3, first + 1, first + 2, text.length]) {
              push(text.slice(from, cut));
              from = cut;
              await letTimePass(5, "each cut arrives in a read of its own");
            }
            close();
          });
        case "echo":
          return sse((push, close) => {
            push(chunk(`messages=${body.messages.length}`, "stop"));
            push("data: [DONE]\n\n");
            close();
          });
        default:
          return sse((push, close) => {
            for (const piece of ["Hello", ", ", "world", "!"]) push(chunk(piece));
            push(chunk("", "stop"));
            push("data: [DONE]\n\n");
            close();
          });
      }
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    stop: () => server.stop(true),
  };
}

/** One parsed server-sent event. */
interface SseEvent {
  event: string;
  // Parsed JSON of the event; tests assert on its fields as they please.
  data: any;
}

/** A response body read as server-sent events (comments skipped). */
function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

/** Sends a turn; answers the status, headers, raw text and events (JSON body when not a stream). */
export async function sendTurn(server: TestServer, user: TestUser | null, body: unknown, prefix = "/api/v1/ai") {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (user) headers.authorization = `Bearer ${user.token}`;
  const res = await fetch(`${server.url}${prefix}/chat`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  const isStream = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  return {
    status: res.status,
    headers: res.headers,
    text,
    events: isStream ? parseSse(text) : [],
    // A JSON error or answer, read field by field by the tests.
    body: isStream ? null : (JSON.parse(text) as any),
  };
}

/** A turn whose stream is read as it arrives: `next(name)` waits for the next event of that name. */
export async function openTurn(server: TestServer, user: TestUser, body: unknown) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/v1/ai/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user.token}` },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`turn: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const seen: SseEvent[] = [];
  async function next(name: string): Promise<SseEvent> {
    for (;;) {
      const index = seen.findIndex((e) => e.event === name);
      if (index >= 0) return seen.splice(0, index + 1).at(-1)!;
      const read = await reader.read();
      if (read.done) throw new Error(`stream ended before ${name}`);
      buffer += decoder.decode(read.value, { stream: true });
      const cut = buffer.lastIndexOf("\n\n");
      if (cut >= 0) {
        seen.push(...parseSse(buffer.slice(0, cut + 2)));
        buffer = buffer.slice(cut + 2);
      }
    }
  }
  return { res, streamId: res.headers.get("x-stream-id")!, next, close: () => controller.abort() };
}

export const API_KEY = "sk-test-THIS-KEY-MUST-NEVER-LEAK-0123456789";

/** An administrator (the first account), the AI switched on, and one key serving the stand-in's models. */
export async function enableAi(server: TestServer, admin: TestUser, baseUrl: string, models: unknown[] = ["fast", "slow"]) {
  const settings = await server.api("PATCH", "/api/v1/admin/ai/settings", { token: admin.token, body: { enabled: true } });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.body)}`);
  const key = await server.api("POST", "/api/v1/admin/ai/keys", {
    token: admin.token,
    body: { name: "Stand-in", base_url: baseUrl, api_key: API_KEY, models },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${JSON.stringify(key.body)}`);
  return key.body as { id: string };
}

export async function newConversation(server: TestServer, user: TestUser, body: unknown = {}): Promise<string> {
  const res = await server.api("POST", "/api/v1/ai/conversations", { token: user.token, body });
  if (res.status !== 201) throw new Error(`conversation: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}
