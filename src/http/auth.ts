import { Elysia } from "elysia";
import type { Accounts } from "../domain/accounts.ts";

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(header: string | null | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}

/**
 * `{ auth: true }` on a route resolves `user` (the account behind the bearer token) or
 * answers 401 before the handler runs.
 */
export function authPlugin(accounts: Accounts) {
  // The seed makes the plugin unique per app, so several apps in one process (tests) never share it.
  return new Elysia({ name: "hearth.auth", seed: Bun.randomUUIDv7() }).macro({
    auth: {
      async resolve({ headers }) {
        return { user: await accounts.authenticate(bearerToken(headers.authorization)) };
      },
    },
  });
}

export type AuthPlugin = ReturnType<typeof authPlugin>;
