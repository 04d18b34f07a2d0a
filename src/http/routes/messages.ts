import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AuthPlugin } from "../auth.ts";
import { body, queryLimit } from "../schemas.ts";
import { messageContent, messageId, SendMessageBody } from "../../domain/messaging/message-schemas.ts";
import { doc } from "../operation-doc.ts";
import { Message, Success } from "../../domain/shared/shapes.ts";
import { ChannelReadState } from "../responses/messaging.ts";

const SendBody = body(SendMessageBody.entries);
const EditBody = body({ content: messageContent });
const ReadBody = body({ message_id: v.optional(messageId) });
const PageQuery = v.pipe(
  v.object({
    before: v.optional(v.string()),
    after: v.optional(v.string()),
    around: v.optional(v.string()),
    limit: queryLimit(LIMITS.message.pageMax),
  }),
  v.check((q) => [q.before, q.after, q.around].filter((id) => id !== undefined).length <= 1, "before, after and around are mutually exclusive"),
);

/**
 * /api/v1/messages: channel messages. Every first-position parameter is `:id` (a channel id
 * or a message id, as the spec's paths say), because the router needs one name per position.
 */
export const messageRoutes = (domain: Domain, auth: AuthPlugin) => {
  return new Elysia({ prefix: "/api/v1/messages", tags: ["Messages"] })
    .use(auth)
    .get("/id/:messageId", ({ user, params }) => domain.messages.get(params.messageId, user), { auth: true, detail: doc("getMessage", Message) })
    .get("/:id", ({ user, params, query }) => domain.messages.page(params.id, user, { before: query.before, after: query.after, around: query.around, limit: query.limit ?? LIMITS.messagePage }), {
      auth: true,
      query: PageQuery,
      detail: doc("listMessages", v.array(Message)),
    })
    .post(
      "/:id",
      async ({ user, params, body, set }) => {
        const message = await domain.messages.send(params.id, user, body);
        set.status = 201;
        return message;
      },
      { auth: true, body: SendBody, detail: doc("sendMessage", { 201: Message }, { errors: [429] }) },
    )
    .put("/:id", ({ user, params, body }) => domain.messages.edit(params.id, user, body), { auth: true, body: EditBody, detail: doc("editMessage", Message) })
    .delete(
      "/:id",
      async ({ user, params }) => {
        await domain.messages.delete(params.id, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteMessage", Success) },
    )
    .post("/:id/read", ({ user, params, body }) => domain.messages.markRead(params.id, user, body.message_id), {
      auth: true,
      body: ReadBody,
      detail: doc("markChannelRead", ChannelReadState),
    });
};
