import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { CategoryRow, ChannelPatch, ChannelRow } from "../../store/channels-repo.ts";
import type { OverrideRow } from "../../store/access-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { missingPermission, type Access, type MemberContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { rooms, type EventBus, type GatewayEventName, type GatewayPayload } from "../shared/events.ts";
import type { LiveStateListener, Members, ScreenedEvent } from "./members.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { computeChannelPermissions, hasPermission } from "../access/permissions.ts";
import { Category, Channel, Uuid } from "../shared/shapes.ts";
import type { Deletions } from "./deletions.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import type { ChannelChangesInput, ChannelPlacementInput, NewChannelInput } from "./channel-schemas.ts";

export const PermissionOverride = v.object({ role_id: Uuid, allow: v.number(), deny: v.number() });
export type PermissionOverride = v.InferOutput<typeof PermissionOverride>;

export const ChannelList = v.object({ channels: v.array(Channel), categories: v.array(Category) });
export type ChannelList = v.InferOutput<typeof ChannelList>;

/**
 * The caller's own bits in a channel (overrides applied, a running timeout's restraint too), and
 * when that timeout stops restraining them (null when none does): what a client offers before
 * the server would refuse (docs/channels.md, "Your permissions in a channel").
 */
export const MyChannelPermissions = v.object({ channel_id: Uuid, permissions: v.number(), timeout_until: v.nullable(v.number()) });
export type MyChannelPermissions = v.InferOutput<typeof MyChannelPermissions>;


const toChannel = (row: ChannelRow): Channel => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  type: row.type,
  category_id: row.category_id,
  position: row.position,
  topic: row.topic,
  slowmode: row.slowmode,
  nsfw: row.nsfw === 1,
  is_meeting: row.is_meeting === 1,
  chat_enabled: row.chat_enabled === 1,
});

const toCategory = (row: CategoryRow): Category => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  position: row.position,
});

const toOverride = (row: OverrideRow): PermissionOverride => ({ role_id: row.role_id, allow: row.allow, deny: row.deny });

/**
 * Discord-style text channel names: trimmed, lowercased, runs of whitespace become one `-`.
 * Voice channel names are only trimmed. Either must end up 1-100 characters.
 */
function normalizeChannelName(name: string, type: "text" | "voice"): string {
  const trimmed = name.trim();
  const normalized = type === "text" ? trimmed.toLowerCase().replace(/\s+/g, "-") : trimmed;
  if (normalized.length < 1) throw badRequest("name: must not be empty");
  if (normalized.length > LIMITS.channel.nameLength) throw badRequest(`name: must be at most ${LIMITS.channel.nameLength} characters`);
  return normalized;
}

/** The name of a duplicate: `<name>-copy`, cut so it stays within the limit. */
export const duplicateName = (name: string) => `${name.slice(0, LIMITS.channel.nameLength - "-copy".length)}-copy`;

/**
 * Channels, categories and their permission overrides. Management needs MANAGE_CHANNELS
 * server-wide (overrides: MANAGE_ROLES), and a route on one channel also needs the caller to
 * see it (404 otherwise, so hidden channels do not leak).
 */
export class Channels {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly members: Members,
    private readonly bus: EventBus,
    /** Told after a channel is deleted (voice disconnects its participants, docs/voice.md). */
    private readonly liveState: readonly LiveStateListener[],
    private readonly deletions: Deletions,
    private readonly caps: ResourceCaps,
  ) {}

  /** Every channel and category the member can see. */
  async list(serverId: string, user: UserRow): Promise<ChannelList> {
    const member = await this.access.member(serverId, user.id);
    return this.visibleList(member);
  }

  /** The member's channel list; `serverChannels` and `serverCategories`: the server's, when the caller has just read them. */
  private async visibleList(member: MemberContext, serverChannels?: ChannelRow[], serverCategories?: CategoryRow[]): Promise<ChannelList> {
    const serverId = member.server.id;
    const everything = this.access.holdsEverything(member);
    const [rows, categoryRows, overrides] = await Promise.all([
      serverChannels ?? this.store.channels.listByServer(serverId),
      serverCategories ?? this.store.channels.listCategories(serverId),
      everything ? null : this.access.overridesOfServer(serverId),
    ]);
    // The owner and administrators see every channel and category: nothing to work out per channel.
    if (overrides === null) return { channels: rows.map(toChannel), categories: categoryRows.map(toCategory) };
    const channels: Channel[] = [];
    const withVisibleChannel = new Set<string>();
    for (const row of rows) {
      if (!hasPermission(this.access.permissionsIn(member, overrides.of(row)), PERMISSIONS.VIEW_CHANNEL)) continue;
      channels.push(toChannel(row));
      if (row.category_id) withVisibleChannel.add(row.category_id);
    }
    // A category shows when one of its channels does, or when it is itself viewable (empty ones too).
    const categories: Category[] = [];
    for (const row of categoryRows) {
      if (withVisibleChannel.has(row.id) || hasPermission(computeChannelPermissions(member.input, overrides.category(row.id), []), PERMISSIONS.VIEW_CHANNEL)) {
        categories.push(toCategory(row));
      }
    }
    return { channels, categories };
  }

  async get(channelId: string, user: UserRow): Promise<Channel> {
    return toChannel((await this.access.requireChannel(channelId, user.id)).channel);
  }

  async create(serverId: string, user: UserRow, input: NewChannelInput): Promise<Channel> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_CHANNELS);
    const name = normalizeChannelName(input.name, input.type);
    if (input.type === "text") this.refuseVoiceFlags(input);
    const categoryId = input.category_id ? await this.categoryOf(member.server.id, input.category_id) : null;
    const isMeeting = input.type === "voice" && input.is_meeting === true;
    const row = await this.store.channels.create({
      serverId: member.server.id,
      name,
      type: input.type,
      categoryId,
      topic: null,
      slowmode: 0,
      nsfw: false,
      isMeeting,
      chatEnabled: input.type === "voice" && (input.chat_enabled ?? isMeeting),
    }, this.caps.channelsPerServer);
    if (!row) throw capReached.channels(this.caps);
    const channel = toChannel(row);
    await this.publishAbout(row, "channel:created", channel);
    await this.members.followNewChannel(row);
    await this.audit.record(row.server_id, user.id, "CHANNEL_CREATE", { type: "channel", id: row.id }, {
      name: row.name,
      type: row.type,
      category_id: row.category_id,
    });
    return channel;
  }

  async update(channelId: string, user: UserRow, input: ChannelChangesInput): Promise<Channel> {
    const { channel } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_CHANNELS);
    if (input.type !== undefined) throw badRequest("type cannot be changed");
    if (channel.type === "text") this.refuseVoiceFlags(input);
    const patch: ChannelPatch = {};
    if (input.name !== undefined) patch.name = normalizeChannelName(input.name, channel.type);
    if (input.category_id !== undefined) {
      patch.category_id = input.category_id === null ? null : await this.categoryOf(channel.server_id, input.category_id);
    }
    if (input.topic !== undefined) patch.topic = input.topic === null || input.topic.trim() === "" ? null : input.topic;
    if (input.slowmode !== undefined) patch.slowmode = input.slowmode;
    if (input.nsfw !== undefined) patch.nsfw = input.nsfw ? 1 : 0;
    if (channel.type === "voice") {
      if (input.is_meeting !== undefined) patch.is_meeting = input.is_meeting ? 1 : 0;
      if (input.chat_enabled !== undefined) patch.chat_enabled = input.chat_enabled ? 1 : 0;
      // Becoming a meeting channel turns chat on unless the caller says otherwise.
      else if (input.is_meeting === true && channel.is_meeting === 0) patch.chat_enabled = 1;
    }
    const row = await this.store.channels.update(channel.id, patch);
    if (!row) throw notFound("Channel");
    this.access.permissionsChanged(); // e.g. is_meeting, or a category with other overrides
    const updated = toChannel(row);
    const before = toChannel(channel);
    const changes: Record<string, unknown> = {};
    for (const key of Object.keys(patch) as (keyof ChannelPatch)[]) {
      if (before[key] !== updated[key]) changes[key] = { old: before[key], new: updated[key] };
    }
    await this.publishAbout(row, "channel:updated", updated);
    await this.audit.record(row.server_id, user.id, "CHANNEL_UPDATE", { type: "channel", id: row.id }, changes);
    // Moving into or out of a category changes which overrides apply.
    if (changes.category_id) await this.members.syncChannelRooms(row.server_id, { channelIds: [row.id] });
    return updated;
  }

  async duplicate(channelId: string, user: UserRow): Promise<Channel> {
    const { channel } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_CHANNELS);
    const row = await this.store.channels.duplicate(channel.id, duplicateName(channel.name), this.caps.channelsPerServer);
    if (!row) throw notFound("Channel");
    if (row === "full") throw capReached.channels(this.caps);
    const copy = toChannel(row);
    await this.publishAbout(row, "channel:created", copy);
    await this.members.followNewChannel(row);
    await this.audit.record(row.server_id, user.id, "CHANNEL_DUPLICATE", { type: "channel", id: row.id }, {
      source_id: channel.id,
      name: row.name,
    });
    return copy;
  }

  async delete(channelId: string, user: UserRow): Promise<void> {
    const { channel, member } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_CHANNELS);
    // Read before the deletion: who could not see it is not told it is gone.
    const overrides = await this.members.overridesOf(channel);
    // Gone for every read from here on; its messages, their files and its other rows go in the
    // background, in batches (docs/channels.md, "Delete").
    if (!(await this.store.deletions.deleteChannel(channel.server_id, channel.id))) throw notFound("Channel");
    this.access.permissionsChanged();
    this.deletions.queued();
    // A deleted system channel no longer receives system messages.
    const settings = JSON.parse(member.server.settings) as { system_channel_id?: string | null };
    if (settings.system_channel_id === channel.id) {
      await this.store.servers.update(member.server.id, { settings: JSON.stringify({ ...settings, system_channel_id: null }) });
    }
    await this.members.publishAboutChannel(channel, "channel:deleted", { id: channel.id, server_id: channel.server_id }, overrides);
    const room = rooms.channel(channel.id);
    this.bus.removeFromRoom(room, room);
    for (const listener of this.liveState) await listener.channelDeleted(channel);
    await this.audit.record(channel.server_id, user.id, "CHANNEL_DELETE", { type: "channel", id: channel.id }, {
      name: channel.name,
      type: channel.type,
    });
  }

  /**
   * Sets positions (and categories where given). With `list`, answers the caller's new list;
   * without it, nothing, and reads only the rows the order names (docs/channels.md, "Reorder
   * channels": `Prefer: return=minimal`).
   */
  async reorder(serverId: string, user: UserRow, order: ChannelPlacementInput[], options: { list: boolean } = { list: true }): Promise<ChannelList | null> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_CHANNELS);
    const server = member.server;
    // Checked against the rows the placement reads, in its transaction: nothing is written when one fails.
    const placed = await this.store.channels.place(server.id, order, (named, categories) => {
      const categoryIds = new Set(categories.map((c) => c.id));
      const seen = new Set<string>();
      for (const [index, entry] of order.entries()) {
        if (!named.has(entry.id)) throw badRequest(`order.${index}.id: not a channel of this server`);
        if (seen.has(entry.id)) throw badRequest(`order.${index}.id: listed twice`);
        seen.add(entry.id);
        if (entry.category_id && !categoryIds.has(entry.category_id)) throw badRequest(`order.${index}.category_id: not a category of this server`);
      }
    }, options);
    const after = placed.after;
    const moved = placed.moved.map((m) => m.row);
    for (const row of moved) await this.publishAbout(row, "channel:updated", toChannel(row));
    await this.audit.record(server.id, user.id, "CHANNEL_REORDER", { type: "server", id: server.id }, {
      order: order.map((e) => ({ id: e.id, position: e.position, ...(e.category_id !== undefined ? { category_id: e.category_id } : {}) })),
    });
    const recategorized = placed.moved.filter((m) => m.row.category_id !== m.from.category_id).map((m) => m.row.id);
    if (recategorized.length) await this.members.syncChannelRooms(server.id, { channelIds: recategorized });
    return after ? this.visibleList(member, after, placed.categories) : null;
  }

  async createCategory(serverId: string, user: UserRow, name: string): Promise<Category> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_CHANNELS);
    const row = await this.store.channels.createCategory(member.server.id, name, this.caps.channelsPerServer);
    if (!row) throw capReached.channels(this.caps);
    this.bus.publish(rooms.server(row.server_id), "category:created", { id: row.id, server_id: row.server_id });
    await this.audit.record(row.server_id, user.id, "CATEGORY_CREATE", { type: "category", id: row.id }, { name: row.name });
    return toCategory(row);
  }

  async renameCategory(categoryId: string, user: UserRow, name: string): Promise<Category> {
    const category = await this.manageCategory(categoryId, user, PERMISSIONS.MANAGE_CHANNELS);
    const row = await this.store.channels.renameCategory(category.id, name);
    if (!row) throw notFound("Category");
    this.bus.publish(rooms.server(row.server_id), "category:updated", { id: row.id, server_id: row.server_id });
    // The spec lists no CATEGORY_UPDATE action; a rename is a channel-structure update.
    await this.audit.record(row.server_id, user.id, "CHANNEL_UPDATE", { type: "category", id: row.id }, {
      name: { old: category.name, new: row.name },
    });
    return toCategory(row);
  }

  async deleteCategory(categoryId: string, user: UserRow): Promise<void> {
    const category = await this.manageCategory(categoryId, user, PERMISSIONS.MANAGE_CHANNELS);
    const inside = await this.store.channels.listByCategory(category.id);
    if (!(await this.store.channels.deleteCategory(category.id))) throw notFound("Category");
    this.bus.publish(rooms.server(category.server_id), "category:deleted", { id: category.id, server_id: category.server_id });
    for (const row of inside) {
      const moved = { ...row, category_id: null };
      await this.publishAbout(moved, "channel:updated", toChannel(moved));
    }
    await this.audit.record(category.server_id, user.id, "CATEGORY_DELETE", { type: "category", id: category.id }, { name: category.name });
    // The category's overrides no longer apply to its former channels.
    if (inside.length) await this.members.syncChannelRooms(category.server_id, { channelIds: inside.map((c) => c.id) });
  }

  /** `order` must hold every category of the server exactly once. */
  async reorderCategories(serverId: string, user: UserRow, order: string[]): Promise<Category[]> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_CHANNELS);
    const before = new Map((await this.store.channels.listCategories(member.server.id)).map((c) => [c.id, c.position]));
    const existing = new Set(before.keys());
    const given = new Set(order);
    if (given.size !== order.length) throw badRequest("order: category ids must not repeat");
    if (order.length !== existing.size || order.some((id) => !existing.has(id))) {
      throw badRequest("order: must list every category of this server exactly once");
    }
    await this.store.channels.reorderCategories(member.server.id, order);
    await this.audit.record(member.server.id, user.id, "CHANNEL_REORDER", { type: "server", id: member.server.id }, { categories: order });
    const after = await this.store.channels.listCategories(member.server.id);
    for (const row of after) {
      if (before.get(row.id) !== row.position) this.bus.publish(rooms.server(row.server_id), "category:updated", { id: row.id, server_id: row.server_id });
    }
    return after.map(toCategory);
  }

  /** The caller's permissions in a channel they may view (404 / 403 as for reading it). */
  async myPermissions(channelId: string, user: UserRow): Promise<MyChannelPermissions> {
    const { channel, member, permissions } = await this.access.requireChannel(channelId, user.id);
    return { channel_id: channel.id, permissions, timeout_until: member.timedOut ? member.timeoutUntil : null };
  }

  // Permission overrides: reading needs MANAGE_ROLES or MANAGE_CHANNELS, changing MANAGE_ROLES.

  async channelOverrides(channelId: string, user: UserRow): Promise<PermissionOverride[]> {
    const { channel } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_ROLES, PERMISSIONS.MANAGE_CHANNELS);
    return (await this.store.channels.listChannelOverrides(channel.id)).map(toOverride);
  }

  async setChannelOverride(channelId: string, roleId: string, user: UserRow, allow: number, deny: number): Promise<PermissionOverride> {
    const { channel, member } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_ROLES);
    await this.requireRole(channel.server_id, roleId);
    this.access.requireHeldBits(member, allow | deny);
    const row = toOverride(await this.store.channels.setChannelOverride(channel.id, roleId, allow, deny));
    await this.publishAbout(channel, "channel:permissions-updated", { channelId: channel.id, roleId, allow: row.allow, deny: row.deny });
    // The spec lists no override actions; an override is part of the channel's settings.
    await this.audit.record(channel.server_id, user.id, "CHANNEL_UPDATE", { type: "channel", id: channel.id }, {
      permission_override: { role_id: roleId, allow: row.allow, deny: row.deny },
    });
    await this.members.syncChannelRooms(channel.server_id, { channelIds: [channel.id] });
    return row;
  }

  /** Idempotent: resetting an override that does not exist succeeds without an event. */
  async resetChannelOverride(channelId: string, roleId: string, user: UserRow): Promise<void> {
    const { channel } = await this.manageChannel(channelId, user, PERMISSIONS.MANAGE_ROLES);
    await this.requireRole(channel.server_id, roleId);
    if (!(await this.store.channels.deleteChannelOverride(channel.id, roleId))) return;
    await this.publishAbout(channel, "channel:permissions-updated", { channelId: channel.id, roleId, reset: true });
    await this.audit.record(channel.server_id, user.id, "CHANNEL_UPDATE", { type: "channel", id: channel.id }, {
      permission_override: { role_id: roleId, reset: true },
    });
    await this.members.syncChannelRooms(channel.server_id, { channelIds: [channel.id] });
  }

  async categoryOverrides(categoryId: string, user: UserRow): Promise<PermissionOverride[]> {
    const category = await this.manageCategory(categoryId, user, PERMISSIONS.MANAGE_ROLES, PERMISSIONS.MANAGE_CHANNELS);
    return (await this.store.channels.listCategoryOverrides(category.id)).map(toOverride);
  }

  async setCategoryOverride(categoryId: string, roleId: string, user: UserRow, allow: number, deny: number): Promise<PermissionOverride> {
    const category = await this.manageCategory(categoryId, user, PERMISSIONS.MANAGE_ROLES);
    const member = await this.access.member(category.server_id, user.id);
    await this.requireRole(category.server_id, roleId);
    this.access.requireHeldBits(member, allow | deny);
    const row = toOverride(await this.store.channels.setCategoryOverride(category.id, roleId, allow, deny));
    this.bus.publish(rooms.server(category.server_id), "category:permissions-updated", {
      categoryId: category.id,
      roleId,
      allow: row.allow,
      deny: row.deny,
    });
    await this.audit.record(category.server_id, user.id, "CHANNEL_UPDATE", { type: "category", id: category.id }, {
      permission_override: { role_id: roleId, allow: row.allow, deny: row.deny },
    });
    await this.syncCategoryRooms(category);
    return row;
  }

  async resetCategoryOverride(categoryId: string, roleId: string, user: UserRow): Promise<void> {
    const category = await this.manageCategory(categoryId, user, PERMISSIONS.MANAGE_ROLES);
    await this.requireRole(category.server_id, roleId);
    if (!(await this.store.channels.deleteCategoryOverride(category.id, roleId))) return;
    this.bus.publish(rooms.server(category.server_id), "category:permissions-updated", { categoryId: category.id, roleId, reset: true });
    await this.audit.record(category.server_id, user.id, "CHANNEL_UPDATE", { type: "category", id: category.id }, {
      permission_override: { role_id: roleId, reset: true },
    });
    await this.syncCategoryRooms(category);
  }

  private async syncCategoryRooms(category: CategoryRow): Promise<void> {
    const channelIds = (await this.store.channels.listByCategory(category.id)).map((c) => c.id);
    if (channelIds.length) await this.members.syncChannelRooms(category.server_id, { channelIds });
  }

  /** The channel, visible to the caller (404 otherwise), and a server-wide bit (any of `bits`). */
  private async manageChannel(channelId: string, user: UserRow, ...bits: number[]) {
    const context = await this.access.requireChannel(channelId, user.id);
    if (!bits.some((bit) => hasPermission(context.member.permissions, bit))) throw missingPermission(bits[0]!, context.member);
    return context;
  }

  /** The category (404 for a missing one or a non-UUID), and a server-wide bit (any of `bits`). */
  private async manageCategory(categoryId: string, user: UserRow, ...bits: number[]): Promise<CategoryRow> {
    const category = isUuid(categoryId) ? await this.store.channels.findCategory(categoryId) : null;
    if (!category) throw notFound("Category");
    const member = await this.access.member(category.server_id, user.id);
    if (!bits.some((bit) => hasPermission(member.permissions, bit))) throw missingPermission(bits[0]!, member);
    return category;
  }

  /** A category id from a body: it must be a category of this server (400 otherwise). */
  private async categoryOf(serverId: string, categoryId: string, field = "category_id"): Promise<string> {
    const category = isUuid(categoryId) ? await this.store.channels.findCategory(categoryId) : null;
    if (!category || category.server_id !== serverId) throw badRequest(`${field}: not a category of this server`);
    return category.id;
  }

  /** Channel events reach the server room, except members who cannot see the channel. */
  private async publishAbout<E extends ScreenedEvent>(channel: ChannelRow, event: E, payload: GatewayPayload<E>): Promise<void> {
    await this.members.publishAboutChannel(channel, event, payload);
  }

  /** A role of this server (404 otherwise, as for any path id). */
  private async requireRole(serverId: string, roleId: string): Promise<void> {
    const owner = isUuid(roleId) ? await this.store.channels.roleServerId(roleId) : null;
    if (owner !== serverId) throw notFound("Role");
  }

  private refuseVoiceFlags(input: { is_meeting?: boolean; chat_enabled?: boolean }): void {
    if (input.is_meeting) throw badRequest("is_meeting: only voice channels can be meeting channels");
    if (input.chat_enabled) throw badRequest("chat_enabled: only applies to voice channels");
  }
}
