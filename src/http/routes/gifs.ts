import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { queryLimit } from "../schemas.ts";

export const GIF_PAGE_DEFAULT = 25;

const SearchQuery = v.object({
  q: v.optional(
    v.pipe(v.string("must be a string"), v.trim(), v.maxLength(100, "must be at most 100 characters"), v.transform((q) => (q === "" ? null : q))),
  ),
  kind: v.optional(v.picklist(["gif", "sticker"], "must be gif or sticker")),
  limit: queryLimit(50),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512, "is not a cursor from a previous page"))),
});

/** /api/v1/gifs: GIF and sticker search over the caller's servers, plus the optional provider (docs/gifs.md). */
export const gifRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/gifs" })
    .use(auth)
    .get(
      "/search",
      ({ user, query }) =>
        domain.gifs.search(user, {
          q: query.q ?? null,
          kind: query.kind ?? null,
          limit: query.limit ?? GIF_PAGE_DEFAULT,
          cursor: query.cursor ?? null,
        }),
      { auth: true, query: SearchQuery },
    );
