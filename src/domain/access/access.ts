import type { Store } from "../../store/store.ts";
import type { ServerRow } from "../../store/servers-repo.ts";
import type { ChannelRow } from "../../store/channels-repo.ts";
import type { AccessMemberRow, AccessRole } from "../../store/access-repo.ts";
import { nowSeconds } from "../../store/time.ts";
import { forbidden, notFound, type ApiError } from "../shared/errors.ts";
import { ALL_PERMISSIONS, PERMISSIONS, permissionNames } from "./permission-bits.ts";
import {
  computeBasePermissions,
  computeChannelPermissions,
  hasPermission,
  isRestrainedByTimeout,
  outranks,
  TIMEOUT_PERMISSIONS,
  type BuiltinRole,
  type MemberPermissionInput,
  type Override,
} from "./permissions.ts";
import { isUuid } from "../shared/validation.ts";
import type { SharedState } from "../shared/shared-state.ts";

/** The overrides that apply in a channel: its category's, then its own. */
export interface ChannelOverrides {
  category: Override[];
  channel: Override[];
}

/** A member's standing in one server, as permission checks need it. */
export interface MemberContext {
  server: ServerRow;
  userId: string;
  isOwner: boolean;
  builtinRole: BuiltinRole;
  roles: AccessRole[];
  /** Server-wide permissions (before channel overrides). */
  permissions: number;
  highestRolePosition: number;
  timeoutUntil: number | null;
  /**
   * Whether a running timeout restrains them (isRestrainedByTimeout) as of when `permissions`
   * were worked out; those, and any channel's worked out with them, hold only the read bits.
   */
  timedOut: boolean;
  input: MemberPermissionInput;
}

export interface ChannelContext {
  channel: ChannelRow;
  member: MemberContext;
  /** Effective permissions in the channel. */
  permissions: number;
}

/** The refusal of anything a timeout forbids, to a timed-out member. */
const timedOutError = () => forbidden("You are timed out in this server");

/**
 * 403 naming the permission(s) the caller lacks; to a timed-out `member` (pass it whenever it
 * is known) asking for a bit the timeout took away, the timeout's refusal instead.
 */
export const missingPermission = (bit: number, member?: Pick<MemberContext, "timedOut">) =>
  member?.timedOut && bit & ~TIMEOUT_PERMISSIONS ? timedOutError() : forbidden(`Missing permission: ${permissionNames(bit).join(", ")}`);

/**
 * For the few actions no permission bit covers (joining an existing reaction, creating an
 * invite): refused while the member's timeout restrains them, as the bits are.
 */
export function requireNotTimedOut(member: Pick<MemberContext, "timedOut">): void {
  if (member.timedOut) throw timedOutError();
}

/**
 * The one rule of a caller in a channel: `permissions` there must hold VIEW_CHANNEL, then `bit`
 * (none: 0). The 403 that refuses them, naming the bit, or null when they may. `requireChannel`
 * throws it; `channelsOpenTo` leaves out the channels it refuses.
 */
function channelRefusal(permissions: number, member: MemberContext, bit: number): ApiError | null {
  if (!hasPermission(permissions, PERMISSIONS.VIEW_CHANNEL)) return missingPermission(PERMISSIONS.VIEW_CHANNEL);
  if (bit && !hasPermission(permissions, bit)) return missingPermission(bit, member);
  return null;
}

/** A channel decision for a caller who also needs `bit` (none: 0), or the 403 naming it. */
function withBit(decision: ChannelContext, bit: number): ChannelContext {
  const refusal = channelRefusal(decision.permissions, decision.member, bit);
  if (refusal) throw refusal;
  return decision;
}

/**
 * Whether a kept decision's timeout state has changed with the clock alone (a timeout that ran
 * out; one that starts is a write, which changes the access version).
 */
const timeoutRanOut = (member: MemberContext): boolean => member.timedOut && member.timeoutUntil! <= nowSeconds();

/** A member's standing from their access rows (AccessRepo.member). */
function memberContext(server: ServerRow, userId: string, row: AccessMemberRow): MemberContext {
  const isOwner = row.owner_id === userId;
  const input: MemberPermissionInput = {
    isOwner,
    builtinRole: isOwner ? "owner" : row.role,
    everyonePermissions: row.everyone_permissions,
    everyoneRoleId: row.everyone_id,
    roles: row.roles,
    timeoutUntil: row.timeout_until,
  };
  // One reading of the clock for both, so they agree.
  const now = input.timeoutUntil === null ? undefined : nowSeconds();
  return {
    server,
    userId,
    isOwner,
    builtinRole: input.builtinRole,
    roles: row.roles,
    permissions: computeBasePermissions(input, now),
    highestRolePosition: row.roles.reduce((max, r) => Math.max(max, r.position), 0),
    timeoutUntil: row.timeout_until,
    timedOut: isRestrainedByTimeout(input, now),
    input,
  };
}

/** A channel's overrides where there are none: what the member holds in every channel of a server without overrides. */
const NO_OVERRIDES: ChannelOverrides = { category: [], channel: [] };

/**
 * Who may do what: membership, server permissions, channel permissions and rank. Every route
 * and gateway handler asks here, so the rules live in one place.
 */
export class Access {
  /**
   * Bumped by every write that can change what a member may do (roles, overrides, membership,
   * timeouts, channel settings): caches of permission decisions (voice admission) compare it.
   */
  private epoch = 0;
  /** `requireChannel`'s decisions ("<user id> <channel id>"), all made under `decisionsVersion`. */
  private readonly decisions = new Map<string, ChannelContext>();
  private decisionsVersion: number | null = null;
  private static readonly DECISIONS = 10_000;

  constructor(
    private readonly store: Store,
    /** In cluster mode, every node's caches go stale together (a signal bumps their epochs). */
    private readonly shared?: SharedState,
  ) {
    shared?.onSignal("permissions", () => {
      this.epoch++;
    });
  }

  get permissionsEpoch(): number {
    return this.epoch;
  }

  /** Call after any write that can change a member's permissions or standing. */
  permissionsChanged(): void {
    this.epoch++;
    this.shared?.signal("permissions");
  }

  async server(serverId: string): Promise<ServerRow> {
    const server = isUuid(serverId) ? await this.store.servers.findById(serverId) : null;
    if (!server) throw notFound("Server");
    return server;
  }

  /** The caller's standing; 404 for a missing server, 403 for a non-member (CONTRACT.md). */
  async member(serverId: string, userId: string): Promise<MemberContext> {
    const server = await this.server(serverId);
    const context = await this.memberOf(server, userId);
    if (!context) throw forbidden("You are not a member of this server");
    return context;
  }

  /** Null for a non-member. */
  async memberOf(server: ServerRow, userId: string): Promise<MemberContext | null> {
    const row = await this.store.access.member(server.id, userId);
    return row ? memberContext(server, userId, row) : null;
  }

  /** `memberOf` for many users at once (two queries however many): the members among them, by user id. */
  async membersOf(server: ServerRow, userIds: readonly string[]): Promise<Map<string, MemberContext>> {
    const contexts = new Map<string, MemberContext>();
    for (const [userId, row] of await this.store.access.members(server.id, userIds)) contexts.set(userId, memberContext(server, userId, row));
    return contexts;
  }

  async requirePermission(serverId: string, userId: string, bit: number): Promise<MemberContext> {
    const member = await this.member(serverId, userId);
    if (!hasPermission(member.permissions, bit)) throw missingPermission(bit, member);
    return member;
  }

  /** Owner or built-in admin (server administration the spec reserves to them). */
  async requireAdmin(serverId: string, userId: string): Promise<MemberContext> {
    const member = await this.member(serverId, userId);
    if (!member.isOwner && member.builtinRole !== "admin") throw forbidden("Only server admins and the owner can do that");
    return member;
  }

  async channel(channelId: string): Promise<ChannelRow> {
    const channel = isUuid(channelId) ? await this.store.channels.findById(channelId) : null;
    if (!channel) throw notFound("Channel");
    return channel;
  }

  async channelPermissions(channel: ChannelRow, member: MemberContext): Promise<number> {
    return this.permissionsIn(member, await this.overridesOf(channel));
  }

  /** A channel's category and channel overrides, read once to check many members against. */
  async overridesOf(channel: ChannelRow): Promise<ChannelOverrides> {
    const [category, own] = await Promise.all([
      channel.category_id ? this.store.access.categoryOverrides(channel.category_id) : [],
      this.store.access.channelOverrides(channel.id),
    ]);
    const toOverride = (o: { role_id: string; allow: number; deny: number }) => ({ roleId: o.role_id, allow: o.allow, deny: o.deny });
    return { category: category.map(toOverride), channel: own.map(toOverride) };
  }

  /**
   * The overrides of every channel and category of a server, read at once: for a check over all
   * its channels (the channel list, a server-wide search), which would otherwise read two
   * queries per channel. `category(id)` is a category's own (for whether it shows, empty);
   * `none`: the server has no override at all; `channelIds` and `categoryIds`: those that have one.
   */
  async overridesOfServer(
    serverId: string,
  ): Promise<{
    of(channel: Pick<ChannelRow, "id" | "category_id">): ChannelOverrides;
    category(categoryId: string): Override[];
    none: boolean;
    channelIds: string[];
    categoryIds: string[];
  }> {
    const { channels, categories } = await this.store.access.serverOverrides(serverId);
    const byChannel = new Map<string, Override[]>();
    const byCategory = new Map<string, Override[]>();
    const add = (map: Map<string, Override[]>, key: string, o: { role_id: string; allow: number; deny: number }) => {
      const list = map.get(key);
      const override = { roleId: o.role_id, allow: o.allow, deny: o.deny };
      if (list) list.push(override);
      else map.set(key, [override]);
    };
    for (const o of channels) add(byChannel, o.channel_id, o);
    for (const o of categories) add(byCategory, o.category_id, o);
    return {
      of: (channel) => ({ category: channel.category_id ? (byCategory.get(channel.category_id) ?? []) : [], channel: byChannel.get(channel.id) ?? [] }),
      category: (categoryId) => byCategory.get(categoryId) ?? [],
      none: channels.length === 0 && categories.length === 0,
      channelIds: [...byChannel.keys()],
      categoryIds: [...byCategory.keys()],
    };
  }

  /**
   * Whether the member holds every bit in every channel of the server, whatever its overrides
   * (the owner, an administrator): computeChannelPermissions answers so before it reads one, so
   * a check over all the channels needs neither the overrides nor the channels.
   */
  holdsEverything(member: MemberContext): boolean {
    return this.permissionsIn(member, NO_OVERRIDES) === ALL_PERMISSIONS;
  }

  permissionsIn(member: MemberContext, overrides: ChannelOverrides): number {
    return computeChannelPermissions(member.input, overrides.category, overrides.channel);
  }

  /**
   * The caller in a channel, needing VIEW_CHANNEL plus `bit`: 404 for a channel that does not
   * exist, 403 for a non-member and for a member who may not view it (SPEC "Errors": exists
   * but forbidden). The 403 tells a member no more than a non-member already learns of any
   * existing channel id; the channel itself (name, topic, messages) is never shown.
   *
   * Decisions are cached when the database keeps an access version (SQLite:
   * `AccessRepo.version`, changed by triggers with every write to the servers, members, roles,
   * member roles, categories, channels and overrides a decision reads; docs/architecture.md,
   * "Access decisions cached while nothing they read changes"). The version is read at every
   * call, and any change empties the cache, so a change of permissions counts from the very
   * next call, whichever process wrote it. Only decisions that let the caller see the channel
   * are kept; a refusal is worked out again each time. A kept context is a function of those
   * rows and of whether a timeout is running: a decision made under a timeout is dropped once
   * it has run out (starting or lifting one is a write). What else depends on the time
   * (slowmode) is for the caller to judge at each call. Shared between calls: read it, never
   * change it.
   * Without a version (PostgreSQL: several nodes) every call works the decision out.
   */
  async requireChannel(channelId: string, userId: string, bit = 0): Promise<ChannelContext> {
    // Read before the decision: a write landing while it is worked out changes the version the
    // next call reads, so what is kept under this one is never older than this one.
    const version = await this.store.access.version();
    if (version === null) return withBit(await this.decideChannel(channelId, userId), bit);
    if (version !== this.decisionsVersion) {
      this.decisions.clear();
      this.decisionsVersion = version;
    }
    const key = `${userId} ${channelId}`;
    const kept = this.decisions.get(key);
    if (kept && !timeoutRanOut(kept.member)) return withBit(kept, bit);
    const decision = await this.decideChannel(channelId, userId);
    if (this.decisions.size >= Access.DECISIONS) this.decisions.delete(this.decisions.keys().next().value!);
    // Under the version read above, unless it changed meanwhile (then kept nowhere).
    if (this.decisionsVersion === version) this.decisions.set(key, decision);
    return withBit(decision, bit);
  }

  /** `requireChannel`'s decision read from the rows: the channel, the member, VIEW_CHANNEL. */
  private async decideChannel(channelId: string, userId: string): Promise<ChannelContext> {
    const channel = await this.channel(channelId);
    const member = await this.member(channel.server_id, userId);
    const permissions = await this.channelPermissions(channel, member);
    const refusal = channelRefusal(permissions, member, 0);
    if (refusal) throw refusal;
    return { channel, member, permissions };
  }

  /**
   * The ids of the channels of the member's server that `requireChannel(id, member.userId, bit)` would let
   * them into, by the same rule (VIEW_CHANNEL, then `bit`), in the server's channel order: for
   * an operation over every channel at once (server-wide search). Worked out from the rows each
   * time, every override of the server read at once, as the channel list does.
   */
  async channelsOpenTo(member: MemberContext, bit = 0): Promise<string[]> {
    const [channels, overrides] = await Promise.all([this.store.channels.placesInServer(member.server.id), this.overridesOfServer(member.server.id)]);
    return channels.filter((channel) => !channelRefusal(this.permissionsIn(member, overrides.of(channel)), member, bit)).map((channel) => channel.id);
  }

  /**
   * The same channels as `channelsOpenTo(member, bit)`, told as a list of the channels that
   * differ from the rest: `{ closed }`, every channel of the server but those (the channels
   * being deleted are left out by whoever reads the scope: no list here holds them), or
   * `{ open }`, those alone. Only a channel with overrides of its own or of its category can
   * differ from what the member holds everywhere, so those alone are read and worked out (the
   * server's overrides read at once, through its roles); the owner and administrators, whom no
   * override restricts, read every channel without a read at all. What this reads follows the
   * server's overrides, never its channels (docs/servers.md, "Search").
   */
  async channelScope(member: MemberContext, bit = 0): Promise<{ closed: string[] } | { open: string[] }> {
    if (this.holdsEverything(member)) return { closed: [] };
    const openByDefault = !channelRefusal(this.permissionsIn(member, NO_OVERRIDES), member, bit);
    const overrides = await this.overridesOfServer(member.server.id);
    const touched = overrides.none ? [] : await this.store.channels.placesAmong(member.server.id, overrides.channelIds, overrides.categoryIds);
    const differing = touched.filter((channel) => !channelRefusal(this.permissionsIn(member, overrides.of(channel)), member, bit) !== openByDefault).map((channel) => channel.id);
    return openByDefault ? { closed: differing } : { open: differing };
  }

  /**
   * Nobody grants, revokes, allows or denies a bit they do not hold themselves (owner and
   * administrators hold every bit). `bits` are the bits being changed.
   */
  requireHeldBits(member: MemberContext, bits: number): void {
    const lacking = bits & ~member.permissions;
    if (lacking) throw forbidden(`You cannot grant or deny permissions you do not have: ${permissionNames(lacking).join(", ")}`);
  }

  /** The actor must rank above the target (built-in role, then highest custom role). */
  requireOutranks(actor: MemberContext, target: MemberContext): void {
    if (actor.userId === target.userId) throw forbidden("You cannot do that to yourself");
    if (!outranks(actor, target)) throw forbidden("You cannot act on a member ranked at or above you");
  }
}
