import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { CONNECTION_TYPES } from "../../domain/accounts/users.ts";
import { DMS_FROM, FRIEND_REQUESTS_FROM } from "../../domain/accounts/privacy.ts";
import { boolean, boundedText, displayName, integer, password, username } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { limitedClientAddress } from "../client-address.ts";
import { readMultipart } from "../multipart.ts";
import { body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { MeUser, PublicUser, Success } from "../../domain/shared/shapes.ts";
import { ReadState } from "../responses/messaging.ts";
import { Connection, CustomStatus, MutedUser, NotificationSettings, PrivacySettings, Session, UserProfile } from "../responses/accounts.ts";

const ProfileBody = body({
  username: v.optional(username),
  bio: v.optional(boundedText(LIMITS.bioLength)),
  banner_offset: v.optional(integer(LIMITS.bannerOffsetMin, LIMITS.bannerOffsetMax)),
});

const PasswordBody = body({
  currentPassword: v.pipe(v.string("must be a string"), v.maxLength(LIMITS.account.passwordMax, `must be at most ${LIMITS.account.passwordMax} characters`)),
  newPassword: password,
});

const NotificationsBody = body({
  message_notifications: v.optional(v.picklist(["all", "mentions", "none"], "must be one of all, mentions, none")),
  dm_notifications: v.optional(boolean),
  friend_request_notifications: v.optional(boolean),
  sounds: v.optional(boolean),
  desktop: v.optional(boolean),
});

const PrivacyBody = body({
  dms_from: v.optional(v.picklist(DMS_FROM, `must be one of ${DMS_FROM.join(", ")}`)),
  friend_requests_from: v.optional(v.picklist(FRIEND_REQUESTS_FROM, `must be one of ${FRIEND_REQUESTS_FROM.join(", ")}`)),
});

const ConnectionBody = body({
  type: v.picklist(CONNECTION_TYPES, `must be one of ${CONNECTION_TYPES.join(", ")}`),
  name: v.pipe(
    displayName,
    v.minLength(1, "must not be empty"),
    v.maxLength(LIMITS.account.connectionNameLength, `must be at most ${LIMITS.account.connectionNameLength} characters`),
  ),
  url: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.maxLength(LIMITS.account.connectionUrlLength, `must be at most ${LIMITS.account.connectionUrlLength} characters`),
      v.regex(/^https?:\/\/[^\s]+$/i, "must be an http(s) URL"),
    ),
  ),
  visible: v.optional(boolean),
});

const { account } = LIMITS;
const CustomStatusBody = body({
  text: v.pipe(
    displayName,
    v.minLength(1, "must not be empty"),
    v.maxLength(account.customStatusLength, `must be 1-${account.customStatusLength} characters`),
  ),
  emoji: v.optional(
    v.nullable(v.pipe(v.string("must be a string"), v.maxLength(account.customStatusEmojiLength, `must be at most ${account.customStatusEmojiLength} characters`))),
  ),
  expires_in: v.optional(v.nullable(integer(account.customStatusExpiryMin, account.customStatusExpiryMax))),
});

/** /api/v1/users: the caller's account and other users' public views. */
export const userRoutes = (domain: Domain, auth: AuthPlugin) => {
  return new Elysia({ prefix: "/api/v1/users", tags: ["Users"] })
    .use(auth)
    .get("/me/info", ({ user }) => domain.users.me(user), { auth: true, detail: doc("getMe", MeUser) })
    .put("/me/profile", ({ user, body }) => domain.users.updateProfile(user, body), { auth: true, body: ProfileBody, detail: doc("updateMyProfile", MeUser, { errors: [409] }) })
    .post(
      "/me/avatar",
      async ({ user, request }) => {
        const form = await readMultipart(request, LIMITS.userAvatarBytes);
        return domain.users.setImage(user, "avatar", form.get("avatar"));
      },
      { auth: true, parse: "none", detail: doc("setMyAvatar", MeUser, { multipart: v.object({ avatar: FileField }) }) },
    )
    .delete("/me/avatar", ({ user }) => domain.users.removeImage(user, "avatar"), { auth: true, detail: doc("removeMyAvatar", MeUser) })
    .post(
      "/me/banner",
      async ({ user, request }) => {
        const form = await readMultipart(request, LIMITS.userBannerBytes);
        return domain.users.setImage(user, "banner", form.get("banner"));
      },
      { auth: true, parse: "none", detail: doc("setMyBanner", MeUser, { multipart: v.object({ banner: FileField }) }) },
    )
    .delete("/me/banner", ({ user }) => domain.users.removeImage(user, "banner"), { auth: true, detail: doc("removeMyBanner", MeUser) })
    .put(
      "/me/password",
      ({ user, body, request, server }) =>
        domain.accounts.changePassword(user, body.currentPassword, body.newPassword, limitedClientAddress(request, server)),
      { auth: true, body: PasswordBody, detail: doc("changePassword", Session, { errors: [429] }) },
    )
    .put("/me/custom-status", ({ user, body }) => domain.customStatuses.set(user, body), {
      auth: true,
      body: CustomStatusBody,
      detail: doc("setCustomStatus", CustomStatus, { errors: [403], description: "Sets the caller's custom status (docs/users.md, \"Custom status\"); people only" }),
    })
    .delete(
      "/me/custom-status",
      async ({ user }) => {
        await domain.customStatuses.clear(user);
        return { success: true };
      },
      { auth: true, detail: doc("clearCustomStatus", Success, { errors: [403] }) },
    )
    .get("/me/read-states", ({ user }) => domain.readStates.list(user), { auth: true, detail: doc("listReadStates", v.array(ReadState)) })
    .get("/me/notifications", ({ user }) => domain.users.notificationSettings(user), { auth: true, detail: doc("getNotificationSettings", NotificationSettings) })
    .post("/me/notifications", ({ user, body }) => domain.users.updateNotificationSettings(user, body), {
      auth: true,
      body: NotificationsBody,
      detail: doc("updateNotificationSettings", NotificationSettings),
    })
    .get("/me/privacy", ({ user }) => domain.privacy.get(user), { auth: true, detail: doc("getPrivacySettings", PrivacySettings) })
    .patch("/me/privacy", ({ user, body }) => domain.privacy.update(user, body), {
      auth: true,
      body: PrivacyBody,
      detail: doc("updatePrivacySettings", PrivacySettings),
    })
    .get("/me/connections", ({ user }) => domain.users.connections(user), { auth: true, detail: doc("listConnections", v.array(Connection)) })
    .post(
      "/me/connections",
      async ({ user, body, set }) => {
        set.status = 201;
        return domain.users.addConnection(user, body);
      },
      { auth: true, body: ConnectionBody, detail: doc("addConnection", { 201: Connection }) },
    )
    .delete(
      "/me/connections/:connectionId",
      async ({ user, params }) => {
        await domain.users.removeConnection(user, params.connectionId);
        return { success: true };
      },
      { auth: true, detail: doc("removeConnection", Success) },
    )
    .get("/me/muted-users", ({ user }) => domain.users.mutedUsers(user), { auth: true, detail: doc("listMutedUsers", v.array(MutedUser)) })
    .post(
      "/me/muted-users/:targetId",
      async ({ user, params, set }) => {
        const { created, muted } = await domain.users.muteUser(user, params.targetId);
        set.status = created ? 201 : 200;
        return muted;
      },
      { auth: true, detail: doc("muteUser", { 200: MutedUser, 201: MutedUser }) },
    )
    .delete(
      "/me/muted-users/:targetId",
      async ({ user, params }) => {
        await domain.users.unmuteUser(user, params.targetId);
        return { success: true };
      },
      { auth: true, detail: doc("unmuteUser", Success) },
    )
    .get("/:id", ({ user, params }) => domain.users.publicUser(params.id, user), { auth: true, detail: doc("getUser", PublicUser) })
    .get("/:id/profile", ({ user, params }) => domain.users.profile(params.id, user), { auth: true, detail: doc("getUserProfile", UserProfile) });
};
