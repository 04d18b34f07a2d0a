import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserFilter } from "../../store/admin-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Accounts, NewAccount } from "../accounts/accounts.ts";
import type { Admins } from "./admins.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { isUuid } from "../shared/validation.ts";
import { BotFlag, ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";

/** A user as platform administrators see it (docs/admin.md#users). */
export const AdminUser = v.object({
  id: Uuid,
  username: v.string(),
  email: v.nullable(v.string()),
  avatar: ImageUrl,
  is_bot: BotFlag,
  premium: v.boolean(),
  platform_admin: v.boolean(),
  disabled: v.boolean(),
  disabled_at: v.nullable(UnixSeconds),
  two_factor_enabled: v.boolean(),
  created_at: UnixSeconds,
});
export type AdminUser = v.InferOutput<typeof AdminUser>;

/** One user, with how much of the platform they touch. */
export const AdminUserDetail = v.object({ ...AdminUser.entries, server_count: v.number(), owned_server_count: v.number(), open_reports: v.number() });
export type AdminUserDetail = v.InferOutput<typeof AdminUserDetail>;

/** A user an administrator's view points at; `username` is null once the account is gone. */
export const NamedUser = v.object({ id: Uuid, username: v.nullable(v.string()) });

const toAdminUser = (row: UserRow): AdminUser => ({
  id: row.id,
  username: row.username,
  email: row.email,
  avatar: row.avatar,
  is_bot: row.is_bot,
  premium: row.premium === 1,
  platform_admin: row.platform_admin === 1 && row.is_bot === 0,
  disabled: row.disabled_at !== null,
  disabled_at: row.disabled_at,
  two_factor_enabled: row.totp_secret !== null,
  created_at: row.created_at,
});

interface UserFlagChanges {
  premium?: boolean;
  platform_admin?: boolean;
  disabled?: boolean;
}

/**
 * Administrators' view of every account: list and search, create (while registration is
 * closed, too), and the premium, administrator and disabled flags. Each change is logged.
 */
export class AdminUsers {
  constructor(
    private readonly store: Store,
    private readonly admins: Admins,
    private readonly accounts: Accounts,
    private readonly bus: EventBus,
  ) {}

  async list(filter: UserFilter, before: string | null, limit: number): Promise<AdminUser[]> {
    return (await this.store.admin.users(filter, before, limit)).map(toAdminUser);
  }

  async find(id: string): Promise<UserRow> {
    const user = isUuid(id) ? await this.store.users.findById(id.toLowerCase()) : null;
    if (!user) throw notFound("User");
    return user;
  }

  async get(id: string): Promise<AdminUserDetail> {
    return this.detail(await this.find(id));
  }

  async create(actor: UserRow, input: NewAccount): Promise<AdminUserDetail> {
    const user = await this.accounts.createAccount(input);
    await this.admins.record(actor, "USER_CREATE", { type: "user", id: user.id }, { username: user.username });
    return this.detail(user);
  }

  /** Applies the flags that differ, checking them all first, then administrator, premium, disabled. */
  async update(actor: UserRow, id: string, changes: UserFlagChanges): Promise<AdminUserDetail> {
    let user = await this.find(id);
    if (user.is_bot && changes.premium !== undefined) throw badRequest("premium: a bot cannot be premium");
    if (changes.disabled === true && user.disabled_at === null) {
      this.checkCanDisable(actor, user, changes.platform_admin === false);
    }
    if (changes.platform_admin !== undefined) user = await this.admins.setAdmin(actor, user, changes.platform_admin);
    if (changes.premium !== undefined && (user.premium === 1) !== changes.premium) {
      user = (await this.store.users.setPremium(user.id, changes.premium)) ?? user;
      const action = changes.premium ? "USER_PREMIUM_GRANT" : "USER_PREMIUM_REVOKE";
      await this.admins.record(actor, action, { type: "user", id: user.id }, { premium: changes.premium });
    }
    if (changes.disabled !== undefined) user = await this.setDisabled(actor, user, changes.disabled);
    return this.detail(user);
  }

  /**
   * Disables or re-enables an account (bots included). A disabled account's tokens are refused
   * at once and its sockets disconnected. Administrators cannot disable themselves or another
   * administrator (demote first), so the platform never locks itself out.
   */
  async setDisabled(actor: UserRow, user: UserRow, disabled: boolean): Promise<UserRow> {
    if ((user.disabled_at !== null) === disabled) return user;
    if (disabled) this.checkCanDisable(actor, user, false);
    const updated = await this.store.platform.setDisabled(user.id, disabled);
    if (!updated) throw notFound("User");
    if (disabled) this.bus.disconnect(rooms.user(user.id));
    await this.admins.record(actor, disabled ? "USER_DISABLE" : "USER_ENABLE", { type: "user", id: user.id }, { disabled });
    return updated;
  }

  private checkCanDisable(actor: UserRow, user: UserRow, demotedFirst: boolean): void {
    if (user.id === actor.id) throw badRequest("You cannot disable your own account");
    if (this.admins.isAdmin(user) && !demotedFirst) {
      throw badRequest("Demote this administrator before disabling the account");
    }
  }

  private async detail(user: UserRow): Promise<AdminUserDetail> {
    const counts = await this.store.admin.userCounts(user.id);
    return {
      ...toAdminUser(user),
      server_count: counts.servers,
      owned_server_count: counts.owned_servers,
      open_reports: await this.store.reports.openAgainst(user.id),
    };
  }
}
