/**
 * Answers of the server, channel, role, invite, moderation, emoji and GIF routes. The shapes the
 * domain builds are defined beside the feature that builds them (their types are the schemas'
 * outputs) and listed here with the answers only these routes build, so the reference names them.
 */
import * as v from "valibot";
import { ImageUrl, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import { AuditEntry } from "../../domain/access/audit.ts";
import { ChannelList, MyChannelPermissions, PermissionOverride } from "../../domain/community/channels.ts";
import { Emoji } from "../../domain/community/emojis.ts";
import { Invite, InvitePreview } from "../../domain/community/invites.ts";
import { Member } from "../../domain/community/members.ts";
import { TimeoutState } from "../../domain/community/moderation.ts";
import { ServerGif } from "../../domain/community/server-gifs.ts";
import { Server, ServerSettings } from "../../domain/community/servers.ts";

export { AuditEntry, ChannelList, Emoji, Invite, InvitePreview, Member, MyChannelPermissions, PermissionOverride, Server, ServerGif, ServerSettings, TimeoutState };

const BuiltinRole = v.picklist(["owner", "admin", "moderator", "member"]);

export const MutedServer = v.object({ server_id: Uuid, name: v.string(), icon: ImageUrl, muted_until: v.nullable(UnixSeconds) });
export const ServerMute = v.object({ server_id: Uuid, muted: v.boolean(), muted_until: v.nullable(UnixSeconds) });
export const ServerReadState = v.object({ server_id: Uuid, last_read_at: v.nullable(UnixSeconds) });

export const InviteUse = v.object({ user_id: Uuid, username: v.string(), avatar: ImageUrl, used_at: UnixSeconds });

export const Ban = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  reason: v.nullable(v.string()),
  banned_by: v.nullable(Uuid),
  created_at: UnixSeconds,
});
export const BuiltinRoleChange = v.object({ serverId: Uuid, userId: Uuid, role: BuiltinRole });
export const AuditLogPage = v.object({ entries: v.array(AuditEntry), hasMore: v.boolean() });

export const ServerEmojis = v.object({ emojis: v.array(Emoji), canManage: v.boolean() });
export const EmojiEnvelope = v.object({ emoji: Emoji });
export const OwnEmoji = v.object({ ...Emoji.entries, server_name: v.string() });
