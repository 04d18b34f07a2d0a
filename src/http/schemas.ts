import * as v from "valibot";
import { MalformedBody } from "./body.ts";
import { LIMITS } from "../domain/shared/limits.ts";

/** A JSON body: anything but an object is "body: must be a JSON object". */
export const body = <E extends v.ObjectEntries>(entries: E) =>
  v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === "object" && input !== null && !Array.isArray(input) && !(input instanceof MalformedBody),
      (issue) => (issue.input instanceof MalformedBody ? issue.input.reason : "must be a JSON object"),
    ),
    v.object(entries, "must be a JSON object"),
  );

/** A query-string integer in 1..max; out of range is a 400, never clamped (CONTRACT.md). */
export const queryLimit = (max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, `must be a whole number between 1 and ${max}`),
      v.transform(Number),
      v.minValue(1, `must be a whole number between 1 and ${max}`),
      v.maxValue(max, `must be a whole number between 1 and ${max}`),
    ),
  );

/** `?q=&limit=` of the message searches (channel, DM, group DM). */
export const SearchQuery = v.object({
  q: v.pipe(
    v.string("is required"),
    v.trim(),
    v.minLength(1, `must be 1-${LIMITS.message.searchQueryLength} characters`),
    v.maxLength(LIMITS.message.searchQueryLength, `must be 1-${LIMITS.message.searchQueryLength} characters`),
  ),
  limit: queryLimit(LIMITS.message.searchMax),
});

const { members } = LIMITS;

/**
 * `?limit=&after=&query=` of the member list (user and Bot REST routes; docs/servers.md,
 * "Members"). None of them: the whole list. `limit` 1-1000 (1-100 with `query`); `after` a user
 * id, not with `query`; `query` 1-32 characters, taken as they are (a prefix: no trimming).
 */
/** The reference's words for the member list routes (docs/servers.md, "Members"). */
export const MEMBER_LIST_DESCRIPTION =
  "Without parameters, every member in the order they joined. With `limit` (1-1000) and/or `after` (a user id), a page ordered by user id: " +
  "the members after `after`, up to `limit` (1000 when only `after` is given). With `query` (1-32 characters), the members whose username " +
  "starts with it (A-Z in either case), ordered by name, up to `limit` (1-100, default 100); `after` cannot be used with it.";

export const MemberListQuery = v.pipe(
  v.object({
    limit: queryLimit(members.pageMax),
    after: v.optional(v.pipe(v.string(), v.uuid("must be a user id"))),
    query: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1, `must be 1-${members.queryLength} characters`),
        v.maxLength(members.queryLength, `must be 1-${members.queryLength} characters`),
      ),
    ),
  }),
  v.forward(
    v.check(
      (q) => q.query === undefined || q.limit === undefined || q.limit <= members.searchMax,
      `must be a whole number between 1 and ${members.searchMax}`,
    ),
    ["limit"],
  ),
  v.forward(v.check((q) => q.query === undefined || q.after === undefined, "cannot be used with query"), ["after"]),
);
