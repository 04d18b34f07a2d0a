/** Answers of the server, channel, role, invite, moderation, emoji and GIF routes. */
import * as v from "valibot";
import type { AuditEntry as AuditEntryType } from "../../domain/access/audit.ts";
import type { ChannelList as ChannelListType, PermissionOverride as PermissionOverrideType } from "../../domain/community/channels.ts";
import type { Emoji as EmojiType } from "../../domain/community/emojis.ts";
import type { Invite as InviteType } from "../../domain/community/invites.ts";
import type { Member as MemberType } from "../../domain/community/members.ts";
import type { TimeoutState as TimeoutStateType } from "../../domain/community/moderation.ts";
import type { ServerGif as ServerGifType } from "../../domain/community/server-gifs.ts";
import type { Server as ServerType } from "../../domain/community/servers.ts";
import { BotFlag, Category, Channel, ImageUrl, Presence, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import type { Assert, Same } from "./same-type.ts";

const BuiltinRole = v.picklist(["owner", "admin", "moderator", "member"]);

export const ServerSettings = v.object({
  system_channel_id: v.nullable(Uuid),
  default_notifications: v.picklist(["all", "mentions"]),
  welcome_message: v.string(),
});
export const Server = v.object({
  id: Uuid,
  name: v.string(),
  description: v.string(),
  icon: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  owner_id: Uuid,
  vanity_code: v.nullable(v.string()),
  verified: v.boolean(),
  settings: ServerSettings,
  member_count: v.number(),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export const MutedServer = v.object({ server_id: Uuid, name: v.string(), icon: ImageUrl, muted_until: v.nullable(UnixSeconds) });
export const ServerMute = v.object({ server_id: Uuid, muted: v.boolean(), muted_until: v.nullable(UnixSeconds) });
export const ServerReadState = v.object({ server_id: Uuid, last_read_at: v.nullable(UnixSeconds) });

/** A member of a server (CONTRACT.md): `role` is the built-in role, `roles` the custom role ids. */
export const Member = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  status: Presence,
  role: v.string(),
  roles: v.array(Uuid),
  is_bot: BotFlag,
  joined_at: UnixSeconds,
  timeout_until: v.nullable(UnixSeconds),
});

export const ChannelList = v.object({ channels: v.array(Channel), categories: v.array(Category) });
export const PermissionOverride = v.object({ role_id: Uuid, allow: v.number(), deny: v.number() });

export const Invite = v.object({
  id: Uuid,
  code: v.string(),
  server_id: Uuid,
  max_uses: v.nullable(v.number()),
  uses: v.number(),
  expires_at: v.nullable(UnixSeconds),
  is_primary: v.boolean(),
  created_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export const InviteUse = v.object({ user_id: Uuid, username: v.string(), avatar: ImageUrl, used_at: UnixSeconds });

export const Ban = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  reason: v.nullable(v.string()),
  banned_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export const TimeoutState = v.object({ serverId: Uuid, userId: Uuid, expiresAt: v.nullable(UnixSeconds) });
export const BuiltinRoleChange = v.object({ serverId: Uuid, userId: Uuid, role: BuiltinRole });
export const AuditEntry = v.object({
  id: Uuid,
  server_id: Uuid,
  actor_id: v.nullable(Uuid),
  actor_username: v.nullable(v.string()),
  actor_avatar: ImageUrl,
  action: v.string(),
  target_type: v.nullable(v.string()),
  target_id: v.nullable(v.string()),
  target_username: v.nullable(v.string()),
  changes: v.record(v.string(), v.unknown()),
  created_at: UnixSeconds,
});
export const AuditLogPage = v.object({ entries: v.array(AuditEntry), hasMore: v.boolean() });

export const Emoji = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  file_path: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  created_at: UnixSeconds,
  uploaded_by_username: v.nullable(v.string()),
});
export const ServerEmojis = v.object({ emojis: v.array(Emoji), canManage: v.boolean() });
export const EmojiEnvelope = v.object({ emoji: Emoji });
export const OwnEmoji = v.object({ ...Emoji.entries, server_name: v.string() });

export const ServerGif = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  kind: v.picklist(["gif", "sticker"]),
  url: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  uploaded_by_username: v.nullable(v.string()),
  created_at: UnixSeconds,
});

export type Checks = [
  Assert<Same<v.InferOutput<typeof Server>, ServerType>>,
  Assert<Same<v.InferOutput<typeof Member>, MemberType>>,
  Assert<Same<v.InferOutput<typeof ChannelList>, ChannelListType>>,
  Assert<Same<v.InferOutput<typeof PermissionOverride>, PermissionOverrideType>>,
  Assert<Same<v.InferOutput<typeof Invite>, InviteType>>,
  Assert<Same<v.InferOutput<typeof TimeoutState>, TimeoutStateType>>,
  Assert<Same<v.InferOutput<typeof AuditEntry>, AuditEntryType>>,
  Assert<Same<v.InferOutput<typeof Emoji>, EmojiType>>,
  Assert<Same<v.InferOutput<typeof ServerGif>, ServerGifType>>,
];
