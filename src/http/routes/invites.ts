import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { integer } from "../../domain/shared/validation.ts";
import { doc } from "../operation-doc.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { Invite, InvitePreview, InviteUse, Server } from "../responses/community.ts";


// The body is optional: no body means an unlimited invite that never expires. Bot REST's
// invite route takes the same body.
export const InviteBody = v.optional(
  body({
    max_uses: v.optional(v.nullable(integer(0, LIMITS.invite.maxUses))),
    expires_in: v.optional(v.nullable(integer(0, LIMITS.invite.maxAgeSeconds))),
  }),
  {},
);

/** GET /api/v1/invites/:code: what an invite link shows before it is accepted. */
export const inviteLookupRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/invites", tags: ["Invites"] })
    .use(auth)
    .get("/:code", ({ user, params }) => domain.invites.preview(user, params.code), { auth: true, detail: doc("getInvitePreview", InvitePreview, { errors: [400] }) });

/** /api/v1/servers: invites of a server, and joining by code. */
export const inviteRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/servers", tags: ["Invites"] })
    .use(auth)
    .post(
      "/join/:inviteCode",
      async ({ user, params }) => (await domain.invites.join(user, params.inviteCode)).server,
      { auth: true, detail: doc("joinServer", Server) },
    )
    .post(
      "/:id/invites",
      async ({ user, params, body, set }) => {
        const invite = await domain.invites.create(params.id, user.id, {
          maxUses: body?.max_uses ?? undefined,
          expiresIn: body?.expires_in ?? undefined,
        });
        set.status = 201;
        return invite;
      },
      { auth: true, body: InviteBody, detail: doc("createInvite", { 201: Invite }) },
    )
    .get("/:id/invites", ({ user, params }) => domain.invites.list(params.id, user.id), { auth: true, detail: doc("listInvites", v.array(Invite)) })
    .get("/:id/invites/me", ({ user, params }) => domain.invites.listOwn(params.id, user.id), {
      auth: true,
      detail: doc("listMyInvites", v.array(Invite), {
        description: "The caller's own invites to the server that still admit people, newest first, the primary invite left out. Any member may ask (a Hearth extension).",
      }),
    })
    .delete(
      "/:id/invites/:inviteId",
      async ({ user, params }) => {
        await domain.invites.delete(params.id, user.id, params.inviteId);
        return { success: true };
      },
      { auth: true, detail: doc("deleteInvite", Success) },
    )
    .get("/:id/invites/:inviteId/uses", ({ user, params }) => domain.invites.uses(params.id, user.id, params.inviteId), { auth: true, detail: doc("listInviteUses", v.array(InviteUse)) })
    .post("/:id/invite/regenerate", ({ user, params }) => domain.invites.regeneratePrimary(params.id, user.id), { auth: true, detail: doc("regeneratePrimaryInvite", Invite) });
