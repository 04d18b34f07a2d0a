import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { GifMessage } from "../../domain/messaging/message-schemas.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { SearchQuery, body } from "../schemas.ts";

const GifBody = body(GifMessage.entries);


/** A form text field as sent (string or file), absent as undefined. */
const field = (form: { get(name: string): unknown }, name: string) => form.get(name) ?? undefined;

/**
 * /api/v1/messages: uploads, GIFs, search and attachment metadata. A separate plugin from the
 * core message routes; the first-position parameter is `:id` (the channel id) as there.
 */
export const messageUploadRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/messages" })
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
        });
        set.status = 201;
        return message;
      },
      { auth: true, parse: "none" },
    )
    .post(
      "/:id/gif",
      async ({ user, params, body, set }) => {
        const message = await domain.messageUploads.gif(params.id, user, body);
        set.status = 201;
        return message;
      },
      { auth: true, body: GifBody },
    )
    .get("/:id/search", ({ user, params, query }) => domain.messages.search(params.id, user, query.q, query.limit ?? LIMITS.searchDefault), {
      auth: true,
      query: SearchQuery,
    })
    .get("/attachment/:attachmentId", ({ user, params }) => domain.messageUploads.attachment(params.attachmentId, user), { auth: true });
