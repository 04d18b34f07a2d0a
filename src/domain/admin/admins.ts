import * as v from "valibot";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { PlatformLogRow } from "../../store/platform-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";

export const LAST_ADMIN = "The platform needs at least one administrator: promote someone else first";

/** The platform permission every administrator holds (the spec's admin AI routes name it). */
export const MANAGE_SETTINGS = "MANAGE_SETTINGS";

/**
 * One platform setting: its key, its default, and the schema a stored or submitted value must
 * pass. The default may come from the configuration (a host's environment variable then sets
 * the value until an administrator changes it).
 */
export interface SettingDefinition<T> {
  key: string;
  default: T | ((config: Config) => T);
  schema: v.GenericSchema<T>;
}

export const defineSetting = <T>(
  key: string,
  schema: v.GenericSchema<T>,
  fallback: T | ((config: Config) => T),
): SettingDefinition<T> => ({
  key,
  schema,
  default: fallback,
});

/**
 * Platform settings, JSON by key. Each feature defines its own keys (defineSetting) next to the
 * code that reads them; values are cached in memory and written through.
 */
export class PlatformSettings {
  private cache: Map<string, unknown> | null = null;

  constructor(private readonly store: Store, private readonly config?: Config) {}

  private async values(): Promise<Map<string, unknown>> {
    if (!this.cache) {
      const raw = await this.store.platform.settings();
      this.cache = new Map([...raw].map(([key, json]) => [key, JSON.parse(json) as unknown]));
    }
    return this.cache;
  }

  /** The stored value if it still passes the schema, else the default. */
  async get<T>(setting: SettingDefinition<T>): Promise<T> {
    const stored = (await this.values()).get(setting.key);
    if (stored === undefined) return this.defaultOf(setting);
    const parsed = v.safeParse(setting.schema, stored);
    return parsed.success ? parsed.output : this.defaultOf(setting);
  }

  /** The value when no administrator has set one: fixed, or read from the configuration. */
  defaultOf<T>(setting: SettingDefinition<T>): T {
    if (typeof setting.default !== "function") return setting.default;
    if (!this.config) throw new Error(`setting ${setting.key} needs the configuration for its default`);
    return (setting.default as (config: Config) => T)(this.config);
  }

  /** Stores an already validated value. */
  async set<T>(setting: SettingDefinition<T>, value: T, updatedBy: string | null): Promise<void> {
    await this.store.platform.putSetting(setting.key, JSON.stringify(value), updatedBy);
    (await this.values()).set(setting.key, value);
  }
}

export interface PlatformLogEntry {
  id: string;
  actor: { id: string; username: string } | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  changes: Record<string, unknown>;
  created_at: number;
}

const toLogEntry = (row: PlatformLogRow): PlatformLogEntry => ({
  id: row.id,
  actor: row.actor_id && row.actor_username ? { id: row.actor_id, username: row.actor_username } : null,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  changes: JSON.parse(row.changes) as Record<string, unknown>,
  created_at: row.created_at,
});

/** Who administers the platform, and the platform log of what they did. */
export class Admins {
  constructor(private readonly store: Store) {}

  isAdmin(user: UserRow): boolean {
    return user.platform_admin === 1 && user.is_bot === 0;
  }

  /** Every admin route starts here: non-administrators (and every bot) get 403. */
  requireAdmin(user: UserRow): void {
    if (!this.isAdmin(user)) throw forbidden(`Platform administrators only (${MANAGE_SETTINGS})`);
  }

  /** Writes one platform log entry. `actor` null is the host's command line. */
  async record(
    actor: UserRow | null,
    action: string,
    target: { type: string; id: string } | null,
    changes: Record<string, unknown> = {},
  ): Promise<void> {
    await this.store.platform.log({
      actorId: actor?.id ?? null,
      action,
      targetType: target?.type ?? null,
      targetId: target?.id ?? null,
      changes,
    });
  }

  /**
   * Promotes or demotes a human account, and logs it (USER_PROMOTE / USER_DEMOTE) when it
   * changed. `actor` null is the host's command line. The last administrator stays one.
   */
  async setAdmin(actor: UserRow | null, target: UserRow, admin: boolean): Promise<UserRow> {
    if (target.is_bot) throw badRequest("platform_admin: a bot cannot be a platform administrator");
    if ((target.platform_admin === 1) === admin) return target;
    const result = await this.store.platform.setAdmin(target.id, admin);
    if (!result.ok) throw result.reason === "last_admin" ? badRequest(LAST_ADMIN) : notFound("User");
    await this.record(actor, admin ? "USER_PROMOTE" : "USER_DEMOTE", { type: "user", id: target.id }, { platform_admin: admin });
    return result.user;
  }

  async logPage(before: string | null, limit: number): Promise<{ entries: PlatformLogEntry[]; hasMore: boolean }> {
    const rows = await this.store.platform.logPage(before, limit + 1);
    return { entries: rows.slice(0, limit).map(toLogEntry), hasMore: rows.length > limit };
  }
}
