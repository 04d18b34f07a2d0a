/** The REST routes of the server settings, typed. Every path is a public route documented in docs/. */
import type { Http } from "./client.ts";
import type { Role, Server } from "./types.ts";
import type { AuditPage, Ban, PermissionOverride, ServerEmoji, ServerInvite, Sound, Webhook } from "./settings-types.ts";

type Ok = { success: true };

/** Where overrides live: a channel or a category (docs/channels.md). */
export type OverrideTarget = { kind: "channel" | "category"; id: string };

const overridesPath = (target: OverrideTarget) =>
  target.kind === "channel" ? `/channels/${target.id}/permissions` : `/channels/categories/${target.id}/permissions`;

export interface RoleFields {
  name?: string;
  color?: string;
  permissions?: number;
  hoist?: boolean;
}

export interface AuditQuery {
  before?: string;
  action?: string;
  actorId?: string;
  limit?: number;
}

export class SettingsApi {
  constructor(private readonly http: Http) {}

  // The server itself (docs/servers.md)
  updateServer(serverId: string, changes: { name?: string; description?: string }) {
    return this.http.put<Server>(`/servers/${serverId}`, changes);
  }
  uploadServerImage(serverId: string, kind: "icon" | "banner", file: File) {
    const form = new FormData();
    form.append(kind, file, file.name);
    return this.http.upload<Server>(`/servers/${serverId}/${kind}`, form);
  }
  setBannerOffset(serverId: string, offset: number) {
    return this.http.patch<Server>(`/servers/${serverId}/banner-offset`, { banner_offset: offset });
  }

  // Roles (docs/roles.md)
  createRole(serverId: string, fields: RoleFields & { name: string }) {
    return this.http.post<Role>(`/roles/${serverId}`, fields);
  }
  updateRole(serverId: string, roleId: string, fields: RoleFields) {
    return this.http.put<Role>(`/roles/${serverId}/${roleId}`, fields);
  }
  deleteRole(serverId: string, roleId: string) {
    return this.http.delete<Ok>(`/roles/${serverId}/${roleId}`);
  }
  /** Puts one role in a slot (1 = just above @everyone); the others keep their order. */
  moveRole(serverId: string, roleId: string, position: number) {
    return this.http.put<Role[]>(`/roles/${serverId}/reorder`, [{ id: roleId, position }]);
  }
  assignRole(serverId: string, userId: string, roleId: string) {
    return this.http.post<Ok>(`/roles/${serverId}/assign`, { targetUserId: userId, roleId });
  }
  unassignRole(serverId: string, userId: string, roleId: string) {
    return this.http.delete<Ok>(`/roles/${serverId}/assign/${userId}/${roleId}`);
  }

  // Channel and category overrides (docs/channels.md)
  overrides(target: OverrideTarget) {
    return this.http.get<PermissionOverride[]>(overridesPath(target));
  }
  setOverride(target: OverrideTarget, roleId: string, allow: number, deny: number) {
    return this.http.put<PermissionOverride>(`${overridesPath(target)}/${roleId}`, { allow, deny });
  }
  resetOverride(target: OverrideTarget, roleId: string) {
    return this.http.delete<Ok>(`${overridesPath(target)}/${roleId}`);
  }

  // Invites (docs/invites.md)
  invites(serverId: string) {
    return this.http.get<ServerInvite[]>(`/servers/${serverId}/invites`);
  }
  createInvite(serverId: string, maxUses: number, expiresIn: number) {
    return this.http.post<ServerInvite>(`/servers/${serverId}/invites`, { max_uses: maxUses, expires_in: expiresIn });
  }
  deleteInvite(serverId: string, inviteId: string) {
    return this.http.delete<Ok>(`/servers/${serverId}/invites/${inviteId}`);
  }
  regenerateInvite(serverId: string) {
    return this.http.post<ServerInvite>(`/servers/${serverId}/invite/regenerate`);
  }

  // Members and moderation (docs/moderation.md)
  kick(serverId: string, userId: string) {
    return this.http.delete<Ok>(`/servers/${serverId}/members/${userId}`);
  }
  ban(serverId: string, userId: string, reason: string) {
    return this.http.post<Ban>(`/servers/${serverId}/bans`, reason ? { targetUserId: userId, reason } : { targetUserId: userId });
  }
  unban(serverId: string, userId: string) {
    return this.http.delete<Ok>(`/servers/${serverId}/bans/${userId}`);
  }
  bans(serverId: string) {
    return this.http.get<Ban[]>(`/servers/${serverId}/bans`);
  }
  timeout(serverId: string, userId: string, duration: number, reason: string) {
    const body = reason ? { targetUserId: userId, duration, reason } : { targetUserId: userId, duration };
    return this.http.post<{ serverId: string; userId: string; expiresAt: number }>(`/servers/${serverId}/timeouts`, body);
  }
  removeTimeout(serverId: string, userId: string) {
    return this.http.delete<{ serverId: string; userId: string; expiresAt: null }>(`/servers/${serverId}/timeouts/${userId}`);
  }
  setBuiltinRole(serverId: string, userId: string, role: string) {
    return this.http.put<{ serverId: string; userId: string; role: string }>(`/servers/${serverId}/members/${userId}/role`, { role });
  }
  auditLog(serverId: string, query: AuditQuery = {}) {
    const params = new URLSearchParams();
    if (query.limit) params.set("limit", String(query.limit));
    if (query.before) params.set("before", query.before);
    if (query.action) params.set("action", query.action);
    if (query.actorId) params.set("actor_id", query.actorId);
    const search = params.toString();
    return this.http.get<AuditPage>(`/servers/${serverId}/audit-log${search ? `?${search}` : ""}`);
  }

  // Custom emojis (docs/emojis.md)
  emojis(serverId: string) {
    return this.http.get<{ emojis: ServerEmoji[]; canManage: boolean }>(`/servers/${serverId}/emojis`);
  }
  uploadEmoji(serverId: string, file: File, name: string) {
    const form = new FormData();
    form.append("emoji", file, file.name);
    if (name) form.append("name", name);
    return this.http.upload<{ emoji: ServerEmoji }>(`/servers/${serverId}/emojis`, form);
  }
  renameEmoji(serverId: string, emojiId: string, name: string) {
    return this.http.patch<{ emoji: ServerEmoji }>(`/servers/${serverId}/emojis/${emojiId}`, { name });
  }
  deleteEmoji(serverId: string, emojiId: string) {
    return this.http.delete<Ok>(`/servers/${serverId}/emojis/${emojiId}`);
  }

  // Soundboard (docs/soundboard.md)
  sounds(serverId: string) {
    return this.http.get<Sound[]>(`/servers/${serverId}/soundboard`);
  }
  uploadSound(serverId: string, file: File, name: string, icon: string) {
    const form = new FormData();
    form.append("sound", file, file.name);
    if (name) form.append("name", name);
    if (icon) form.append("icon", icon);
    return this.http.upload<Sound>(`/servers/${serverId}/soundboard`, form);
  }
  updateSound(serverId: string, soundId: string, changes: { name?: string; icon?: string }) {
    return this.http.patch<Sound>(`/servers/${serverId}/soundboard/${soundId}`, changes);
  }
  deleteSound(serverId: string, soundId: string) {
    return this.http.delete<Ok>(`/servers/${serverId}/soundboard/${soundId}`);
  }

  // Webhooks (docs/webhooks.md; the management routes by id are unversioned)
  webhooks(channelId: string) {
    return this.http.get<Webhook[]>(`/channels/${channelId}/webhooks`);
  }
  createWebhook(channelId: string, name: string) {
    return this.http.post<Webhook>(`/channels/${channelId}/webhooks`, { name });
  }
  regenerateWebhook(webhookId: string) {
    return this.http.post<Webhook>(`/api/webhooks/${webhookId}/token`);
  }
  deleteWebhook(webhookId: string) {
    return this.http.delete<Ok>(`/api/webhooks/${webhookId}`);
  }
}
