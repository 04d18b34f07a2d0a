import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { queryLimit } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { doc } from "../operation-doc.ts";
import { GifSearchResult } from "../responses/messaging.ts";

const SearchQuery = v.object({
  q: v.optional(
    v.pipe(v.string("must be a string"), v.trim(), v.maxLength(LIMITS.gif.queryLength, `must be at most ${LIMITS.gif.queryLength} characters`), v.transform((q) => (q === "" ? null : q))),
  ),
  kind: v.optional(v.picklist(["gif", "sticker"], "must be gif or sticker")),
  limit: queryLimit(LIMITS.gif.pageMax),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(LIMITS.gif.cursorLength, "is not a cursor from a previous page"))),
});

/** /api/v1/gifs: GIF and sticker search over the caller's servers, plus the optional provider (docs/gifs.md). */
export const gifRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/gifs", tags: ["GIFs"] })
    .use(auth)
    .get(
      "/search",
      ({ user, query }) =>
        domain.gifs.search(user, {
          q: query.q ?? null,
          kind: query.kind ?? null,
          limit: query.limit ?? LIMITS.gif.pageDefault,
          cursor: query.cursor ?? null,
        }),
      { auth: true, query: SearchQuery, detail: doc("searchGifs", GifSearchResult) },
    );
