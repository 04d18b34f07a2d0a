import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";

const appName = v.pipe(v.string("must be a string"), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(32, "must be at most 32 characters"));
const appDescription = v.pipe(v.string("must be a string"), v.maxLength(400, "must be at most 400 characters"));

const CreateBody = body({ name: appName, description: appDescription });

/** /api/v1/oauth2/applications: applications and their bots (owner's user token). */
export const applicationRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/oauth2/applications" })
    .use(auth)
    .post(
      "/",
      async ({ user, body, headers, set }) => {
        const created = await domain.applications.create(user, body, headers["x-2fa-code"] ?? null);
        set.status = 201;
        return created;
      },
      { auth: true, body: CreateBody },
    );
