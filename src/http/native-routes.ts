/**
 * The hot authenticated GET routes served by Bun's own router without Elysia's per-request
 * machinery (its context, hook chain, `setImmediate` after-response and response mapping: about
 * half of an authenticated read's server CPU; bench/README.md, "Capacity (issue 21)").
 *
 * Each route is the SAME route object the Elysia plugin registers (`authedGet`: its path, its
 * query schema, its handler), and every step Elysia would take runs here through the same
 * functions, in the same order: the app's request checks (`RequestLifecycle.refuse`: Host,
 * draining), the bearer check (`authenticateRequest`, the `auth` macro's), the query parsed by
 * Elysia's own parser and validated by the route's schema (a 400 said by the same
 * `describeIssue`), the handler, the JSON answer, errors through the app's error mapping, and
 * the request's metrics and log line (`RequestLifecycle.record`). With `limits`, the request is
 * counted against its route family's bucket right after the bearer check, as the `auth` macro
 * does (src/http/rest-rate-limits.ts), and every answer after the count carries its headers. Elysia still registers each
 * route, so the API reference and the route list are unchanged; only the GET entry of Bun's
 * routing table points here (docs/architecture.md, "Native GET routes").
 *
 * Left to Elysia when CORS origins are configured (its CORS plugin answers through Elysia's
 * hooks), so the CORS headers have one place too.
 */
import type { BunRequest } from "bun";
import type * as v from "valibot";
import { parseQueryStandardSchema } from "elysia/parse-query";
import type { Accounts } from "../domain/accounts/accounts.ts";
import { badRequest } from "../domain/shared/errors.ts";
import { describeIssue } from "../domain/shared/validation.ts";
import type { UserRow } from "../store/users-repo.ts";
import { authenticateRequest } from "./auth.ts";
import type { RequestLifecycle } from "./request-lifecycle.ts";
import type { RateHeaders, RestRateLimiter } from "./rest-rate-limits.ts";

type Query = Record<string, unknown>;

/** What an authenticated GET handler gets: the caller, the path parameters, the validated query. */
export interface AuthedGetContext<P extends Record<string, string>, Q> {
  user: UserRow;
  params: P;
  query: Q;
}

/** One authenticated GET route: registered by its Elysia plugin, and served natively from `nativeGetRoutes`. */
export interface AuthedGet<P extends Record<string, string> = Record<string, string>, Q = Query> {
  /** The plugin's prefix. */
  prefix: string;
  /** The path under it, as the plugin registers it. */
  path: string;
  /** The query schema (Elysia validates the same one on its own route). */
  query?: v.GenericSchema<unknown, Q>;
  handler(context: AuthedGetContext<P, Q>): unknown;
}

/** A route both the Elysia plugin and the native table use. */
export const authedGet = <const Path extends string, P extends Record<string, string>, Q = Query>(route: AuthedGet<P, Q> & { path: Path }) => route;

/**
 * A URL's query as Elysia gives it to a Standard Schema (a repeated key becomes an array): the
 * `?` after the path's first `/` past the scheme, as Elysia finds it.
 */
function queryOf(url: string): Query {
  const pathStart = url.indexOf("/", 11);
  const qi = url.indexOf("?", pathStart + 1);
  return qi === -1 ? Object.create(null) : parseQueryStandardSchema(url, qi + 1);
}

/** The parameters of a path that has none. */
const NO_PARAMS: Record<string, string> = Object.freeze({});

type NativeHandler = (request: BunRequest) => Promise<Response> | Response;

/** Bun `routes` entries (`{ [path]: { GET } }`) serving these routes; Elysia keeps the other methods of each path. */
export function nativeGetRoutes(
  routes: readonly AuthedGet<Record<string, string>, unknown>[],
  accounts: Accounts,
  life: RequestLifecycle,
  limits?: RestRateLimiter,
): Record<string, { GET: NativeHandler }> {
  const table: Record<string, { GET: NativeHandler }> = {};
  for (const route of routes) {
    // The full pattern, as Elysia names the route (the label of its metrics and log lines).
    const pattern = route.prefix + route.path;
    // Read off the pattern once: `request.url` would cost each request a URL formatting.
    const cacheControl = life.cacheControl(pattern);
    // Bun builds `request.params` on each read; a path without parameters has none to build.
    const hasParams = /[:*]/.test(pattern);
    const limit = limits?.forRoute("GET", pattern) ?? null;
    /** The handler's answer for an authenticated caller: a Response, or its promise if the handler waits. */
    const answer = (user: UserRow, query: Query | undefined, params: Record<string, string>, rate: RateHeaders | undefined): Response | Promise<Response> => {
      let validated: unknown = query;
      if (route.query) {
        // What Elysia runs for a Standard Schema (valibot's dataset: `value`, and `issues` on failure).
        const result = route.query["~standard"].validate(query) as { value: unknown; issues?: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]] } | Promise<never>;
        if (result instanceof Promise) throw new Error("async query schemas are not supported");
        if (result.issues) throw badRequest(describeIssue(result.issues[0], "query"));
        validated = result.value;
      }
      const body = route.handler({ user, params, query: validated });
      const init = rate && { headers: rate };
      if (!(body instanceof Promise)) return Response.json(body, init);
      // A handler whose reads SQLite answered at once (`thenAtOnce`) is answered in this turn:
      // a pending promise as the answer costs Bun's server 5-6% more CPU (bench/history.md,
      // "Fifteenth pass").
      return Bun.peek.status(body) === "fulfilled" ? Response.json(Bun.peek(body), init) : body.then((value) => Response.json(value, init));
    };
    /** The code Elysia would give the error hook. */
    const failure = (request: BunRequest, error: unknown): Response => life.error((error as { code?: string } | null)?.code ?? "UNKNOWN", error, request);
    /** The answer once the request is counted; a failure after the count is answered here, with the count's headers (as Elysia's `set.headers`). */
    const rated = (request: BunRequest, user: UserRow, query: Query | undefined, params: Record<string, string>, rate: RateHeaders): Response | Promise<Response> => {
      try {
        const response = answer(user, query, params, rate);
        return response instanceof Promise ? response.catch((error: unknown) => withHeaders(failure(request, error), rate)) : response;
      } catch (error) {
        return withHeaders(failure(request, error), rate);
      }
    };
    /** The answer for an authenticated caller: counted against the route family's bucket first (a 429 is thrown). */
    const counted = (request: BunRequest, user: UserRow, query: Query | undefined): Response | Promise<Response> => {
      const params = hasParams ? request.params : NO_PARAMS;
      if (!limit) return answer(user, query, params, undefined);
      const rate = limit.take(user.id, params);
      return rate instanceof Promise ? rate.then((taken) => rated(request, user, query, params, taken)) : rated(request, user, query, params, rate);
    };
    /** The request's metrics and log line, then its answer. */
    const done = (request: BunRequest, begun: number, response: Response): Response => {
      if (cacheControl && !response.headers.has("cache-control")) response.headers.set("cache-control", cacheControl);
      life.record(request, pattern, response.status, performance.now() - begun);
      return response;
    };
    const fail = (request: BunRequest, begun: number, error: unknown): Response => done(request, begun, failure(request, error));
    // `done` and `fail` are made once per route, not once per request: a request that is answered
    // in its own turn allocates no closure here.
    const serve = (request: BunRequest): Response | Promise<Response> => {
      const begun = performance.now();
      try {
        // Parsed before the bearer check and validated after it, as Elysia does.
        const query = route.query ? queryOf(request.url) : undefined;
        const user = authenticateRequest(accounts, request);
        // On SQLite the bearer check is settled at once: a handler that does not wait is answered
        // in this turn, and Bun is given a Response, not a promise to follow (the me read: ~2% of
        // its server CPU; bench/history.md, "Ninth pass").
        const response = Bun.peek.status(user) === "fulfilled" ? counted(request, Bun.peek(user) as UserRow, query) : user.then((found) => counted(request, found, query));
        return response instanceof Promise
          ? response.then(
              (answered) => done(request, begun, answered),
              (error: unknown) => fail(request, begun, error),
            )
          : done(request, begun, response);
      } catch (error) {
        return fail(request, begun, error);
      }
    };
    table[pattern] = { GET: (request) => life.refuse(request) ?? serve(request) };
  }
  return table;
}

function withHeaders(response: Response, headers: RateHeaders): Response {
  for (const name in headers) response.headers.set(name, headers[name]!);
  return response;
}
