import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import type { AuthPlugin } from "../auth.ts";
import { MalformedBody } from "../body.ts";

/** The parsed JSON body; validation of its shape is the domain's (commands are nested deep). */
function json(body: unknown): unknown {
  if (body instanceof MalformedBody) throw badRequest(body.reason);
  return body;
}

/**
 * Slash-command registration under /api/v1/oauth2 (SPEC.md "Commands"; docs/commands.md).
 * Params: `:appId` first under /applications (as the application routes), `:cmdId` third.
 */
export const commandRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/oauth2" })
    .use(auth)
    .post("/commands", ({ user, body }) => domain.commands.replaceGlobal(user, json(body)), { bot: true })
    .get("/applications/:appId/commands", ({ user, params }) => domain.commands.list(params.appId, user), { auth: true })
    .post(
      "/applications/:appId/commands",
      async ({ user, params, body, set }) => {
        const command = await domain.commands.create(params.appId, user, json(body));
        set.status = 201;
        return command;
      },
      { auth: true },
    )
    .put(
      "/applications/:appId/commands/:cmdId",
      ({ user, params, body }) => domain.commands.update(params.appId, params.cmdId, user, json(body)),
      { auth: true },
    )
    .delete(
      "/applications/:appId/commands/:cmdId",
      async ({ user, params }) => {
        await domain.commands.delete(params.appId, params.cmdId, user);
        return { success: true };
      },
      { auth: true },
    )
    .get("/servers/:serverId/commands", ({ user, params }) => domain.commands.forServer(params.serverId, user), { auth: true });
