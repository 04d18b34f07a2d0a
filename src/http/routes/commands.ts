import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import type { AuthPlugin } from "../auth.ts";
import { MalformedBody } from "../body.ts";
import * as v from "valibot";
import { doc } from "../operation-doc.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { Command, CommandDefinition, ServerCommand } from "../responses/bots.ts";

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
  new Elysia({ prefix: "/api/v1/oauth2", tags: ["Commands"] })
    .use(auth)
    .post("/commands", ({ user, body }) => domain.commands.replaceGlobal(user, json(body)), {
      bot: true,
      detail: doc("registerGlobalCommands", v.array(Command), {
        body: v.array(CommandDefinition),
        errors: [409],
        description: "The bot's global commands become exactly this list.",
      }),
    })
    .get("/applications/:appId/commands", ({ user, params }) => domain.commands.list(params.appId, user), { auth: true, detail: doc("listCommands", v.array(Command)) })
    .post(
      "/applications/:appId/commands",
      async ({ user, params, body, set }) => {
        const command = await domain.commands.create(params.appId, user, json(body));
        set.status = 201;
        return command;
      },
      { auth: true, detail: doc("createCommand", { 201: Command }, { body: CommandDefinition, errors: [409] }) },
    )
    .put(
      "/applications/:appId/commands/:cmdId",
      ({ user, params, body }) => domain.commands.update(params.appId, params.cmdId, user, json(body)),
      { auth: true, detail: doc("updateCommand", Command, { body: CommandDefinition, errors: [409] }) },
    )
    .delete(
      "/applications/:appId/commands/:cmdId",
      async ({ user, params }) => {
        await domain.commands.delete(params.appId, params.cmdId, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteCommand", Success) },
    )
    .get("/servers/:serverId/commands", ({ user, params }) => domain.commands.forServer(params.serverId, user), { auth: true, detail: doc("listServerCommands", v.array(ServerCommand)) });
