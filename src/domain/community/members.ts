import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { ChannelRow } from "../../store/channels-repo.ts";
import type { ServerRow } from "../../store/servers-repo.ts";
import type { Access, ChannelOverrides, MemberContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { rooms, type EventBus, type GatewayEventName, type GatewayPayload, type RoomSocket } from "../shared/events.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import type { MemberWithRoles } from "../../store/members-repo.ts";
import { BotFlag, CustomStatus, ImageUrl, Presence, UnixSeconds, Uuid } from "../shared/shapes.ts";
import { currentCustomStatus } from "../accounts/current-custom-status.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import { ApiError, notFound } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { isUuid } from "../shared/validation.ts";

/** A member of a server (CONTRACT.md): `role` is the built-in role, `roles` the custom role ids. */
export const Member = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  status: Presence,
  /** Hearth extension: shown while the member is (online, idle or dnd), to the member always. */
  custom_status: v.nullable(CustomStatus),
  role: v.string(),
  roles: v.array(Uuid),
  is_bot: BotFlag,
  joined_at: UnixSeconds,
  timeout_until: v.nullable(UnixSeconds),
});
export type Member = v.InferOutput<typeof Member>;

/** A member list row as `viewerId` sees it: members share the server, so only invisibility hides the custom status. */
function toMember(row: MemberWithRoles, viewerId: string): Member {
  const { custom_status_text, custom_status_emoji, custom_status_expires_at, ...member } = row;
  const shown = row.status !== "offline" || row.user_id === viewerId;
  return { ...member, custom_status: shown ? currentCustomStatus({ custom_status_text, custom_status_emoji, custom_status_expires_at }) : null };
}

/** How much of the member list to answer (Members.list): all of it when none is given. */
export interface MemberListOptions {
  /** A page's size, or a search's most results. */
  limit?: number;
  /** A page starts after this user id. */
  after?: string;
  /** A search: the start of a username. */
  query?: string;
}

/**
 * Joining and leaving servers, in one place for every path that does it (invite join, leave,
 * kick, ban, bot add/remove), and keeping gateway rooms in step with what members may see.
 */
/**
 * A feature that keeps live state per member and channel (voice, docs/voice.md). Members,
 * Channels and Servers tell it when a member leaves a server, when access may have shrunk,
 * and when a channel is deleted. The composition root hands the listeners to each.
 */
export interface LiveStateListener {
  memberRemoved(serverId: string, userId: string): Promise<void>;
  accessChanged(serverId: string, userIds?: string[]): Promise<void>;
  channelDeleted(channel: { id: string }): Promise<void>;
}

/** The events `publishAboutChannel` sends, and the payload field naming their channel. */
const SCREENED_EVENTS = {
  "channel:created": "id",
  "channel:updated": "id",
  "channel:deleted": "id",
  "channel:permissions-updated": "channelId",
  "voice:channel-update": "channel_id",
} as const satisfies Partial<Record<GatewayEventName, string>>;
export type ScreenedEvent = keyof typeof SCREENED_EVENTS;

export class Members {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly bus: EventBus,
    private readonly liveState: readonly LiveStateListener[],
    private readonly caps: ResourceCaps,
  ) {}

  /**
   * The member list (docs/servers.md, "Members"), for users and bots alike: with no `limit`,
   * `after` or `query`, every member in the order they joined (the spec's answer); with `limit`
   * or `after`, a page by user id after `after`; with `query`, the members whose username starts
   * with it. The query is validated by the route (MemberListQuery); `after` and `query` never
   * come together.
   */
  async list(serverId: string, userId: string, query: MemberListOptions = {}): Promise<Member[]> {
    const member = await this.access.member(serverId, userId);
    const id = member.server.id;
    const { members } = LIMITS;
    const rows =
      query.query !== undefined
        ? await this.store.members.search(id, query.query.normalize("NFC"), query.limit ?? members.searchDefault)
        : query.limit !== undefined || query.after !== undefined
          ? await this.store.members.page(id, query.after?.toLowerCase() ?? null, query.limit ?? members.pageDefault)
          : await this.store.members.list(id);
    return rows.map((row) => toMember(row, userId));
  }

  /** One member in the list's shape: 404 `Member not found` for anyone else (an id that is not a UUID too). */
  async one(serverId: string, userId: string, targetUserId: string): Promise<Member> {
    const member = await this.access.member(serverId, userId);
    const found = isUuid(targetUserId) ? await this.store.members.one(member.server.id, targetUserId.toLowerCase()) : null;
    if (!found) throw notFound("Member");
    return toMember(found, userId);
  }

  /**
   * Adds `user` to the server: `member:joined` to the server room and MEMBER_JOIN in the audit
   * log (the actor is the joiner unless `actorId` says who added them). False when already in;
   * 400 when they already belong to as many servers as their cap allows (a bot's is its own).
   */
  async join(serverId: string, user: UserRow, actorId = user.id): Promise<boolean> {
    const added = await this.store.members.add(serverId, user.id, "member", this.serverCap(user));
    if (added === "full") throw this.serverCapReached(user);
    if (!added) return false;
    // Before member:joined, so that a socket following every server gets it in the new room.
    await this.followNewMembership(serverId, user.id);
    this.bus.publish(rooms.server(serverId), "member:joined", {
      serverId,
      userId: user.id,
      username: user.username,
      avatar: user.avatar,
    });
    await this.audit.record(serverId, actorId, "MEMBER_JOIN", { type: "member", id: user.id });
    return true;
  }

  /**
   * Refuses (400) a user or bot already at their server cap, before work a refused join must not
   * leave behind (a bot's managed role); `join` checks again, atomically, when it adds them.
   */
  async requireRoomToJoin(serverId: string, user: UserRow): Promise<void> {
    if (await this.store.members.find(serverId, user.id)) return;
    if ((await this.store.members.countServersOf(user.id)) >= this.serverCap(user)) throw this.serverCapReached(user);
  }

  private serverCap(user: UserRow): number {
    return user.is_bot ? this.caps.serversPerBot : this.caps.serversPerUser;
  }

  private serverCapReached(user: UserRow) {
    return user.is_bot ? capReached.botServers(this.caps) : capReached.servers(this.caps);
  }

  /**
   * Removes a member: `member:left` to the server room (and to the member), and their sockets
   * leave the server's and its channels' rooms at once. The caller writes the audit entry
   * (MEMBER_LEAVE, MEMBER_KICK or MEMBER_BAN), since it knows which it was.
   */
  async remove(serverId: string, userId: string): Promise<boolean> {
    const removed = await this.store.members.remove(serverId, userId);
    if (!removed) return false;
    this.access.permissionsChanged();
    const payload = { serverId, userId };
    this.bus.publish([rooms.server(serverId), rooms.user(userId)], "member:left", payload);
    const userRoom = rooms.user(userId);
    // Its sockets' presence subscriptions there go with the server room (src/gateway/presence-subscriptions.ts).
    this.bus.removeFromRoom(userRoom, rooms.server(serverId));
    this.bus.removeFromRoom(userRoom, rooms.followServerChannels(serverId));
    for (const channel of await this.store.channels.listByServer(serverId)) {
      this.bus.removeFromRoom(userRoom, rooms.channel(channel.id));
    }
    for (const listener of this.liveState) await listener.memberRemoved(serverId, userId);
    return true;
  }

  /** The servers the user belongs to (a bulk `server:join`, docs/gateway.md "Bulk subscriptions"). */
  serverIdsOf(userId: string): Promise<string[]> {
    return this.store.members.serverIdsOf(userId);
  }

  /**
   * The channels of the server that `channel:join` would let the user into (Access.channelsOpenTo:
   * requireChannel's rule over every channel at once), in the server's order; 404 and 403 as
   * `server:join` answers them.
   */
  async viewableChannelIds(serverId: string, userId: string): Promise<string[]> {
    const member = await this.access.member(serverId, userId);
    return this.access.channelsOpenTo(member);
  }

  /** Every channel id of the server, whoever may see it (leaving rooms needs no permission). */
  async channelIdsIn(serverId: string): Promise<string[]> {
    return (await this.store.channels.listByServer(serverId)).map((channel) => channel.id);
  }

  /** Which of `userIds` are members of the server (`presence:subscribe` keeps only those). */
  membersAmong(serverId: string, userIds: readonly string[]): Promise<Set<string>> {
    return this.store.members.membersAmong(serverId, userIds);
  }

  /**
   * A membership just made (a join, a bot added, a server created): the user's sockets that follow
   * every server join its room, and those that follow every channel too start following its
   * channels and join the ones the user may view (docs/gateway.md, "Bulk subscriptions").
   */
  async followNewMembership(serverId: string, userId: string): Promise<void> {
    this.bus.addToRoom(rooms.followServers(userId), rooms.server(serverId));
    // The channel rule's work only when a socket of theirs follows channels (on any node).
    const followers = rooms.followChannels(userId);
    if ((await this.bus.usersIn(followers)).length === 0) return;
    // The marker first: a channel created while the list below is read is then followed by its creation.
    this.bus.addToRoom(followers, rooms.followServerChannels(serverId));
    const server = await this.access.server(serverId);
    const member = await this.access.memberOf(server, userId);
    // Gone again meanwhile: Members.remove has taken the rooms back.
    if (!member) return;
    const channelIds = (await this.access.channelsOpenTo(member)).map(rooms.channel);
    this.bus.addToRoom(followers, channelIds);
  }

  /** A channel just created: the sockets following every channel of its server join it where their user may view it. */
  async followNewChannel(channel: ChannelRow): Promise<void> {
    const server = await this.access.server(channel.server_id);
    await this.followChannels(server, [channel], null, new Map());
  }

  /**
   * The sockets that follow every channel of `server` (and whose user is in `only`, when given)
   * join those of `channels` their user may now view and they are not in yet: one room operation
   * per such socket. Each socket is checked by its own user's permissions, so a socket that
   * starts following meanwhile is never put in a channel it was not checked for; it works out
   * its own channels when it starts (src/gateway/handlers/rooms.ts).
   */
  private async followChannels(server: ServerRow, channels: readonly ChannelRow[], only: ReadonlySet<string> | null, members: Map<string, MemberContext | null>): Promise<void> {
    const followers = (await this.bus.socketsIn(rooms.followServerChannels(server.id))).filter((socket) => !only || only.has(socket.userId));
    if (followers.length === 0) return;
    const joins = new Map<RoomSocket, string[]>();
    for (const channel of channels) {
      const room = rooms.channel(channel.id);
      const missing = followers.filter((socket) => !socket.rooms.has(room));
      if (missing.length === 0) continue;
      const overrides = await this.access.overridesOf(channel);
      await this.readMembers(server, members, missing.map((socket) => socket.userId));
      for (const socket of missing) {
        const member = members.get(socket.userId);
        if (!member || !hasPermission(this.access.permissionsIn(member, overrides), PERMISSIONS.VIEW_CHANNEL)) continue;
        const list = joins.get(socket);
        if (list) list.push(room);
        else joins.set(socket, [room]);
      }
    }
    for (const [socket, channelRooms] of joins) this.bus.addToRoom(socket.id, channelRooms);
  }

  /**
   * Publishes an event about `channel` to its server's room, except to the members who cannot
   * view it (docs/gateway.md, "Channel events"). Only the users with a socket in the server's
   * room are checked (EventBus.publishScreened), in one read of their standing per batch, and
   * the permission is worked out once per distinct standing: the work follows the connected
   * sockets, not the server's size. `overrides`: the channel's, read before it was deleted.
   */
  async publishAboutChannel<E extends ScreenedEvent>(
    channel: ChannelRow,
    event: E,
    payload: GatewayPayload<E>,
    overrides?: ChannelOverrides,
  ): Promise<void> {
    const server = await this.access.server(channel.server_id);
    const applying = overrides ?? (await this.access.overridesOf(channel));
    await this.bus.publishScreened(rooms.server(server.id), event, payload, (userIds) => this.unableToView(server, applying, userIds));
  }

  /**
   * Which of the events a resumed session missed it may be sent (docs/gateway.md, "Resume"):
   * `publishAboutChannel` checked the users with a socket in the server room then, and a session
   * away at that moment was not among them. Its channel events are kept when the user may view
   * the channel now and dropped when they may not; an event about a channel that is gone (deleted
   * since) cannot be told, and the session is not resumed (null: the client reloads).
   */
  async replayable(userId: string, events: readonly { event: unknown; payload: unknown }[]): Promise<boolean[] | null> {
    const keep: boolean[] = [];
    const decided = new Map<string, boolean | null>();
    for (const { event, payload } of events) {
      const key = typeof event === "string" && event in SCREENED_EVENTS ? SCREENED_EVENTS[event as ScreenedEvent] : null;
      if (!key) {
        keep.push(true);
        continue;
      }
      const channelId = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[key] : undefined;
      if (typeof channelId !== "string") return null;
      if (!decided.has(channelId)) decided.set(channelId, await this.mayViewNow(channelId, userId));
      const visible = decided.get(channelId);
      if (visible === null || visible === undefined) return null;
      keep.push(visible);
    }
    return keep;
  }

  /** True or false when the channel exists; null when it does not (or its server is gone). */
  private async mayViewNow(channelId: string, userId: string): Promise<boolean | null> {
    try {
      await this.access.requireChannel(channelId, userId);
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return false;
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** A channel's overrides, for `publishAboutChannel` after the channel is gone. */
  overridesOf(channel: ChannelRow): Promise<ChannelOverrides> {
    return this.access.overridesOf(channel);
  }

  /** Of `userIds`, those who cannot view a channel of `server` with these overrides (non-members among them). */
  private async unableToView(server: ServerRow, overrides: ChannelOverrides, userIds: readonly string[]): Promise<string[]> {
    const members = await this.access.membersOf(server, userIds);
    const byStanding = new Map<string, boolean>();
    const hidden: string[] = [];
    for (const userId of userIds) {
      const member = members.get(userId);
      if (!member) {
        hidden.push(userId);
        continue;
      }
      // The same built-in role, custom roles and timeout state: the same permissions in the channel.
      const standing = `${member.input.builtinRole} ${member.timedOut ? 1 : 0} ${member.roles.map((role) => role.id).sort().join(",")}`;
      let visible = byStanding.get(standing);
      if (visible === undefined) {
        visible = hasPermission(this.access.permissionsIn(member, overrides), PERMISSIONS.VIEW_CHANNEL);
        byStanding.set(standing, visible);
      }
      if (!visible) hidden.push(userId);
    }
    return hidden;
  }

  /** Reads into `members` the standing of those of `userIds` not in it yet, in one bulk read (null: not a member). */
  private async readMembers(server: ServerRow, members: Map<string, MemberContext | null>, userIds: readonly string[]): Promise<void> {
    const unread = [...new Set(userIds)].filter((id) => !members.has(id));
    if (unread.length === 0) return;
    const read = await this.access.membersOf(server, unread);
    for (const id of unread) members.set(id, read.get(id) ?? null);
  }

  /**
   * After a change that can take VIEW_CHANNEL away or grant it (an override, a role's bits, a
   * role assigned or unassigned), every affected member who can no longer see a channel leaves
   * its room at once, and the sockets that follow every channel of the server join the channels
   * their user can now see (docs/gateway.md, "Bulk subscriptions").
   */
  async syncChannelRooms(serverId: string, options: { userIds?: string[]; channelIds?: string[] } = {}): Promise<void> {
    this.access.permissionsChanged();
    const server = await this.access.server(serverId);
    const channels = (await this.store.channels.listByServer(server.id)).filter(
      (c) => !options.channelIds || options.channelIds.includes(c.id),
    );
    const only = options.userIds ? new Set(options.userIds) : null;
    // Only users with a socket in a channel's room can need taking out of it, so the work
    // follows those sockets, not the server's size; the members are read in bulk, each once, and
    // each channel's overrides once.
    const members = new Map<string, MemberContext | null>();
    for (const channel of channels) {
      const watchers = (await this.bus.usersIn(rooms.channel(channel.id))).filter((id) => !only || only.has(id));
      if (watchers.length === 0) continue;
      const overrides = await this.access.overridesOf(channel);
      await this.readMembers(server, members, watchers);
      for (const userId of watchers) {
        const member = members.get(userId);
        const visible = member && hasPermission(this.access.permissionsIn(member, overrides), PERMISSIONS.VIEW_CHANNEL);
        if (!visible) this.bus.removeFromRoom(rooms.user(userId), rooms.channel(channel.id));
      }
    }
    await this.followChannels(server, channels, only, members);
    for (const listener of this.liveState) await listener.accessChanged(server.id, options.userIds);
  }
}
