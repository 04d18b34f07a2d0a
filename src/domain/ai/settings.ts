import * as v from "valibot";
import type { UserRow } from "../../store/users-repo.ts";
import type { Admins } from "../admin/admins.ts";
import { defineSetting, type PlatformSettings, type SettingDefinition } from "../admin/platform-settings.ts";
import { LIMITS } from "../shared/limits.ts";

const DEFAULT_WELCOME = "Hi! I'm the Hearth assistant. Ask me anything.";

const modelId = v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.ai.modelIdLength));

/** The settings' values, as administrators read and change them (the reference's `AiSettings`). */
export const AiSettingsValues = v.object({
  enabled: v.boolean(),
  plus_only: v.boolean(),
  daily_msg_limit: v.number(),
  max_upload_mb: v.number(),
  welcome: v.string(),
  default_model: v.nullable(v.string()),
});
export type AiSettingsValues = v.InferOutput<typeof AiSettingsValues>;

/** The AI assistant's platform settings, each with its key and default. */
const AI_SETTINGS: { [K in keyof AiSettingsValues]: SettingDefinition<AiSettingsValues[K]> } = {
  enabled: defineSetting("ai.enabled", v.boolean(), false),
  plus_only: defineSetting("ai.plus_only", v.boolean(), false),
  /** Turns a user may send per UTC day; 0 is no limit. */
  daily_msg_limit: defineSetting("ai.daily_msg_limit", v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.ai.dailyMsgLimitMax)), 50),
  max_upload_mb: defineSetting(
    "ai.max_upload_mb",
    v.pipe(v.number(), v.integer(), v.minValue(LIMITS.ai.maxUploadMbMin), v.maxValue(LIMITS.ai.maxUploadMbMax)),
    10,
  ),
  welcome: defineSetting("ai.welcome", v.pipe(v.string(), v.maxLength(LIMITS.ai.welcomeLength)), DEFAULT_WELCOME),
  /** null: the first enabled model. */
  default_model: defineSetting("ai.default_model", v.nullable(modelId), null as string | null),
};

type Name = keyof AiSettingsValues;
const NAMES = Object.keys(AI_SETTINGS) as Name[];

/** Reads and changes the AI settings; a change is logged as AI_SETTINGS_UPDATE `{name: {old, new}}`. */
export class AiSettings {
  constructor(private readonly settings: PlatformSettings, private readonly admins: Admins) {}

  async get(): Promise<AiSettingsValues> {
    const s = this.settings;
    return {
      enabled: await s.get(AI_SETTINGS.enabled),
      plus_only: await s.get(AI_SETTINGS.plus_only),
      daily_msg_limit: await s.get(AI_SETTINGS.daily_msg_limit),
      max_upload_mb: await s.get(AI_SETTINGS.max_upload_mb),
      welcome: await s.get(AI_SETTINGS.welcome),
      default_model: await s.get(AI_SETTINGS.default_model),
    };
  }

  /** Stores already validated values; only the ones that differ are written and logged. */
  async update(actor: UserRow, changes: Partial<AiSettingsValues>): Promise<AiSettingsValues> {
    const current = await this.get();
    const changed: Record<string, { old: unknown; new: unknown }> = {};
    for (const name of NAMES) {
      const value = changes[name];
      if (value === undefined || value === current[name]) continue;
      await this.store(name, value, actor);
      changed[name] = { old: current[name], new: value };
    }
    if (Object.keys(changed).length > 0) await this.admins.record(actor, "AI_SETTINGS_UPDATE", null, changed);
    return this.get();
  }

  private async store<K extends Name>(name: K, value: AiSettingsValues[K], actor: UserRow): Promise<void> {
    await this.settings.set(AI_SETTINGS[name], value, actor.id);
  }
}
