import { Elysia } from "elysia";
import * as v from "valibot";
import type { Dms } from "../../domain/dms/dms.ts";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { DmRow } from "../../store/dms-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { NonceFormFields, nonceEntries } from "../../domain/messaging/nonce.ts";
import { SearchQuery, body, queryLimit } from "../schemas.ts";
import { dmContent, messageId } from "../../domain/messaging/message-schemas.ts";
import { doc } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Dm, DmMessage, Success } from "../../domain/shared/shapes.ts";
import { DmPinState, DmReaction, DmReadState } from "../responses/messaging.ts";

/** The DM upload form: 1-10 `files` and an optional `content`. */
export const UploadForm = v.object({
  files: v.array(FileField),
  content: v.optional(v.string()),
  nonce: v.optional(v.string()),
  enforce_nonce: v.optional(v.picklist(["true", "false"])),
});

export const SendBody = body({ content: dmContent, reply_to: v.optional(v.nullable(messageId)), ...nonceEntries });
export const EditBody = body({ content: dmContent });
export const ReadBody = v.optional(body({ message_id: v.optional(messageId) }), {});
export const GifBody = body({
  url: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.maxLength(LIMITS.message.urlLength, `must be at most ${LIMITS.message.urlLength} characters`),
    v.url("must be an http(s) URL"),
    v.regex(/^https?:\/\//i, "must be an http(s) URL"),
  ),
  ...nonceEntries,
});
export const ReactionBody = body({
  emoji: v.pipe(v.string("must be a string"), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(LIMITS.message.unicodeEmojiLength, `must be at most ${LIMITS.message.unicodeEmojiLength} characters`)),
});
export const PageQuery = v.pipe(
  v.object({
    before: v.optional(v.pipe(v.string(), v.uuid("must be a message id"))),
    after: v.optional(v.pipe(v.string(), v.uuid("must be a message id"))),
    around: v.optional(v.pipe(v.string(), v.uuid("must be a message id"))),
    limit: queryLimit(LIMITS.message.pageMax),
  }),
  v.check((q) => [q.before, q.after, q.around].filter((id) => id !== undefined).length <= 1, "before, after and around are mutually exclusive"),
);
export { SearchQuery };

const UploadContent = v.optional(v.pipe(v.string("must be text"), v.maxLength(LIMITS.message.contentLength, `must be at most ${LIMITS.message.contentLength} characters`)), "");

/** Reads the upload form (`files`: 1-10 files, 25 MB in all, `content?`) and sends it. */
export async function sendUpload(dms: Dms, dm: DmRow, user: UserRow, request: Request) {
  // The limit covers the whole upload, as for channel uploads (docs/messages.md).
  const form = await readMultipart(request, LIMITS.attachmentBytes);
  const text = parseInput(UploadContent, form.get("content") ?? undefined, "content");
  const nonce = parseInput(NonceFormFields, { nonce: form.get("nonce") ?? undefined, enforce_nonce: form.get("enforce_nonce") ?? undefined });
  return dms.upload(dm, user, form.getAll("files"), text, nonce);
}

export const pageOf = (query: v.InferOutput<typeof PageQuery>) => ({
  before: query.before,
  after: query.after,
  around: query.around,
  limit: query.limit ?? LIMITS.messagePage,
});

/**
 * /api/v1/dm: 1:1 direct messages, addressed by the other user's id. Every first-position
 * parameter is `:targetUserId` (the router needs one name per position); `channels` and
 * `groups` (group-dms.ts) are static segments.
 */
export const dmRoutes = (domain: Domain, auth: AuthPlugin) => {
  const dms = domain.dms;
  return new Elysia({ prefix: "/api/v1/dm", tags: ["DMs"] })
    .use(auth)
    .get("/channels", ({ user }) => dms.list(user, null), { auth: true, detail: doc("listDmChannels", v.array(Dm)) })
    .post(
      "/channels/:targetUserId",
      async ({ user, params, set }) => {
        const { dm, created } = await dms.openDm(user, params.targetUserId);
        set.status = created ? 201 : 200;
        return dms.toDm(dm, user.id);
      },
      { auth: true, detail: doc("openDm", { 200: Dm, 201: Dm }) },
    )
    .get(
      "/:targetUserId/messages",
      async ({ user, params, query }) => dms.messages(await dms.findDm(user, params.targetUserId), pageOf(query)),
      { auth: true, query: PageQuery, detail: doc("listDmMessages", v.array(DmMessage)) },
    )
    .post(
      "/:targetUserId/messages",
      async ({ user, params, body, set }) => {
        const { dm } = await dms.openDm(user, params.targetUserId);
        const message = await dms.send(dm, user, body);
        set.status = 201;
        return message;
      },
      { auth: true, body: SendBody, detail: doc("sendDm", { 201: DmMessage }) },
    )
    .post(
      "/:targetUserId/upload",
      async ({ user, params, request, set }) => {
        const { dm } = await dms.openDm(user, params.targetUserId);
        const message = await sendUpload(dms, dm, user, request);
        set.status = 201;
        return message;
      },
      { auth: true, parse: "none", detail: doc("uploadDm", { 201: DmMessage }, { multipart: UploadForm }) },
    )
    .post(
      "/:targetUserId/gif",
      async ({ user, params, body, set }) => {
        const { dm } = await dms.openDm(user, params.targetUserId);
        const message = await dms.send(dm, user, { content: body.url, nonce: body.nonce, enforce_nonce: body.enforce_nonce });
        set.status = 201;
        return message;
      },
      { auth: true, body: GifBody, detail: doc("sendDmGif", { 201: DmMessage }) },
    )
    .put(
      "/:targetUserId/messages/:messageId",
      async ({ user, params, body }) =>
        dms.edit(await dms.requireDm(user, params.targetUserId, "Message"), user, params.messageId, body.content),
      { auth: true, body: EditBody, detail: doc("editDm", DmMessage) },
    )
    .delete(
      "/:targetUserId/messages/:messageId",
      async ({ user, params }) => {
        await dms.remove(await dms.requireDm(user, params.targetUserId, "Message"), user, params.messageId);
        return { success: true };
      },
      { auth: true, detail: doc("deleteDm", Success) },
    )
    .put(
      "/:targetUserId/messages/:messageId/reactions",
      async ({ user, params, body }) =>
        dms.toggleReaction(await dms.requireDm(user, params.targetUserId, "Message"), user, params.messageId, body.emoji),
      { auth: true, body: ReactionBody, detail: doc("toggleDmReaction", DmReaction) },
    )
    .post(
      "/:targetUserId/read",
      async ({ user, params, body }) => dms.markRead(await dms.requireDm(user, params.targetUserId), user, body.message_id),
      { auth: true, body: ReadBody, detail: doc("markDmRead", DmReadState) },
    )
    .get(
      "/:targetUserId/search",
      async ({ user, params, query }) =>
        dms.search(await dms.findDm(user, params.targetUserId), query.q, query.limit ?? LIMITS.searchDefault),
      { auth: true, query: SearchQuery, detail: doc("searchDm", v.array(DmMessage)) },
    )
    .get("/:targetUserId/pins", async ({ user, params }) => dms.pins(await dms.findDm(user, params.targetUserId)), { auth: true, detail: doc("listDmPins", v.array(DmMessage)) })
    .post(
      "/:targetUserId/pins/:messageId",
      async ({ user, params }) => dms.setPinned(await dms.requireDm(user, params.targetUserId, "Message"), user, params.messageId, true),
      { auth: true, detail: doc("pinDm", DmPinState) },
    )
    .delete(
      "/:targetUserId/pins/:messageId",
      async ({ user, params }) => dms.setPinned(await dms.requireDm(user, params.targetUserId, "Message"), user, params.messageId, false),
      { auth: true, detail: doc("unpinDm", DmPinState) },
    );
};
