import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { ConnectionRow, MutedUserRow } from "../../store/user-settings-repo.ts";
import { BotFlag, ImageUrl, PublicUser, UnixSeconds, Uuid, type MeUser } from "../shared/shapes.ts";
import { badRequest, conflict, notFound } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { readImageUpload, type UploadStore } from "../shared/uploads.ts";
import { isUuid } from "../shared/validation.ts";
import { presenceShownTo } from "./presence-visibility.ts";
import { currentCustomStatus } from "./current-custom-status.ts";

export function toMeUser(user: UserRow): MeUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email ?? "",
    avatar: user.avatar,
    banner: user.banner,
    banner_offset: user.banner_offset,
    bio: user.bio,
    status: user.status,
    custom_status: currentCustomStatus(user),
    is_bot: user.is_bot,
    two_factor_enabled: user.totp_secret !== null,
    premium: user.premium === 1,
    platform_admin: user.platform_admin === 1 && user.is_bot === 0,
    created_at: user.created_at,
  };
}

/** The user as they are; presenceShownTo hides their presence and custom status from those who may not see them. */
export function toPublicUser(user: UserRow): PublicUser {
  return {
    id: user.id,
    username: user.username,
    avatar: user.avatar,
    banner: user.banner,
    banner_offset: user.banner_offset,
    bio: user.bio,
    status: user.status,
    custom_status: currentCustomStatus(user),
    is_bot: user.is_bot,
    created_at: user.created_at,
  };
}

export const Connection = v.object({
  id: Uuid,
  type: v.string(),
  name: v.string(),
  url: v.nullable(v.string()),
  visible: v.boolean(),
  verified: v.literal(false),
  created_at: UnixSeconds,
});
export type Connection = v.InferOutput<typeof Connection>;

/** Profile links a user shows on their profile; Hearth cannot verify them (no outside network). */
export const CONNECTION_TYPES = [
  "website", "github", "gitlab", "twitter", "bluesky", "mastodon", "youtube", "twitch",
  "reddit", "steam", "spotify", "xbox", "playstation", "battlenet", "epicgames", "tiktok", "instagram",
] as const;

const toConnection = (row: ConnectionRow): Connection => ({
  id: row.id,
  type: row.type,
  name: row.name,
  url: row.url,
  visible: row.visible === 1,
  verified: false,
  created_at: row.created_at,
});

export const MutedUser = v.object({ user_id: Uuid, username: v.string(), avatar: ImageUrl, is_bot: BotFlag, created_at: UnixSeconds });
export type MutedUser = v.InferOutput<typeof MutedUser>;

const toMutedUser = (row: MutedUserRow): MutedUser => ({ ...row });

/** The account's notification preferences (docs/users.md, "Notification preferences"). */
export const NotificationSettings = v.object({
  message_notifications: v.picklist(["all", "mentions", "none"]),
  dm_notifications: v.boolean(),
  friend_request_notifications: v.boolean(),
  sounds: v.boolean(),
  desktop: v.boolean(),
});
export type NotificationSettings = v.InferOutput<typeof NotificationSettings>;

export const UserProfile = v.object({
  ...PublicUser.entries,
  connections: v.array(Connection),
  mutual_servers: v.array(v.object({ id: Uuid, name: v.string(), icon: ImageUrl })),
  mutual_friends: v.array(v.object({ id: Uuid, username: v.string(), avatar: ImageUrl })),
});
export type UserProfile = v.InferOutput<typeof UserProfile>;

/** Users' own accounts and what others can see of them. */
export class Users {
  constructor(private readonly store: Store, private readonly uploads: UploadStore) {}

  /** An existing user by id; a malformed id is "not found" like any unknown one. */
  async get(id: string): Promise<UserRow> {
    const user = isUuid(id) ? await this.store.users.findById(id) : null;
    if (!user) throw notFound("User");
    return user;
  }

  me(user: UserRow): MeUser {
    return toMeUser(user);
  }

  /** The public user as `viewer` sees it: its presence only if presenceShownTo says so. */
  async publicUser(id: string, viewer: UserRow): Promise<PublicUser> {
    return this.seenBy(viewer, await this.get(id));
  }

  /** The public user, their visible connections, and the servers they share with the viewer. */
  async profile(id: string, viewer: UserRow): Promise<UserProfile> {
    const user = await this.get(id);
    const connections = (await this.store.userSettings.listConnections(user.id)).filter((c) => c.visible === 1);
    return {
      ...(await this.seenBy(viewer, user)),
      connections: connections.map(toConnection),
      mutual_servers: await this.store.members.mutualServers(viewer.id, user.id),
      // On one's own profile the list would be every friend, so it is empty there.
      mutual_friends: viewer.id === user.id ? [] : await this.store.friends.mutualFriends(viewer.id, user.id),
    };
  }

  private async seenBy(viewer: UserRow, user: UserRow): Promise<PublicUser> {
    const [shown] = await presenceShownTo(this.store, viewer.id, [toPublicUser(user)], (u) => u.id);
    return shown!;
  }

  async updateProfile(user: UserRow, changes: { username?: string; bio?: string; banner_offset?: number }): Promise<MeUser> {
    // Bots are renamed through their application, so the two names cannot drift apart.
    if (user.is_bot && changes.username !== undefined) throw badRequest("username: a bot is renamed through its application");
    const result = await this.store.users.updateProfile(user.id, changes);
    if (!result) throw notFound("User");
    if (!result.ok) throw conflict("Username is already taken");
    return toMeUser(result.user);
  }

  /** Replaces the avatar or banner; the old file is removed, and a failed write leaves no new file behind. */
  async setImage(user: UserRow, kind: "avatar" | "banner", file: unknown): Promise<MeUser> {
    const max = kind === "avatar" ? LIMITS.userAvatarBytes : LIMITS.userBannerBytes;
    const { bytes, type } = await readImageUpload(kind, file, max);
    const path = await this.uploads.save(kind === "avatar" ? "avatars" : "banners", bytes, type.ext);
    let previous: string | null;
    try {
      previous = await this.store.users.replaceImage(user.id, kind, path);
    } catch (error) {
      await this.uploads.remove(path);
      throw error;
    }
    await this.uploads.remove(previous);
    return toMeUser(await this.get(user.id));
  }

  async removeImage(user: UserRow, kind: "avatar" | "banner"): Promise<MeUser> {
    await this.uploads.remove(await this.store.users.replaceImage(user.id, kind, null));
    return toMeUser(await this.get(user.id));
  }

  notificationSettings(user: UserRow): Promise<NotificationSettings> {
    return this.store.userSettings.notificationSettings(user.id);
  }

  updateNotificationSettings(user: UserRow, changes: Partial<NotificationSettings>): Promise<NotificationSettings> {
    return this.store.userSettings.updateNotificationSettings(user.id, changes);
  }

  async connections(user: UserRow): Promise<Connection[]> {
    return (await this.store.userSettings.listConnections(user.id)).map(toConnection);
  }

  async addConnection(user: UserRow, input: { type: string; name: string; url?: string; visible?: boolean }): Promise<Connection> {
    const row = await this.store.userSettings.addConnection(
      user.id,
      { type: input.type, name: input.name, url: input.url ?? null, visible: input.visible ?? true },
      LIMITS.connectionsPerUser,
    );
    if (!row) throw badRequest(`You can have at most ${LIMITS.connectionsPerUser} connections`);
    return toConnection(row);
  }

  async removeConnection(user: UserRow, connectionId: string): Promise<void> {
    if (!isUuid(connectionId) || !(await this.store.userSettings.removeConnection(user.id, connectionId))) {
      throw notFound("Connection");
    }
  }

  async mutedUsers(user: UserRow): Promise<MutedUser[]> {
    return (await this.store.userSettings.listMutedUsers(user.id)).map(toMutedUser);
  }

  /** Mutes another user; `created` is false when they were already muted. */
  async muteUser(user: UserRow, targetId: string): Promise<{ created: boolean; muted: MutedUser }> {
    const target = await this.get(targetId);
    if (target.id === user.id) throw badRequest("You cannot mute yourself");
    const created = await this.store.userSettings.muteUser(user.id, target.id);
    const muted = (await this.store.userSettings.listMutedUsers(user.id)).find((m) => m.user_id === target.id);
    if (!muted) throw notFound("User");
    return { created, muted: toMutedUser(muted) };
  }

  async unmuteUser(user: UserRow, targetId: string): Promise<void> {
    const target = await this.get(targetId);
    if (!(await this.store.userSettings.unmuteUser(user.id, target.id))) throw notFound("Muted user");
  }
}
