import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { body } from "../schemas.ts";
import { boolean, displayName, integer } from "../../domain/shared/validation.ts";
import { doc } from "../operation-doc.ts";
import { twoFactorProof } from "../two-factor-proof.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { Application, ApplicationPermissions, BotAddResult, BotServer, BotToken, NewApplication } from "../responses/bots.ts";

const appName = v.pipe(
  displayName,
  v.minLength(1, "must not be empty"),
  v.maxLength(LIMITS.bot.applicationNameLength, `must be at most ${LIMITS.bot.applicationNameLength} characters`),
);
const appDescription = v.pipe(
  v.string("must be a string"),
  v.maxLength(LIMITS.bot.applicationDescriptionLength, `must be at most ${LIMITS.bot.applicationDescriptionLength} characters`),
);

/** A permissions bitfield: the 24 defined bits (SPEC.md "Permission bits"). */
export const permissionsBitfield = integer(0, 2 ** 24 - 1);

const CreateBody = body({ name: appName, description: appDescription });
const UpdateBody = body({ name: v.optional(appName), description: v.optional(appDescription) });
const BannerOffsetBody = body({ banner_offset: integer(LIMITS.bannerOffsetMin, LIMITS.bannerOffsetMax) });
const PublicInviteBody = body({ public_invite: boolean });
const PermissionsBody = body({ default_permissions: permissionsBitfield, invite_permission_locked: v.optional(boolean) });
const OwnerAddBody = body({ permissions: v.optional(permissionsBitfield) });

/**
 * /api/v1/oauth2/applications: applications and their bots (owner's user token; bots get 403,
 * someone else's application 404). Every route names its params `:appId` then `:serverId`.
 */
export const applicationRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/oauth2/applications", tags: ["Applications"] })
    .use(auth)
    .post(
      "/",
      async ({ user, body, headers, request, server, set }) => {
        const created = await domain.applications.create(user, body, twoFactorProof({ headers, request, server }));
        set.status = 201;
        return created;
      },
      {
        auth: true,
        body: CreateBody,
        detail: doc("createApplication", { 201: NewApplication }, {
          errors: [429],
          headers: { "x-2fa-code": "The current TOTP code (or an unused recovery code), when the platform requires two-factor authentication for applications" },
        }),
      },
    )
    .get("/", ({ user }) => domain.applications.list(user), { auth: true, detail: doc("listApplications", v.array(Application)) })
    .get("/:appId", ({ user, params }) => domain.applications.get(params.appId, user), { auth: true, detail: doc("getApplication", Application) })
    .put("/:appId", ({ user, params, body }) => domain.applications.update(params.appId, user, body), { auth: true, body: UpdateBody, detail: doc("updateApplication", Application) })
    .delete(
      "/:appId",
      async ({ user, params }) => {
        await domain.applications.delete(params.appId, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteApplication", Success) },
    )
    .post("/:appId/token", ({ user, params }) => domain.applications.regenerateToken(params.appId, user), { auth: true, detail: doc("regenerateBotToken", BotToken) })
    .post(
      "/:appId/avatar",
      async ({ user, params, request }) => {
        await domain.applications.owned(params.appId, user);
        const form = await readMultipart(request, LIMITS.userAvatarBytes);
        return domain.applications.setImage(params.appId, user, "avatar", form.get("avatar"));
      },
      { auth: true, parse: "none", detail: doc("setApplicationAvatar", Application, { multipart: v.object({ avatar: FileField }) }) },
    )
    .post(
      "/:appId/banner",
      async ({ user, params, request }) => {
        await domain.applications.owned(params.appId, user);
        const form = await readMultipart(request, LIMITS.userBannerBytes);
        return domain.applications.setImage(params.appId, user, "banner", form.get("banner"));
      },
      { auth: true, parse: "none", detail: doc("setApplicationBanner", Application, { multipart: v.object({ banner: FileField }) }) },
    )
    .patch(
      "/:appId/banner-offset",
      ({ user, params, body }) => domain.applications.setBannerOffset(params.appId, user, body.banner_offset),
      { auth: true, body: BannerOffsetBody, detail: doc("setApplicationBannerOffset", Application) },
    )
    .patch(
      "/:appId/public-invite",
      ({ user, params, body }) => domain.applications.setPublicInvite(params.appId, user, body.public_invite),
      { auth: true, body: PublicInviteBody, detail: doc("setApplicationPublicInvite", Application) },
    )
    .patch("/:appId/permissions", ({ user, params, body }) => domain.applications.setPermissions(params.appId, user, body), {
      auth: true,
      body: PermissionsBody,
      detail: doc("setApplicationPermissions", ApplicationPermissions),
    })
    .get("/:appId/servers", ({ user, params }) => domain.applications.servers(params.appId, user), { auth: true, detail: doc("listApplicationServers", v.array(BotServer)) })
    .post(
      "/:appId/servers/:serverId",
      ({ user, params, body }) => domain.applications.addToServer(params.appId, params.serverId, user, body.permissions),
      { auth: true, body: OwnerAddBody, detail: doc("addApplicationToServer", BotAddResult) },
    )
    .delete(
      "/:appId/servers/:serverId",
      async ({ user, params }) => {
        await domain.applications.removeFromServer(params.appId, params.serverId, user);
        return { success: true };
      },
      { auth: true, detail: doc("removeApplicationFromServer", Success) },
    )
    // Errors case 3: always 403, whatever the body.
    .patch("/:appId/servers/:serverId/permissions", ({ user }) => domain.applications.editServerPermissions(user), {
      auth: true,
      detail: doc("editBotServerPermissions", {}, {
        never: [404],
        description: "Always 403 (SPEC.md Errors case 3): a bot's permissions in a server are its managed role's.",
      }),
    });
