import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { GifCursor } from "../../store/server-gifs-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest } from "../shared/errors.ts";
import { ProviderGif, type GifProviderClient } from "./gif-provider.ts";
import { ServerGif, toGif } from "../community/server-gifs.ts";

/** A server GIF or sticker in search results, with its server's name. */
export const GifResult = v.object({ ...ServerGif.entries, server_name: v.string() });
export type GifResult = v.InferOutput<typeof GifResult>;

/** `GET /api/v1/gifs/search` (docs/gifs.md). */
export const GifSearchResult = v.object({
  results: v.array(GifResult),
  /** Pass as `cursor` for the next page; null on the last one. */
  next: v.nullable(v.string()),
  /** The external provider's answer, when one is configured and was asked; else null. */
  provider: v.nullable(v.object({ results: v.array(ProviderGif), error: v.nullable(v.string()) })),
});
export type GifSearchResult = v.InferOutput<typeof GifSearchResult>;

/** An opaque page cursor: base64url of the last result's [lower-cased name, id]. */
const encodeCursor = (cursor: GifCursor) => Buffer.from(JSON.stringify([cursor.name, cursor.id])).toString("base64url");

function decodeCursor(text: string): GifCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { name: value[0], id: value[1] };
    }
  } catch {
    // falls through to the 400
  }
  throw badRequest("cursor: is not a cursor from a previous page");
}

/**
 * GIF and sticker search over the servers the caller belongs to, by name, plus the optional
 * external provider (first page of a search with words only; never for stickers).
 */
export class Gifs {
  constructor(private readonly store: Store, private readonly provider: GifProviderClient | null) {}

  async search(
    user: UserRow,
    query: { q: string | null; kind: "gif" | "sticker" | null; limit: number; cursor: string | null },
  ): Promise<GifSearchResult> {
    const after = query.cursor === null ? null : decodeCursor(query.cursor);
    const rows = await this.store.serverGifs.searchForMember(user.id, { q: query.q, kind: query.kind }, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const asksProvider = this.provider !== null && query.q !== null && query.kind !== "sticker" && after === null;
    let provider: GifSearchResult["provider"] = null;
    if (asksProvider) {
      const answer = await this.provider!.search(query.q!, query.limit);
      provider = answer.ok ? { results: answer.results, error: null } : { results: [], error: answer.error };
    }
    return {
      results: page.map((row) => ({ ...toGif(row), server_name: row.server_name })),
      next: rows.length > query.limit && last ? encodeCursor({ name: last.sort_name, id: last.id }) : null,
      provider,
    };
  }
}
