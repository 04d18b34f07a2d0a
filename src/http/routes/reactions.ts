import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { ReactionChange, ReactionGroup } from "../responses/messaging.ts";

const ReactionBody = body({ emoji: v.string("must be a string") });

/**
 * Reactions on channel messages, under /api/v1/messages (pins: ./pins.ts). The spec's `:channelId` is
 * named `:id` here: the router needs one name per position across the /api/v1/messages plugins.
 */
export const reactionRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/messages", tags: ["Reactions"] })
    .use(auth)
    .put("/:id/reactions/:messageId", ({ user, params, body }) => domain.reactions.toggle(params.id, params.messageId, user, body.emoji), {
      auth: true,
      body: ReactionBody,
      detail: doc("toggleReaction", ReactionChange),
    })
    .delete(
      "/:id/reactions/:messageId/:emoji",
      ({ user, params }) => domain.reactions.remove(params.id, params.messageId, user, params.emoji),
      { auth: true, detail: doc("removeReaction", ReactionChange) },
    )
    .get("/:id/reactions/:messageId", ({ user, params }) => domain.reactions.list(params.id, params.messageId, user), { auth: true, detail: doc("listReactions", v.array(ReactionGroup)) });
