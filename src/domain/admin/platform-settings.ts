import * as v from "valibot";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { SharedState } from "../shared/shared-state.ts";

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
 * code that reads them; values are cached in memory and written through. In cluster mode a write
 * tells the other nodes to drop their cache (they read the database again on next use).
 */
export class PlatformSettings {
  private cache: Map<string, unknown> | null = null;

  constructor(
    private readonly store: Store,
    private readonly config?: Config,
    private readonly shared?: SharedState,
  ) {
    shared?.onSignal("settings", () => {
      this.cache = null;
    });
  }

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
    this.shared?.signal("settings", setting.key);
  }
}
