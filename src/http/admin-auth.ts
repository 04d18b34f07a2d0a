import { Elysia } from "elysia";
import type { Domain } from "../domain/domain.ts";
import type { UserRow } from "../store/users-repo.ts";
import { bearerToken } from "./auth.ts";

/**
 * `{ admin: true }` on a route under /api/v1/admin resolves `user`, a platform administrator:
 * no or a bad token is 401, anyone else (bots included) 403, both before the body is validated.
 */
export function adminPlugin(domain: Pick<Domain, "accounts" | "admins">) {
  const authenticated = new WeakMap<Request, UserRow>();
  return new Elysia({ name: "hearth.admin-auth", seed: Bun.randomUUIDv7() }).macro({
    admin: {
      detail: { security: [{ adminToken: [] }] },
      async transform({ request, headers }) {
        const user = await domain.accounts.authenticate(bearerToken(headers.authorization));
        domain.admins.requireAdmin(user);
        authenticated.set(request, user);
      },
      resolve({ request }) {
        const user = authenticated.get(request);
        if (!user) throw new Error("admin transform did not run");
        return { user };
      },
    },
  });
}

export type AdminPlugin = ReturnType<typeof adminPlugin>;
