import { Elysia } from "elysia";
import type { Accounts } from "../domain/accounts/accounts.ts";
import type { UserRow } from "../store/users-repo.ts";
import { forbidden } from "../domain/shared/errors.ts";
import type { RestRateLimiter } from "./rest-rate-limits.ts";

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const WHITESPACE = /\s/;

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(header: string | null | undefined): string | null {
  if (header == null) return null;
  // The form clients send, "Bearer <token>" with one space and nothing after the token, is
  // taken without the full pattern's match array and capture (every authenticated request does
  // this). It answers what the pattern would.
  if (header.length > 7 && header.startsWith("Bearer ")) {
    const token = header.slice(7);
    if (!WHITESPACE.test(token)) return token;
  }
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

/**
 * The account behind a request's bearer token, or a 401 (a disabled account: 403). The header
 * straight from the request: naming `headers` in an Elysia hook would make Elysia copy every
 * request header into an object first, on every authenticated route.
 */
const authenticateRequest = (accounts: Accounts, request: Request): Promise<UserRow> =>
  accounts.authenticate(bearerToken(request.headers.get("authorization")));

/** What the macros' transforms are given (Elysia's context). */
interface TransformContext {
  request: Request;
  route: string;
  params: Record<string, string>;
  set: { headers: Record<string, string | number> };
}

/**
 * `{ auth: true }` on a route resolves `user` (the account behind the bearer token) or
 * answers 401, before the body is validated. With `limits`, the request is then counted
 * against its route family's bucket (src/http/rest-rate-limits.ts): its answer carries the
 * X-RateLimit headers, and past the limit it is a 429.
 */
export function authPlugin(accounts: Accounts, limits?: RestRateLimiter) {
  const authenticated = new WeakMap<Request, UserRow>();
  const admit = async ({ request, route, params, set }: TransformContext, user: UserRow) => {
    authenticated.set(request, user);
    const limit = limits?.forRoute(request.method, route);
    if (limit) Object.assign(set.headers, await limit.take(user.id, params));
  };
  // The seed makes the plugin unique per app, so several apps in one process (tests) never share it.
  return new Elysia({ name: "hearth.auth", seed: Bun.randomUUIDv7() }).macro({
    auth: {
      // The API reference reads which token a route wants from here (src/reference/openapi.ts).
      detail: { security: [{ token: [] }] },
      // `transform` runs before validation; the app's parse hook never throws on bad input
      // (MalformedBody), so a caller without a valid token always learns 401 first.
      async transform(context) {
        await admit(context, await authenticateRequest(accounts, context.request));
      },
      resolve({ request }) {
        const user = authenticated.get(request);
        if (!user) throw new Error("auth transform did not run");
        return { user };
      },
    },
    /** Bot REST (`/oauth2/bot/...`): a valid token of a bot user; a user token is 403. */
    bot: {
      detail: { security: [{ botToken: [] }] },
      async transform(context) {
        const user = await accounts.authenticate(bearerToken(context.request.headers.get("authorization")));
        if (!user.is_bot) throw forbidden("This route needs a bot token");
        await admit(context, user);
      },
      resolve({ request }) {
        const user = authenticated.get(request);
        if (!user) throw new Error("bot transform did not run");
        return { user };
      },
    },
  });
}

export type AuthPlugin = ReturnType<typeof authPlugin>;
