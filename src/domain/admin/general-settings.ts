import type { UserRow } from "../../store/users-repo.ts";
import { REGISTRATION_OPEN } from "../accounts/accounts.ts";
import type { Admins } from "./admins.ts";
import type { PlatformSettings, SettingDefinition } from "./platform-settings.ts";
import { REQUIRE_2FA_FOR_APPLICATIONS } from "../bots/applications.ts";

/**
 * The general platform settings administrators read and change at /api/v1/admin/settings,
 * by their wire name. Each is defined next to the code that reads it; a feature with its own
 * admin routes (the AI assistant) keeps its settings there instead.
 */
export const GENERAL_SETTINGS = {
  registration_open: REGISTRATION_OPEN,
  require_2fa_for_applications: REQUIRE_2FA_FOR_APPLICATIONS,
} satisfies Record<string, SettingDefinition<boolean>>;

export type GeneralSettingName = keyof typeof GENERAL_SETTINGS;
type GeneralSettingValues = Record<GeneralSettingName, boolean>;

const NAMES = Object.keys(GENERAL_SETTINGS) as GeneralSettingName[];

/** The general settings, read and changed by administrators at /api/v1/admin/settings (docs/admin.md). */
export class GeneralSettings {
  constructor(private readonly settings: PlatformSettings, private readonly admins: Admins) {}

  async get(): Promise<GeneralSettingValues> {
    const values = await Promise.all(NAMES.map((name) => this.settings.get(GENERAL_SETTINGS[name])));
    return Object.fromEntries(NAMES.map((name, i) => [name, values[i]!])) as GeneralSettingValues;
  }

  /** Stores the given values; the ones that changed are logged together as SETTINGS_UPDATE `{name: {old, new}}`. */
  async update(actor: UserRow, changes: Partial<GeneralSettingValues>): Promise<GeneralSettingValues> {
    const current = await this.get();
    const changed: Record<string, { old: boolean; new: boolean }> = {};
    for (const name of NAMES) {
      const value = changes[name];
      if (value === undefined || value === current[name]) continue;
      await this.settings.set(GENERAL_SETTINGS[name], value, actor.id);
      changed[name] = { old: current[name], new: value };
    }
    if (Object.keys(changed).length > 0) await this.admins.record(actor, "SETTINGS_UPDATE", null, changed);
    return this.get();
  }
}
