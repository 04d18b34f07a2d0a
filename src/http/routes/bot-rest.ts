import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { PRESENCE_STATUSES, type ActivityType } from "../../domain/shared/shapes.ts";
import type { AuthPlugin } from "../auth.ts";
import { InviteBody } from "./invites.ts";
import { body, MEMBER_LIST_DESCRIPTION, MemberListQuery, queryLimit } from "../schemas.ts";
import { MessageBody, SendMessageBody } from "../../domain/messaging/message-schemas.ts";
import { nonceEntries } from "../../domain/messaging/nonce.ts";
import { boundedText, displayName, integer, stripUnprintable } from "../../domain/shared/validation.ts";
import { doc } from "../operation-doc.ts";
import { Channel, DmMessage, Message, Role, Success } from "../../domain/shared/shapes.ts";
import { BulkDeleteResult } from "../responses/messaging.ts";
import { Ban, Invite, Member, Server } from "../responses/community.ts";
import { BotPresence } from "../responses/bots.ts";
import { UserWithActivity } from "../responses/accounts.ts";

const uuid = (what: string) => v.pipe(v.string("must be a string"), v.uuid(`must be a ${what} id`));
const SendBody = body(SendMessageBody.entries);
const EditBody = body(MessageBody.entries);
const DmBody = body({ ...MessageBody.entries, ...nonceEntries });
const BulkDeleteBody = body({
  message_ids: v.pipe(
    v.array(uuid("message"), "must be an array of message ids"),
    v.minLength(1, `must hold 1-${LIMITS.bulkDeleteMessages} message ids`),
    v.maxLength(LIMITS.bulkDeleteMessages, `must hold 1-${LIMITS.bulkDeleteMessages} message ids`),
  ),
});
/** `before` and `after` together bound a range; `around` (Discord's) stands alone. */
const PageQuery = v.pipe(
  v.object({
    before: v.optional(uuid("message")),
    after: v.optional(uuid("message")),
    around: v.optional(uuid("message")),
    limit: queryLimit(LIMITS.botMessageListMax),
  }),
  v.check((q) => q.around === undefined || (q.before === undefined && q.after === undefined), "around cannot be combined with before or after"),
);
const BanBody = body({
  user_id: uuid("user"),
  reason: v.optional(v.nullable(boundedText(LIMITS.moderation.reasonLength))),
  delete_message_seconds: v.optional(integer(0, LIMITS.moderation.deleteMessageMaxSeconds)),
});

const ACTIVITY_TYPES: readonly ActivityType[] = ["playing", "listening", "watching", "competing", "custom"];
const activityText = v.pipe(v.string("must be a string"), v.transform(stripUnprintable), v.maxLength(LIMITS.bot.activityTextLength, `must be at most ${LIMITS.bot.activityTextLength} characters`));
const Activity = v.object(
  {
    type: v.picklist(ACTIVITY_TYPES, `must be one of ${ACTIVITY_TYPES.join(", ")}`),
    name: v.pipe(
      displayName,
      v.minLength(1, `must be 1-${LIMITS.bot.activityTextLength} characters`),
      v.maxLength(LIMITS.bot.activityTextLength, `must be 1-${LIMITS.bot.activityTextLength} characters`),
    ),
    details: v.optional(activityText),
    state: v.optional(activityText),
    started_at: v.optional(integer(0, Number.MAX_SAFE_INTEGER)),
  },
  "must be an object or null",
);
const PresenceBody = body({
  status: v.picklist(PRESENCE_STATUSES, `must be one of ${PRESENCE_STATUSES.join(", ")}`),
  activity: v.optional(v.nullable(Activity)),
});

const success = { success: true } as const;

/**
 * /api/v1/oauth2/bot: Bot REST (bot tokens only; a user token is 403). Every route calls the
 * same domain function as its shared counterpart, so bits, rank, events and audit entries
 * agree; BotRest adds only what is bot-specific (own messages only, DMs, presence).
 */
export const botRestRoutes = (domain: Domain, auth: AuthPlugin) => {
  const bot = domain.botRest;
  return (
    new Elysia({ prefix: "/api/v1/oauth2/bot", tags: ["Bot REST"] })
      .use(auth)
      // --- channel messages ---
      .post(
        "/channels/:channelId/messages",
        async ({ user, params, body, set }) => {
          const message = await bot.send(params.channelId, user, body);
          set.status = 201;
          return message;
        },
        { bot: true, body: SendBody, detail: doc("botSendMessage", { 201: Message }, { errors: [429] }) },
      )
      .get(
        "/channels/:channelId/messages",
        ({ user, params, query }) =>
          bot.list(params.channelId, user, { before: query.before, after: query.after, around: query.around, limit: query.limit ?? LIMITS.botMessageListDefault }),
        { bot: true, query: PageQuery, detail: doc("botListMessages", v.array(Message)) },
      )
      .post(
        "/channels/:channelId/messages/bulk-delete",
        ({ user, params, body }) => domain.messages.bulkDelete(params.channelId, user, body.message_ids),
        { bot: true, body: BulkDeleteBody, detail: doc("botBulkDeleteMessages", BulkDeleteResult) },
      )
      .put("/channels/:channelId/messages/:messageId", ({ user, params, body }) => bot.edit(params.channelId, params.messageId, user, body), {
        bot: true,
        body: EditBody,
        detail: doc("botEditMessage", Message),
      })
      .delete(
        "/channels/:channelId/messages/:messageId",
        async ({ user, params }) => {
          await bot.delete(params.channelId, params.messageId, user);
          return success;
        },
        { bot: true, detail: doc("botDeleteMessage", Success) },
      )
      // --- direct messages ---
      .post(
        "/dm/:targetUserId",
        async ({ user, params, body, set }) => {
          const message = await bot.dm(params.targetUserId, user, body);
          set.status = 201;
          return message;
        },
        { bot: true, body: DmBody, detail: doc("botSendDm", { 201: DmMessage }) },
      )
      // --- servers ---
      .get("/servers/:serverId", ({ user, params }) => domain.servers.get(params.serverId, user), { bot: true, detail: doc("botGetServer", Server) })
      .get("/servers/:serverId/channels", ({ user, params }) => bot.channels(params.serverId, user), { bot: true, detail: doc("botListChannels", v.array(Channel)) })
      .get("/servers/:serverId/members", ({ user, params, query }) => domain.members.list(params.serverId, user.id, query), {
        bot: true,
        query: MemberListQuery,
        detail: doc("botListMembers", v.array(Member), { description: MEMBER_LIST_DESCRIPTION }),
      })
      .get("/servers/:serverId/members/:userId", ({ user, params }) => bot.member(params.serverId, user, params.userId), { bot: true, detail: doc("botGetMember", Member) })
      .delete(
        "/servers/:serverId/members/:userId",
        async ({ user, params }) => {
          await domain.moderation.kick(params.serverId, user.id, params.userId);
          return success;
        },
        { bot: true, detail: doc("botKickMember", Success) },
      )
      .post(
        "/servers/:serverId/bans",
        async ({ user, params, body, set }) => {
          const ban = await domain.moderation.ban(params.serverId, user.id, body.user_id, body.reason ?? null, body.delete_message_seconds ?? 0);
          set.status = 201;
          return ban;
        },
        { bot: true, body: BanBody, detail: doc("botBanMember", { 201: Ban }, { errors: [409] }) },
      )
      .delete(
        "/servers/:serverId/bans/:userId",
        async ({ user, params }) => {
          await domain.moderation.unban(params.serverId, user.id, params.userId);
          return success;
        },
        { bot: true, detail: doc("botUnbanMember", Success) },
      )
      .get("/servers/:serverId/roles", ({ user, params }) => domain.roles.list(params.serverId, user.id), { bot: true, detail: doc("botListRoles", v.array(Role)) })
      .post(
        "/servers/:serverId/members/:userId/roles/:roleId",
        async ({ user, params }) => {
          await domain.roles.assign(params.serverId, user.id, params.userId, params.roleId);
          return success;
        },
        { bot: true, detail: doc("botAssignRole", Success) },
      )
      .delete(
        "/servers/:serverId/members/:userId/roles/:roleId",
        async ({ user, params }) => {
          await domain.roles.unassign(params.serverId, user.id, params.userId, params.roleId);
          return success;
        },
        { bot: true, detail: doc("botUnassignRole", Success) },
      )
      .post(
        "/servers/:serverId/invites",
        async ({ user, params, body, set }) => {
          const invite = await domain.invites.create(params.serverId, user.id, {
            maxUses: body?.max_uses ?? undefined,
            expiresIn: body?.expires_in ?? undefined,
          });
          set.status = 201;
          return invite;
        },
        { bot: true, body: InviteBody, detail: doc("botCreateInvite", { 201: Invite }) },
      )
      .get("/servers/:serverId/invites", ({ user, params }) => domain.invites.list(params.serverId, user.id), { bot: true, detail: doc("botListInvites", v.array(Invite)) })
      .delete(
        "/servers/:serverId/invites/:inviteId",
        async ({ user, params }) => {
          await domain.invites.delete(params.serverId, user.id, params.inviteId);
          return success;
        },
        { bot: true, detail: doc("botDeleteInvite", Success) },
      )
      // --- presence and users ---
      .put("/presence", ({ user, body }) => bot.setPresence(user, body.status, body.activity), { bot: true, body: PresenceBody, detail: doc("botSetPresence", BotPresence) })
      .get("/users/:userId", ({ user, params }) => bot.user(user, params.userId), { bot: true, detail: doc("botGetUser", UserWithActivity) })
  );
};
