import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { GifMessage } from "../../domain/messaging/message-schemas.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { SearchQuery, body } from "../schemas.ts";
import * as v from "valibot";
import { doc } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Message } from "../../domain/shared/shapes.ts";
import { AttachmentInfo } from "../responses/messaging.ts";

/** The upload form (docs/messages.md): 1-10 `files`, and the message fields as text. */
const UploadForm = v.object({
  files: v.array(FileField),
  content: v.optional(v.string()),
  replyTo: v.optional(v.string()),
  remoteUrl: v.optional(v.string()),
  nonce: v.optional(v.string()),
  enforce_nonce: v.optional(v.picklist(["true", "false"])),
});

const GifBody = body(GifMessage.entries);


/** A form text field as sent (string or file), absent as undefined. */
const field = (form: { get(name: string): unknown }, name: string) => form.get(name) ?? undefined;

/**
 * /api/v1/messages: uploads, GIFs, search and attachment metadata. A separate plugin from the
 * core message routes; the first-position parameter is `:id` (the channel id) as there.
 */
export const messageUploadRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/messages", tags: ["Messages"] })
    .use(auth)
    .post(
      "/:id/upload",
      async ({ user, params, request, set }) => {
        // The limit depends on the server and the caller: resolve them (and refuse a caller who
        // may not upload there) before a byte of the body is read.
        const limit = await domain.messageUploads.uploadLimit(params.id, user);
        const form = await readMultipart(request, limit);
        const message = await domain.messageUploads.upload(params.id, user, {
          files: form.getAll("files"),
          content: field(form, "content"),
          replyTo: field(form, "replyTo"),
          remoteUrl: field(form, "remoteUrl"),
          nonce: field(form, "nonce"),
          enforceNonce: field(form, "enforce_nonce"),
        });
        set.status = 201;
        return message;
      },
      { auth: true, parse: "none", detail: doc("uploadMessage", { 201: Message }, { multipart: UploadForm, errors: [429] }) },
    )
    .post(
      "/:id/gif",
      async ({ user, params, body, set }) => {
        const message = await domain.messageUploads.gif(params.id, user, body);
        set.status = 201;
        return message;
      },
      { auth: true, body: GifBody, detail: doc("sendGifMessage", { 201: Message }, { errors: [429] }) },
    )
    .get("/:id/search", ({ user, params, query }) => domain.messages.search(params.id, user, query.q, query.limit ?? LIMITS.searchDefault), {
      auth: true,
      query: SearchQuery,
      detail: doc("searchMessages", v.array(Message)),
    })
    .get("/attachment/:attachmentId", ({ user, params }) => domain.messageUploads.attachment(params.attachmentId, user), { auth: true, detail: doc("getAttachment", AttachmentInfo) });
