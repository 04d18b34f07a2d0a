/**
 * The OpenAI-compatible chat-completions client of the AI assistant (docs/ai.md#providers):
 * `POST {base_url}/chat/completions` with `stream: true`, read as server-sent events
 * (`data: {...}` chunks, `data: [DONE]`). Hosted services and local servers (llama.cpp,
 * vLLM, Ollama's OpenAI endpoint) speak it alike.
 *
 * Failures are reported as a kind, never with the provider's payload, URL or key: the
 * caller turns the kind into a fixed, friendly message.
 */

export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export interface ProviderMessage {
  role: "system" | "user" | "assistant";
  content: string | ContentPart[];
}

interface ProviderTarget {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; empty sends no Authorization header (local servers). */
  apiKey: string;
  model: string;
}

type ProviderChunk = { type: "delta"; content: string } | { type: "image"; url: string };

/**
 * `timeout`: silent for longer than the idle timeout; `http`: a non-2xx answer; `malformed`: a
 * body that is not the streaming format (or a stream that ended without finishing);
 * `unreachable`: no connection; `cancelled`: the caller aborted.
 */
type ProviderFailureKind = "timeout" | "http" | "malformed" | "unreachable" | "cancelled";

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    /** The provider's HTTP status, for `http`. */
    readonly status: number | null = null,
  ) {
    super(`AI provider failure: ${kind}${status === null ? "" : ` (${status})`}`);
    this.name = "ProviderError";
  }
}

/** A non-streamed JSON answer larger than this is refused. */
const MAX_JSON_ANSWER_BYTES = 4 * 1024 * 1024;
/** One server-sent event larger than this is malformed (a stream never stops otherwise). */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** `{base_url}/chat/completions`, whatever trailing slashes the base URL has. */
export const completionsUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}/chat/completions`;

/**
 * Streams one chat completion. `idleTimeoutMs` bounds the wait for the answer and every gap
 * between chunks. Aborting `signal` (or returning from the loop) aborts the HTTP request.
 */
export async function* streamChatCompletion(
  target: ProviderTarget,
  messages: ProviderMessage[],
  options: { signal: AbortSignal; idleTimeoutMs: number },
): AsyncGenerator<ProviderChunk> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
  };
  const signal = AbortSignal.any([options.signal, idle.signal]);
  /** What an exception from fetch or a read means. */
  const failure = (fallback: ProviderFailureKind) =>
    new ProviderError(options.signal.aborted ? "cancelled" : idle.signal.aborted ? "timeout" : fallback);

  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  let response: Response;
  try {
    response = await fetch(completionsUrl(target.baseUrl), {
      method: "POST",
      headers,
      body: JSON.stringify({ model: target.model, messages, stream: true }),
      signal,
      redirect: "error",
    });
  } catch {
    clearTimeout(timer);
    throw failure("unreachable");
  }
  try {
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ProviderError("http", response.status);
    }
    rearm();
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    // Some servers ignore `stream: true` and answer one JSON completion.
    if (type.startsWith("application/json")) {
      yield* jsonAnswer(response, failure);
      return;
    }
    yield* eventStream(response, rearm, failure);
  } finally {
    clearTimeout(timer);
    // Ends the HTTP request when the caller stops early or something failed.
    if (!signal.aborted) idle.abort();
  }
}

async function* jsonAnswer(response: Response, failure: (k: ProviderFailureKind) => ProviderError): AsyncGenerator<ProviderChunk> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw failure("malformed");
  }
  if (text.length > MAX_JSON_ANSWER_BYTES) throw new ProviderError("malformed");
  const parsed = parseJson(text);
  const content = firstChoice(parsed)?.message;
  const value = isRecord(content) ? content.content : undefined;
  if (typeof value !== "string") throw new ProviderError("malformed");
  if (value) yield { type: "delta", content: value };
}

async function* eventStream(
  response: Response,
  rearm: () => void,
  failure: (k: ProviderFailureKind) => ProviderError,
): AsyncGenerator<ProviderChunk> {
  if (!response.body) throw new ProviderError("malformed");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let finished = false;
  let sawFinishReason = false;

  /** One complete event's data: `[DONE]`, or a chunk whose first choice carries the delta. */
  function* dispatch(): Generator<ProviderChunk> {
    const payload = data.join("\n");
    data = [];
    if (payload === "") return;
    if (payload.trim() === "[DONE]") {
      finished = true;
      return;
    }
    const chunk = parseJson(payload);
    if (!isRecord(chunk)) throw new ProviderError("malformed");
    // An error object mid-stream (its text is the provider's, so it is not passed on).
    if (chunk.error !== undefined && chunk.error !== null) throw new ProviderError("http");
    const choice = firstChoice(chunk);
    if (!choice) return; // e.g. a usage-only chunk
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) sawFinishReason = true;
    const delta = choice.delta;
    if (delta === undefined || delta === null) return;
    if (!isRecord(delta)) throw new ProviderError("malformed");
    if (typeof delta.content === "string" && delta.content !== "") yield { type: "delta", content: delta.content };
    else if (delta.content !== undefined && delta.content !== null && typeof delta.content !== "string") throw new ProviderError("malformed");
    // OpenRouter-style generated images: `delta.images: [{type: "image_url", image_url: {url}}]`.
    if (Array.isArray(delta.images)) {
      for (const image of delta.images) {
        const url = isRecord(image) && isRecord(image.image_url) ? image.image_url.url : undefined;
        if (typeof url === "string") yield { type: "image", url };
      }
    }
  }

  try {
    while (!finished) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch {
        throw failure("malformed");
      }
      if (read.done) break;
      rearm();
      buffer += decoder.decode(read.value, { stream: true });
      let newline: number;
      while (!finished && (newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A "\r" last in the buffer may be the first half of a "\r\n": wait for the next chunk.
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") yield* dispatch();
        else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        else if (line.startsWith(":") || /^(event|id|retry):/.test(line)) continue;
        else throw new ProviderError("malformed");
      }
      if (buffer.length > MAX_EVENT_CHARS || data.reduce((n, d) => n + d.length, 0) > MAX_EVENT_CHARS) throw new ProviderError("malformed");
    }
    if (!finished) {
      // The last event may lack its blank line.
      if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
      yield* dispatch();
    }
    if (!finished && !sawFinishReason) throw new ProviderError("malformed");
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError("malformed");
  }
}

function firstChoice(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body) || !Array.isArray(body.choices)) return null;
  const choice: unknown = body.choices[0];
  return isRecord(choice) ? choice : null;
}
