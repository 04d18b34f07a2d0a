import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { permissionsBitfield } from "./applications.ts";
import { doc } from "../operation-doc.ts";
import { BotAddResult, BotInviteCard } from "../responses/bots.ts";

const AuthorizeBody = body({ permissions: permissionsBitfield });

/** /api/v1/oauth2/invite: the public bot invite card, and authorizing a bot onto a server. */
export const botInviteRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/oauth2/invite", tags: ["Bot invites"] })
    .use(auth)
    .get("/:botUserId", ({ params }) => domain.applications.inviteCard(params.botUserId), { detail: doc("getBotInvite", BotInviteCard) })
    .post(
      "/:botUserId/add/:serverId",
      ({ user, params, body }) => domain.applications.authorize(params.botUserId, params.serverId, user, body.permissions),
      { auth: true, body: AuthorizeBody, detail: doc("addBotToServer", BotAddResult) },
    );
