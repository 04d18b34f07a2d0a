import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { NotificationOverride, NotificationOverrideChange } from "../../domain/accounts/notification-overrides.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";

const ChangeBody = body(NotificationOverrideChange);

/**
 * /api/v1/users/me/notifications/...: the caller's notification settings per server, channel
 * and DM (docs/users.md), beside the account-wide `/users/me/notifications` and the server mute.
 */
export const notificationOverrideRoutes = (domain: Domain, auth: AuthPlugin) => {
  const overrides = domain.notificationOverrides;
  return new Elysia({ prefix: "/api/v1/users/me/notifications", tags: ["Users"] })
    .use(auth)
    .get("/overrides", ({ user }) => overrides.list(user), { auth: true, detail: doc("listNotificationOverrides", v.array(NotificationOverride)) })
    .get("/servers/:serverId", ({ user, params }) => overrides.get(user, "server", params.serverId), {
      auth: true,
      detail: doc("getServerNotificationSettings", NotificationOverride),
    })
    .put("/servers/:serverId", ({ user, params, body }) => overrides.set(user, "server", params.serverId, body), {
      auth: true,
      body: ChangeBody,
      detail: doc("setServerNotificationSettings", NotificationOverride),
    })
    .get("/channels/:channelId", ({ user, params }) => overrides.get(user, "channel", params.channelId), {
      auth: true,
      detail: doc("getChannelNotificationSettings", NotificationOverride),
    })
    .put("/channels/:channelId", ({ user, params, body }) => overrides.set(user, "channel", params.channelId, body), {
      auth: true,
      body: ChangeBody,
      detail: doc("setChannelNotificationSettings", NotificationOverride),
    })
    .get("/dms/:dmId", ({ user, params }) => overrides.get(user, "dm", params.dmId), {
      auth: true,
      detail: doc("getDmNotificationSettings", NotificationOverride),
    })
    .put("/dms/:dmId", ({ user, params, body }) => overrides.set(user, "dm", params.dmId, body), {
      auth: true,
      body: ChangeBody,
      detail: doc("setDmNotificationSettings", NotificationOverride),
    });
};
