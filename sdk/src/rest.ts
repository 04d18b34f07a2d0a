/**
 * The REST client: every operation of the OpenAPI document, by its operationId, with the
 * document's types (generated into ./generated/rest.ts), plus the few calls a bot makes all the
 * time under short names.
 */
import { HearthApiError } from "./errors.js";
import { OPERATIONS, type Operations } from "./generated/rest.js";
import type * as S from "./generated/schemas.js";
import { fetchWithUploadProgress, type UploadProgress } from "./upload-progress.js";
import { SEND_RETRIES, sendBackoffMs, withNonce } from "./nonce.js";
import { RateLimitQueues, retryAfterMs, type PublishedRestBucket } from "./rest-buckets.js";

export type OperationId = keyof Operations;
/** What an operation takes: `params` (path), `query`, `headers`, `body`, as the document says. */
export type OperationArgs<K extends OperationId> = Operations[K]["args"];
/** What an operation answers on success (`undefined` for no content, the raw `Response` for files and streams). */
export type OperationAnswer<K extends OperationId> = Operations[K]["response"];

export interface CallOptions {
  /** Another token for this call (`null`: none), instead of the client's. */
  token?: string | null;
  signal?: AbortSignal;
  /** A multipart upload's progress, where the platform can report it (browsers: through XMLHttpRequest). */
  onUploadProgress?: (progress: UploadProgress) => void;
}

/** The arguments are optional when the operation needs none. */
export type CallArgs<K extends OperationId> = {} extends OperationArgs<K> ? [args?: OperationArgs<K> & CallOptions] : [args: OperationArgs<K> & CallOptions];

/** What the client needs of `fetch`. */
export type FetchLike = (input: URL, init: RequestInit) => Promise<Response>;

export type { UploadProgress };

export interface RestOptions {
  /** The Hearth base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * Sent as `Authorization: Bearer <token>` (a bot token, or a user token for user routes); a
   * function is asked on every call (a web page's session, which logging in and out changes).
   */
  token?: string | null | (() => string | null);
  /** Called when a call that carried a token is answered 401 (the token expired or was revoked), before the error is thrown. */
  onUnauthorized?: () => void;
  /** Another fetch (a proxy, a test that inspects answers). */
  fetch?: FetchLike;
  /**
   * Queue calls per rate-limit bucket, learned from the answers' `X-RateLimit-*` headers, and
   * send none a bucket has no room for until its reset (default true; sdk/README.md "Rate limits").
   */
  rateLimitQueue?: boolean;
  /** How many times one call's 429 is waited out and retried (default: no limit but `maxRateLimitWait`; 0: never). */
  retriesOn429?: number;
  /**
   * The longest, in milliseconds, one call waits out 429s in all (default 300,000: five
   * minutes): a 429 whose wait would go past it is thrown at once, with its `retryAfter`.
   * Waiting in a queue for a bucket's reset is not counted.
   */
  maxRateLimitWait?: number;
  /**
   * How many times a send carrying `enforce_nonce: true` (every message the SDK sends) is tried
   * again, with the same nonce, after a network error or a 5xx (default 3; 0: never). The
   * server answers a retry with the message the first try stored, so none is stored twice.
   */
  sendRetries?: number;
}

/**
 * A message a bot sends: text, embeds, or both. `nonce`: its idempotency key (a new one is made
 * when absent; give your own to retry a send across restarts of your bot).
 */
export type OutgoingMessage = { content?: string; embeds?: S.Embed[]; nonce?: string | number };

type LooseArgs = { params?: Record<string, string>; query?: Record<string, unknown>; headers?: Record<string, unknown>; body?: unknown } & CallOptions;

/** The error of a call that got no answer at all (status 0): the network, or the server down. */
const UNREACHABLE = "Cannot reach the server. Check your connection and try again.";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms).then(() => {});
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

export class RestClient {
  readonly baseUrl: string;
  private readonly token: () => string | null;
  private readonly onUnauthorized: () => void;
  private readonly fetchImpl: FetchLike;
  private readonly retriesOn429: number;
  private readonly maxRateLimitWait: number;
  private readonly sendRetries: number;
  private readonly queues: RateLimitQueues | null;

  constructor(options: RestOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const token = options.token ?? null;
    this.token = typeof token === "function" ? token : () => token;
    this.onUnauthorized = options.onUnauthorized ?? (() => {});
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.retriesOn429 = options.retriesOn429 ?? Number.POSITIVE_INFINITY;
    this.maxRateLimitWait = options.maxRateLimitWait ?? 300_000;
    this.queues = options.rateLimitQueue === false ? null : new RateLimitQueues();
    this.sendRetries = options.sendRetries ?? SEND_RETRIES;
  }

  /**
   * The instance's REST rate-limit buckets (`rest_limits` of `GET /api/v1/platform/config`;
   * `Bot.start()` reads them): which buckets are kept per channel, and the limits over several
   * buckets (the sends over all channels), which the queues then count too.
   */
  setRateLimits(published: Record<string, PublishedRestBucket>): void {
    this.queues?.setLimits(published);
  }

  /** Calls any operation of the document by its operationId: `request("getServer", {params: {id}})`. */
  async request<K extends OperationId>(operation: K, ...[args]: CallArgs<K>): Promise<OperationAnswer<K>> {
    const spec = OPERATIONS[operation] as (typeof OPERATIONS)[OperationId];
    const given = (args ?? {}) as LooseArgs;
    const path = spec.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = given.params?.[name];
      if (value === undefined || value === "") throw new TypeError(`${operation}: params.${name} is required`);
      return encodeURIComponent(value);
    });
    const url = new URL(this.baseUrl + path);
    // The server keeps some buckets apart per the route's first parameter (a send's channel).
    const firstParam = /\{([^}]+)\}/.exec(spec.path)?.[1];
    const resource = firstParam ? (given.params?.[firstParam] ?? "") : "";
    for (const [name, value] of Object.entries(given.query ?? {})) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given.headers ?? {})) if (value !== undefined && value !== null) headers[name] = String(value);
    const token = given.token === undefined ? this.token() : given.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: RequestInit["body"];
    if (given.body !== undefined) {
      if (spec.body === "multipart") body = toFormData(given.body);
      else {
        headers["content-type"] = "application/json";
        body = JSON.stringify(given.body);
      }
    }

    const send = given.onUploadProgress ? fetchWithUploadProgress(given.onUploadProgress, this.fetchImpl) : this.fetchImpl;
    // Only a send the server deduplicates is tried again after a failure that may have stored it.
    const retries = isIdempotentSend(given.body) ? this.sendRetries : 0;
    // Calls without a token are not counted by the server's buckets: no queue.
    const queues = token ? this.queues : null;
    for (let limited = 0, failures = 0, waited = 0; ; ) {
      const place = queues ? queues.acquire(token!, operation, resource, given.signal, limited > 0) : null;
      // Awaited only when the call must wait: otherwise it goes out in this tick, as it would without queues.
      const slot = place instanceof Promise ? await place : place;
      let response: Response;
      try {
        response = await send(url, { method: spec.method, headers, body, signal: given.signal, redirect: "manual" });
      } catch (error) {
        slot?.release();
        if (error instanceof Error && error.name === "AbortError") throw error;
        if (failures < retries) {
          await sleep(sendBackoffMs(failures++));
          continue;
        }
        throw new HearthApiError(operation, 0, UNREACHABLE);
      }
      const refusal = slot ? queues!.answered(slot, token!, operation, resource, response) : null;
      if (response.status >= 500 && failures < retries) {
        const wait = retryAfterMs(response.headers);
        await response.body?.cancel();
        await sleep(wait ?? sendBackoffMs(failures));
        failures++;
        continue;
      }
      if (response.status === 429) {
        // A spent bucket's queue holds the retry until its reset; any other wait is slept here.
        const waitMs = refusal?.waitMs ?? retryAfterMs(response.headers) ?? 1000;
        if (limited < this.retriesOn429 && waited + waitMs <= this.maxRateLimitWait) {
          limited++;
          waited += waitMs;
          await response.body?.cancel();
          if (!refusal?.queued) await abortableSleep(waitMs, given.signal);
          continue;
        }
      }
      if (response.status === 401 && token) this.onUnauthorized();
      if (response.status >= 400) throw await apiError(operation, response);
      if (spec.answer === "raw") return response as OperationAnswer<K>;
      const text = await response.text();
      return (text === "" ? undefined : JSON.parse(text)) as OperationAnswer<K>;
    }
  }

  // The calls a bot makes all the time (Bot REST, docs/bot-rest.md), each one operation above.

  /** `POST /oauth2/bot/channels/:channelId/messages`: sends as the bot. */
  sendMessage(channelId: string, message: OutgoingMessage & { reply_to?: string }): Promise<S.Message> {
    return this.request("botSendMessage", { params: { channelId }, body: withNonce(message) });
  }

  /** Edits one of the bot's own messages; what is not given is kept. */
  editMessage(channelId: string, messageId: string, edit: OutgoingMessage): Promise<S.Message> {
    return this.request("botEditMessage", { params: { channelId, messageId }, body: edit });
  }

  deleteMessage(channelId: string, messageId: string): Promise<S.Success> {
    return this.request("botDeleteMessage", { params: { channelId, messageId } });
  }

  /** One page of a channel's messages, newest first (docs/bot-rest.md: `before`, `after`, `limit` 1-100). */
  listMessages(channelId: string, query: { before?: string; after?: string; limit?: number } = {}): Promise<S.Message[]> {
    return this.request("botListMessages", { params: { channelId }, query });
  }

  /**
   * Every message of a channel after `afterId` (exclusive), oldest first, page by page: what a
   * bot missed while it was disconnected (see the `resumed` event). `afterId` null: from the start.
   */
  async *messagesSince(channelId: string, afterId: string | null, pageSize = 100): AsyncGenerator<S.Message> {
    let after = afterId;
    for (;;) {
      // With `after`, a page holds the oldest messages after it (newest first within the page).
      const page = after === null ? await this.oldestPage(channelId, pageSize) : await this.listMessages(channelId, { after, limit: pageSize });
      if (page.length === 0) return;
      const chronological = [...page].reverse();
      yield* chronological;
      after = chronological[chronological.length - 1]!.id;
      if (page.length < pageSize) return;
    }
  }

  /** The first messages of a channel: ids sort by time, so "after the smallest id" is the start. */
  private oldestPage(channelId: string, limit: number): Promise<S.Message[]> {
    return this.listMessages(channelId, { after: "00000000-0000-0000-0000-000000000000", limit });
  }

  /** Sets the bot's status and activity (`null` clears it, absent keeps it); the activity lasts while connected. */
  setPresence(status: S.BotPresence["status"], activity?: S.Activity | null): Promise<S.BotPresence> {
    return this.request("botSetPresence", { body: activity === undefined ? { status } : { status, activity } });
  }

  /** Any user's public profile plus their activity. */
  getUser(userId: string): Promise<Operations["botGetUser"]["response"]> {
    return this.request("botGetUser", { params: { userId } });
  }

  /** The channels of a server the bot can see. */
  listChannels(serverId: string): Promise<S.Channel[]> {
    return this.request("botListChannels", { params: { serverId } });
  }

  /** Sends a direct message to a user who shares a server with the bot. */
  sendDm(userId: string, message: OutgoingMessage): Promise<S.DmMessage> {
    return this.request("botSendDm", { params: { targetUserId: userId }, body: withNonce(message) });
  }
}

/** A body with `enforce_nonce: true` (JSON, or an upload form's `"true"`): the server answers its retry with the first message. */
function isIdempotentSend(body: unknown): boolean {
  if (body instanceof FormData) return body.get("enforce_nonce") === "true" && body.get("nonce") !== null;
  if (typeof body !== "object" || body === null) return false;
  const fields = body as { nonce?: unknown; enforce_nonce?: unknown };
  return fields.nonce !== undefined && (fields.enforce_nonce === true || fields.enforce_nonce === "true");
}

function toFormData(body: unknown): FormData {
  if (body instanceof FormData) return body;
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item instanceof Blob ? item : String(item));
  }
  return form;
}

async function apiError(operation: string, response: Response): Promise<HearthApiError> {
  const text = await response.text();
  let message = text || response.statusText;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === "string") message = parsed.error;
  } catch {
    // Not JSON (a proxy's page): keep the text.
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  return new HearthApiError(operation, response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}
