import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { body } from "../schemas.ts";
import { displayName } from "../../domain/shared/validation.ts";
import { EditBody, GifBody, PageQuery, pageOf, ReactionBody, ReadBody, SearchQuery, SendBody, sendUpload } from "./dms.ts";
import { doc } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Dm, DmMessage, Success } from "../../domain/shared/shapes.ts";
import { DmPinState, DmReaction, DmReadState } from "../responses/messaging.ts";
import { UploadForm } from "./dms.ts";

const userId = v.pipe(v.string("must be a string"), v.uuid("must be a user id"));
/** Trimmed, at most LIMITS.dm.groupNameLength characters; empty or null clears the name. */
const groupName = v.nullable(
  v.pipe(
    displayName,
    v.maxLength(LIMITS.dm.groupNameLength, `must be at most ${LIMITS.dm.groupNameLength} characters`),
    v.transform((s) => (s === "" ? null : s)),
  ),
);

const CreateBody = body({
  name: v.optional(groupName),
  member_ids: v.pipe(v.array(userId, "must be an array of user ids"), v.maxLength(LIMITS.dm.groupCreateIds, "is too long")),
});
const UpdateBody = body({ name: v.optional(groupName) });
const UserBody = body({ user_id: userId });

/**
 * /api/v1/dm/groups: group DMs. Every first-position parameter is `:groupId`. A group the
 * caller is not in answers 404, whatever the route.
 */
export const groupDmRoutes = (domain: Domain, auth: AuthPlugin) => {
  const dms = domain.dms;
  return new Elysia({ prefix: "/api/v1/dm/groups", tags: ["Group DMs"] })
    .use(auth)
    .get("/", ({ user }) => dms.list(user, "group"), { auth: true, detail: doc("listGroups", v.array(Dm)) })
    .post(
      "/",
      async ({ user, body, set }) => {
        const group = await dms.createGroup(user, body);
        set.status = 201;
        return group;
      },
      { auth: true, body: CreateBody, detail: doc("createGroup", { 201: Dm }, { errors: [404] }) },
    )
    .patch(
      "/:groupId",
      async ({ user, params, body }) => {
        if (body.name === undefined) return dms.toDm(await dms.group(user, params.groupId), user.id);
        return dms.renameGroup(user, params.groupId, body.name);
      },
      { auth: true, body: UpdateBody, detail: doc("updateGroup", Dm) },
    )
    .delete(
      "/:groupId",
      async ({ user, params }) => {
        await dms.deleteGroup(user, params.groupId);
        return { success: true };
      },
      { auth: true, detail: doc("deleteGroup", Success) },
    )
    .post(
      "/:groupId/icon",
      async ({ user, params, request }) => {
        await dms.group(user, params.groupId);
        return dms.setGroupIcon(user, params.groupId, (await readMultipart(request, LIMITS.dm.groupIconBytes)).get("icon"));
      },
      { auth: true, parse: "none", detail: doc("setGroupIcon", Dm, { multipart: v.object({ icon: FileField }) }) },
    )
    .delete("/:groupId/icon", ({ user, params }) => dms.removeGroupIcon(user, params.groupId), { auth: true, detail: doc("removeGroupIcon", Dm) })
    .post("/:groupId/members", ({ user, params, body }) => dms.addGroupMember(user, params.groupId, body.user_id), {
      auth: true,
      body: UserBody,
      detail: doc("addGroupMember", Dm, { errors: [409] }),
    })
    .delete(
      "/:groupId/members/:memberId",
      async ({ user, params }) => {
        await dms.removeGroupMember(user, params.groupId, params.memberId);
        return { success: true };
      },
      { auth: true, detail: doc("removeGroupMember", Success) },
    )
    .post("/:groupId/owner", ({ user, params, body }) => dms.transferGroup(user, params.groupId, body.user_id), {
      auth: true,
      body: UserBody,
      detail: doc("transferGroup", Dm),
    })
    .post(
      "/:groupId/leave",
      async ({ user, params }) => {
        await dms.leaveGroup(user, params.groupId);
        return { success: true };
      },
      { auth: true, detail: doc("leaveGroup", Success) },
    )
    .get(
      "/:groupId/messages",
      async ({ user, params, query }) => dms.messages(await dms.group(user, params.groupId), pageOf(query)),
      { auth: true, query: PageQuery, detail: doc("listGroupMessages", v.array(DmMessage)) },
    )
    .post(
      "/:groupId/messages",
      async ({ user, params, body, set }) => {
        const message = await dms.send(await dms.group(user, params.groupId), user, body);
        set.status = 201;
        return message;
      },
      { auth: true, body: SendBody, detail: doc("sendGroupMessage", { 201: DmMessage }) },
    )
    .post(
      "/:groupId/upload",
      async ({ user, params, request, set }) => {
        const message = await sendUpload(dms, await dms.group(user, params.groupId), user, request);
        set.status = 201;
        return message;
      },
      { auth: true, parse: "none", detail: doc("uploadGroupMessage", { 201: DmMessage }, { multipart: UploadForm }) },
    )
    .post(
      "/:groupId/gif",
      async ({ user, params, body, set }) => {
        const message = await dms.send(await dms.group(user, params.groupId), user, { content: body.url, nonce: body.nonce, enforce_nonce: body.enforce_nonce });
        set.status = 201;
        return message;
      },
      { auth: true, body: GifBody, detail: doc("sendGroupGif", { 201: DmMessage }) },
    )
    .put(
      "/:groupId/messages/:messageId",
      async ({ user, params, body }) => dms.edit(await dms.group(user, params.groupId), user, params.messageId, body.content),
      { auth: true, body: EditBody, detail: doc("editGroupMessage", DmMessage) },
    )
    .delete(
      "/:groupId/messages/:messageId",
      async ({ user, params }) => {
        await dms.remove(await dms.group(user, params.groupId), user, params.messageId);
        return { success: true };
      },
      { auth: true, detail: doc("deleteGroupMessage", Success) },
    )
    .put(
      "/:groupId/messages/:messageId/reactions",
      async ({ user, params, body }) => dms.toggleReaction(await dms.group(user, params.groupId), user, params.messageId, body.emoji),
      { auth: true, body: ReactionBody, detail: doc("toggleGroupReaction", DmReaction) },
    )
    .get(
      "/:groupId/search",
      async ({ user, params, query }) => dms.search(await dms.group(user, params.groupId), query.q, query.limit ?? LIMITS.searchDefault),
      { auth: true, query: SearchQuery, detail: doc("searchGroup", v.array(DmMessage)) },
    )
    .post("/:groupId/read", async ({ user, params, body }) => dms.markRead(await dms.group(user, params.groupId), user, body.message_id), {
      auth: true,
      body: ReadBody,
      detail: doc("markGroupRead", DmReadState),
    })
    .get("/:groupId/pins", async ({ user, params }) => dms.pins(await dms.group(user, params.groupId)), { auth: true, detail: doc("listGroupPins", v.array(DmMessage)) })
    .post(
      "/:groupId/pins/:messageId",
      async ({ user, params }) => dms.setPinned(await dms.group(user, params.groupId), user, params.messageId, true),
      { auth: true, detail: doc("pinGroupMessage", DmPinState) },
    )
    .delete(
      "/:groupId/pins/:messageId",
      async ({ user, params }) => dms.setPinned(await dms.group(user, params.groupId), user, params.messageId, false),
      { auth: true, detail: doc("unpinGroupMessage", DmPinState) },
    );
};
