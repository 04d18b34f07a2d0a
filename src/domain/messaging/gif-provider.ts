/**
 * The optional external GIF provider (docs/gifs.md#external-provider): a Tenor/Giphy-like
 * search API at a configured base URL. The key travels only in the request to the provider;
 * failures are reported as fixed messages that never contain the URL, the key or the payload,
 * and logged as a warning saying only how it failed.
 */
import * as v from "valibot";
import type { Logger } from "../../log.ts";

interface GifProviderConfig {
  /** Base URL, e.g. https://gifs.example.com/v1; the client calls `{url}/search`. */
  url: string;
  /** Sent as the `key` query parameter; empty means none is sent. */
  key: string;
  timeoutMs: number;
}

/** One provider GIF as Hearth answers it. */
export const ProviderGif = v.object({
  id: v.string(),
  title: v.string(),
  url: v.string(),
  preview_url: v.string(),
  width: v.nullable(v.number()),
  height: v.nullable(v.number()),
});
export type ProviderGif = v.InferOutput<typeof ProviderGif>;

type ProviderSearch = { ok: true; results: ProviderGif[] } | { ok: false; error: string };

const PROVIDER_TIMEOUT = "GIF provider timed out";
const PROVIDER_UNAVAILABLE = "GIF provider is unavailable";
const PROVIDER_MALFORMED = "GIF provider sent an unexpected response";

/** A provider answer larger than this is refused unread past the cap. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

const httpUrl = (value: unknown): string | null =>
  typeof value === "string" && value.length <= 2048 && /^https?:\/\/\S+$/i.test(value) ? value : null;
const dimension = (value: unknown): number | null =>
  typeof value === "number" && Number.isInteger(value) && value > 0 && value <= 100_000 ? value : null;

/** One entry of `results`, or null when it lacks a usable id or URL (it is skipped). */
function toProviderGif(entry: unknown): ProviderGif | null {
  if (typeof entry !== "object" || entry === null) return null;
  const e = entry as Record<string, unknown>;
  const id = typeof e.id === "string" || typeof e.id === "number" ? String(e.id).slice(0, 128) : null;
  const url = httpUrl(e.url);
  if (!id || !url) return null;
  return {
    id,
    title: typeof e.title === "string" ? e.title.slice(0, 200) : "",
    url,
    preview_url: httpUrl(e.preview_url) ?? url,
    width: dimension(e.width),
    height: dimension(e.height),
  };
}

/** Reads at most MAX_RESPONSE_BYTES of a body; null when it is longer. */
async function readCapped(response: Response): Promise<string | null> {
  const claimed = Number(response.headers.get("content-length") ?? "0");
  if (claimed > MAX_RESPONSE_BYTES) return null;
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > MAX_RESPONSE_BYTES) return null;
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export class GifProviderClient {
  constructor(
    private readonly config: GifProviderConfig,
    private readonly log: Logger,
  ) {}

  /** `GET {url}/search?q=&limit=&key=`, expecting `{results: [{id, title?, url, preview_url?, width?, height?}]}`. */
  async search(q: string, limit: number): Promise<ProviderSearch> {
    const target = new URL(`${this.config.url.replace(/\/+$/, "")}/search`);
    target.searchParams.set("q", q);
    target.searchParams.set("limit", String(limit));
    if (this.config.key) target.searchParams.set("key", this.config.key);
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    /** A failure: logged for the operator (how it failed, never the URL, the key or the payload), answered with a fixed message. */
    const failed = (error: string, reason: string, status: number | null = null): ProviderSearch => {
      this.log.warn("GIF provider failed", { reason, status });
      return { ok: false, error };
    };
    try {
      // No redirects: the request carries the key, and must not be sent anywhere else.
      const response = await fetch(target, { signal, redirect: "manual", headers: { accept: "application/json" } });
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        return failed(PROVIDER_UNAVAILABLE, "http", response.status);
      }
      const text = await readCapped(response);
      if (text === null) return failed(PROVIDER_MALFORMED, "too large");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return failed(PROVIDER_MALFORMED, "not json");
      }
      const results = (parsed as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) return failed(PROVIDER_MALFORMED, "no results array");
      const gifs = results.map(toProviderGif).filter((gif): gif is ProviderGif => gif !== null);
      return { ok: true, results: gifs.slice(0, limit) };
    } catch {
      // The error itself may name the URL (and with it the key): only a fixed message leaves.
      return signal.aborted ? failed(PROVIDER_TIMEOUT, "timeout") : failed(PROVIDER_UNAVAILABLE, "unreachable");
    }
  }
}
