import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { ALL_PERMISSIONS } from "../../domain/access/permission-bits.ts";
import { integer, parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { ChannelChanges, ChannelPlacement, channelIdText, channelName, NewChannel } from "../../domain/community/channel-schemas.ts";
import { doc, NO_CONTENT } from "../operation-doc.ts";
import { minimalAnswer, prefersMinimal } from "../prefer.ts";
import { Category, Channel, Success } from "../../domain/shared/shapes.ts";
import { ChannelList, MyChannelPermissions, PermissionOverride } from "../responses/community.ts";

const { channel } = LIMITS;
const bits = v.optional(integer(0, ALL_PERMISSIONS), 0);

const CreateBody = body(NewChannel.entries);
const UpdateBody = body(ChannelChanges.entries);
const ReorderBody = body({
  order: v.pipe(
    v.array(body(ChannelPlacement.entries), "must be an array of {id, position, category_id?}"),
    v.maxLength(channel.reorderEntries, "is too long"),
  ),
});
const CategoryBody = body({ name: channelName });
const CategoryOrderBody = body({
  order: v.pipe(v.array(channelIdText, "must be an array of category ids"), v.maxLength(channel.reorderEntries, "is too long")),
});
/** Both required (400 naming the missing one): an empty body must not set a 0/0 override. */
const OverrideBody = body({ allow: integer(0, ALL_PERMISSIONS), deny: integer(0, ALL_PERMISSIONS) });

/**
 * /api/v1/channels: channels, categories and permission overrides. Elysia's router needs one
 * parameter name per path position, so every first-segment parameter is `:id` (a server id or
 * a channel id depending on the route), and so is the one after `categories/`.
 */
/** Under /api/v1/channels/:id, the routes about a server's channel list take the server's id (the others a channel's). */
const SERVER_ID = { id: "The server's id." };

export const channelRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/channels", tags: ["Channels"] })
    .use(auth)
    .get("/id/:id", ({ user, params }) => domain.channels.get(params.id, user), { auth: true, detail: doc("getChannel", Channel) })
    // Categories by id.
    .put("/categories/:id", ({ user, params, body }) => domain.channels.renameCategory(params.id, user, body.name), {
      auth: true,
      body: CategoryBody,
      detail: doc("renameCategory", Category),
    })
    .delete(
      "/categories/:id",
      async ({ user, params }) => {
        await domain.channels.deleteCategory(params.id, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteCategory", Success) },
    )
    .get("/categories/:id/permissions", ({ user, params }) => domain.channels.categoryOverrides(params.id, user), { auth: true, detail: doc("listCategoryOverrides", v.array(PermissionOverride)) })
    .put(
      "/categories/:id/permissions/:roleId",
      ({ user, params, body }) => domain.channels.setCategoryOverride(params.id, params.roleId, user, body.allow, body.deny),
      { auth: true, body: OverrideBody, detail: doc("setCategoryOverride", PermissionOverride) },
    )
    .delete(
      "/categories/:id/permissions/:roleId",
      async ({ user, params }) => {
        await domain.channels.resetCategoryOverride(params.id, params.roleId, user);
        return { success: true };
      },
      { auth: true, detail: doc("resetCategoryOverride", Success) },
    )
    // `:id` is a server id.
    .get("/:id", ({ user, params }) => domain.channels.list(params.id, user), { auth: true, detail: doc("listChannels", ChannelList, { params: SERVER_ID }) })
    .post(
      "/:id",
      async ({ user, params, body, set }) => {
        const channel = await domain.channels.create(params.id, user, body);
        set.status = 201;
        return channel;
      },
      { auth: true, body: CreateBody, detail: doc("createChannel", { 201: Channel }, { params: SERVER_ID }) },
    )
    .put(
      "/:id/reorder",
      async ({ user, params, body, request }) => {
        // `{order: [...]}` or the bare array.
        const { order } = parseInput(ReorderBody, Array.isArray(body) ? { order: body } : body);
        const minimal = prefersMinimal(request.headers.get("prefer"));
        const list = await domain.channels.reorder(params.id, user, order, { list: !minimal });
        return list ?? minimalAnswer();
      },
      {
        auth: true,
        detail: doc("reorderChannels", { 200: ChannelList, 204: NO_CONTENT }, {
          params: SERVER_ID,
          body: ReorderBody,
          headers: { Prefer: "`return=minimal`: answer 204 with no body (the changes arrive as `channel:updated` events), at a cost that follows the order's length, not the server's channel count" },
          description: "The body is `{order: [...]}` or the bare array. Answers the caller's new channel list, or 204 with `Prefer: return=minimal`.",
        }),
      },
    )
    .post(
      "/:id/categories",
      async ({ user, params, body, set }) => {
        const category = await domain.channels.createCategory(params.id, user, body.name);
        set.status = 201;
        return category;
      },
      { auth: true, body: CategoryBody, detail: doc("createCategory", { 201: Category }, { params: SERVER_ID }) },
    )
    .put("/:id/categories/reorder", ({ user, params, body }) => domain.channels.reorderCategories(params.id, user, body.order), {
      auth: true,
      body: CategoryOrderBody,
      detail: doc("reorderCategories", v.array(Category), { params: SERVER_ID }),
    })
    // `:id` is a channel id.
    .put("/:id", ({ user, params, body }) => domain.channels.update(params.id, user, body), { auth: true, body: UpdateBody, detail: doc("updateChannel", Channel) })
    .delete(
      "/:id",
      async ({ user, params }) => {
        await domain.channels.delete(params.id, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteChannel", Success) },
    )
    .post(
      "/:id/duplicate",
      async ({ user, params, set }) => {
        const channel = await domain.channels.duplicate(params.id, user);
        set.status = 201;
        return channel;
      },
      { auth: true, detail: doc("duplicateChannel", { 201: Channel }) },
    )
    .get("/:id/permissions", ({ user, params }) => domain.channels.channelOverrides(params.id, user), { auth: true, detail: doc("listChannelOverrides", v.array(PermissionOverride)) })
    .get("/:id/permissions/me", ({ user, params }) => domain.channels.myPermissions(params.id, user), { auth: true, detail: doc("getMyChannelPermissions", MyChannelPermissions) })
    .put(
      "/:id/permissions/:roleId",
      ({ user, params, body }) => domain.channels.setChannelOverride(params.id, params.roleId, user, body.allow, body.deny),
      { auth: true, body: OverrideBody, detail: doc("setChannelOverride", PermissionOverride) },
    )
    .delete(
      "/:id/permissions/:roleId",
      async ({ user, params }) => {
        await domain.channels.resetChannelOverride(params.id, params.roleId, user);
        return { success: true };
      },
      { auth: true, detail: doc("resetChannelOverride", Success) },
    );
