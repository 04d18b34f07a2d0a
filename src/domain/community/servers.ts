import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ServerRow } from "../../store/servers-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import type { LiveStateListener, Members } from "./members.ts";
import type { Deletions } from "./deletions.ts";
import { DEFAULT_EVERYONE_PERMISSIONS, PERMISSIONS } from "../access/permission-bits.ts";
import type { TwoFactor, TwoFactorProof } from "../accounts/two-factor.ts";
import { readImageUpload, type UploadStore } from "../shared/uploads.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";

export const ServerSettings = v.object({
  system_channel_id: v.nullable(Uuid),
  default_notifications: v.picklist(["all", "mentions"]),
  welcome_message: v.string(),
});
export type ServerSettings = v.InferOutput<typeof ServerSettings>;

const DEFAULT_SETTINGS: ServerSettings = { system_channel_id: null, default_notifications: "all", welcome_message: "" };

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
export type Server = v.InferOutput<typeof Server>;

/** A new code for invites: 10 characters of an unambiguous alphabet. */
export function newInviteCode(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

/** Servers: creation, details, settings, images, the caller's list, leaving. */
export class Servers {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly twoFactor: TwoFactor,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
    /** Told about each of the server's channels when the server is deleted. */
    private readonly liveState: readonly LiveStateListener[],
    private readonly deletions: Deletions,
    private readonly caps: ResourceCaps,
  ) {}

  /** The wire shape of a row; `member_count` is the row's stored count (migration 21). */
  toServer(row: ServerRow): Server {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      icon: row.icon,
      banner: row.banner,
      banner_offset: row.banner_offset,
      owner_id: row.owner_id,
      vanity_code: row.vanity_code,
      verified: row.verified === 1,
      settings: { ...DEFAULT_SETTINGS, ...(JSON.parse(row.settings) as Partial<ServerSettings>) },
      member_count: row.member_count,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  async create(user: UserRow, input: { name: string; description?: string }): Promise<Server> {
    const row = await this.store.servers.create({
      ownerId: user.id,
      name: input.name,
      description: input.description ?? "",
      everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS,
      primaryInviteCode: newInviteCode(),
    }, this.caps.serversPerUser);
    if (!row) throw capReached.servers(this.caps);
    // The owner's sockets that follow every server join it (docs/gateway.md, "Bulk subscriptions").
    await this.members.followNewMembership(row.id, user.id);
    await this.audit.record(row.id, user.id, "SERVER_CREATE", { type: "server", id: row.id }, { name: row.name });
    return this.toServer(row);
  }

  async list(user: UserRow): Promise<Server[]> {
    return (await this.store.servers.listForUser(user.id)).map((row) => this.toServer(row));
  }

  async get(serverId: string, user: UserRow): Promise<Server> {
    return this.toServer((await this.access.member(serverId, user.id)).server);
  }

  async update(serverId: string, user: UserRow, changes: { name?: string; description?: string }): Promise<Server> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const row = await this.store.servers.update(member.server.id, changes);
    if (!row) throw notFound("Server");
    await this.audit.record(row.id, user.id, "SERVER_UPDATE", { type: "server", id: row.id }, changes);
    return this.toServer(row);
  }

  async updateSettings(serverId: string, user: UserRow, changes: Partial<ServerSettings>): Promise<Server> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    if (changes.system_channel_id) {
      const channel = await this.store.channels.findById(changes.system_channel_id);
      if (!channel || channel.server_id !== member.server.id || channel.type !== "text") {
        throw badRequest("system_channel_id: must be a text channel of this server");
      }
    }
    const current = this.toServer(member.server).settings;
    const settings = JSON.stringify({ ...current, ...changes });
    const row = await this.store.servers.update(member.server.id, { settings });
    if (!row) throw notFound("Server");
    await this.audit.record(row.id, user.id, "SERVER_UPDATE", { type: "server", id: row.id }, { settings: changes });
    return this.toServer(row);
  }

  async setBannerOffset(serverId: string, user: UserRow, offset: number): Promise<Server> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const row = await this.store.servers.update(member.server.id, { banner_offset: offset });
    if (!row) throw notFound("Server");
    await this.audit.record(row.id, user.id, "SERVER_BANNER", { type: "server", id: row.id }, { banner_offset: offset });
    return this.toServer(row);
  }

  /** Icon (8 MB) or banner (10 MB); PNG/JPG/WEBP/GIF by magic bytes, the extension kept so GIFs animate. */
  async setImage(serverId: string, user: UserRow, kind: "icon" | "banner", file: unknown): Promise<Server> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const { bytes, type } = await readImageUpload(kind, file, kind === "icon" ? LIMITS.serverIconBytes : LIMITS.serverBannerBytes);
    const path = await this.uploads.save(kind === "icon" ? "server-icons" : "server-banners", bytes, type.ext);
    let previous: string | null;
    try {
      previous = await this.store.servers.replaceImage(member.server.id, kind, path);
    } catch (error) {
      await this.uploads.remove(path);
      throw error;
    }
    await this.uploads.remove(previous);
    await this.audit.record(member.server.id, user.id, kind === "icon" ? "SERVER_ICON" : "SERVER_BANNER", { type: "server", id: member.server.id }, { [kind]: path });
    return this.toServer((await this.store.servers.findById(member.server.id))!);
  }

  /** Vanity code (2FA): owner or MANAGE_SERVER; null clears it. */
  async setVanity(serverId: string, user: UserRow, code: string | null, twoFactor: TwoFactorProof): Promise<Server> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    await this.twoFactor.requireCode(user, twoFactor.code, twoFactor.clientAddress);
    const row = await this.store.servers.setVanity(member.server.id, code);
    if (row === false) throw conflict("That vanity code is taken");
    if (!row) throw notFound("Server");
    await this.audit.record(row.id, user.id, "SERVER_VANITY", { type: "server", id: row.id }, { vanity_code: code });
    return this.toServer(row);
  }

  /**
   * Owner only, with the two-factor code when the owner has 2FA on. The server is gone for every
   * read from the answer on (marked deleted); its rows and files are deleted in the background,
   * in batches (docs/servers.md, "Deleting a server").
   */
  async delete(serverId: string, user: UserRow, twoFactor: TwoFactorProof): Promise<void> {
    const member = await this.access.member(serverId, user.id);
    if (!member.isOwner) throw forbidden("Only the owner can delete the server");
    await this.twoFactor.requireCode(user, twoFactor.code, twoFactor.clientAddress);
    const channels = await this.store.channels.listByServer(member.server.id);
    if (!(await this.store.deletions.deleteServer(member.server.id))) throw notFound("Server");
    this.access.permissionsChanged();
    this.deletions.queued();
    // Features holding live state per channel (voice rooms) clear it.
    for (const listener of this.liveState) for (const channel of channels) await listener.channelDeleted(channel);
    const serverRoom = rooms.server(member.server.id);
    // Members' clients drop the server from their lists (nothing else tells them: their rooms just end).
    this.bus.publish(serverRoom, "server:deleted", { id: member.server.id });
    for (const channel of channels) this.bus.removeFromRoom(rooms.channel(channel.id), rooms.channel(channel.id));
    this.bus.removeFromRoom(serverRoom, serverRoom);
    const followers = rooms.followServerChannels(member.server.id);
    this.bus.removeFromRoom(followers, followers);
  }

  async reorder(user: UserRow, serverIds: string[]): Promise<Server[]> {
    const mine = new Set((await this.store.servers.listForUser(user.id)).map((s) => s.id));
    const unknown = serverIds.find((id) => !mine.has(id));
    if (unknown) throw badRequest(`order: ${unknown} is not one of your servers`);
    if (new Set(serverIds).size !== serverIds.length) throw badRequest("order: ids must not repeat");
    await this.store.servers.reorderForUser(user.id, serverIds);
    return this.list(user);
  }

  /** The owner cannot leave: they delete the server or transfer it first. */
  async leave(serverId: string, user: UserRow): Promise<void> {
    const member = await this.access.member(serverId, user.id);
    if (member.isOwner) throw badRequest("The owner cannot leave the server; delete it or transfer ownership first");
    await this.members.remove(member.server.id, user.id);
    await this.audit.record(member.server.id, user.id, "MEMBER_LEAVE", { type: "member", id: user.id });
  }

  /** Notification mute for the caller; `duration` seconds, or until unmuted when absent. */
  async mute(serverId: string, user: UserRow, duration: number | undefined) {
    const member = await this.access.member(serverId, user.id);
    const until = duration === undefined ? null : Math.floor(Date.now() / 1000) + duration;
    await this.store.members.setMuted(member.server.id, user.id, true, until);
    return { server_id: member.server.id, muted: true, muted_until: until };
  }

  async unmute(serverId: string, user: UserRow) {
    const member = await this.access.member(serverId, user.id);
    await this.store.members.setMuted(member.server.id, user.id, false, null);
    return { server_id: member.server.id, muted: false, muted_until: null };
  }

  mutedServers(user: UserRow) {
    return this.store.members.mutedServers(user.id);
  }

  async markRead(serverId: string, user: UserRow) {
    const member = await this.access.member(serverId, user.id);
    const row = await this.store.members.markRead(member.server.id, user.id);
    return { server_id: member.server.id, last_read_at: row?.last_read_at ?? null };
  }
}
