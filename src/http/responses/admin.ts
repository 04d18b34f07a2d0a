/** Answers of the administration, report and AI administration routes (docs/admin.md, docs/reports.md, docs/ai.md). */
import * as v from "valibot";
import type { AdminServer as AdminServerType } from "../../domain/admin/admin-servers.ts";
import type { AdminUser as AdminUserType, AdminUserDetail as AdminUserDetailType } from "../../domain/admin/admin-users.ts";
import type { PlatformLogEntry as PlatformLogEntryType } from "../../domain/admin/admins.ts";
import { GENERAL_SETTINGS, type GeneralSettingName } from "../../domain/admin/general-settings.ts";
import { REPORT_ACTIONS, type AdminReport as AdminReportType, type OwnReport as OwnReportType } from "../../domain/admin/reports.ts";
import type { AiKeyView as AiKeyViewType } from "../../domain/ai/keys.ts";
import type { AiSettingsValues } from "../../domain/ai/settings.ts";
import { BotFlag, ImageUrl, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import { AiModel } from "./ai.ts";
import type { Assert, Same } from "./same-type.ts";

export const GeneralSettings = v.object(
  Object.fromEntries((Object.keys(GENERAL_SETTINGS) as GeneralSettingName[]).map((name) => [name, v.boolean()])) as Record<GeneralSettingName, v.BooleanSchema<undefined>>,
);

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
export const AdminUserDetail = v.object({ ...AdminUser.entries, server_count: v.number(), owned_server_count: v.number(), open_reports: v.number() });
const named = v.object({ id: Uuid, username: v.nullable(v.string()) });
export const AdminServer = v.object({
  id: Uuid,
  name: v.string(),
  description: v.string(),
  icon: ImageUrl,
  owner: named,
  verified: v.boolean(),
  member_count: v.number(),
  created_at: UnixSeconds,
});
export const PlatformLogEntry = v.object({
  id: Uuid,
  actor: v.nullable(v.object({ id: Uuid, username: v.string() })),
  action: v.string(),
  target_type: v.nullable(v.string()),
  target_id: v.nullable(v.string()),
  changes: v.record(v.string(), v.unknown()),
  created_at: UnixSeconds,
});
export const PlatformLogPage = v.object({ entries: v.array(PlatformLogEntry), hasMore: v.boolean() });

/** A report as its reporter sees it. */
export const OwnReport = v.object({
  id: Uuid,
  type: v.picklist(["message", "user"]),
  target_id: Uuid,
  reason: v.string(),
  status: v.picklist(["open", "resolved", "dismissed"]),
  created_at: UnixSeconds,
  resolved_at: v.nullable(UnixSeconds),
});
export const AdminReport = v.object({
  ...OwnReport.entries,
  reporter: v.nullable(named),
  target_user: v.nullable(named),
  message: v.nullable(
    v.object({
      id: Uuid,
      server_id: v.nullable(Uuid),
      channel_id: v.nullable(Uuid),
      conversation_id: v.nullable(Uuid),
      content: v.string(),
      created_at: UnixSeconds,
    }),
  ),
  action: v.nullable(v.picklist(REPORT_ACTIONS)),
  note: v.nullable(v.string()),
  resolved_by: v.nullable(named),
});

export const AiSettings = v.object({
  enabled: v.boolean(),
  plus_only: v.boolean(),
  daily_msg_limit: v.number(),
  max_upload_mb: v.number(),
  welcome: v.string(),
  default_model: v.nullable(v.string()),
});
/** A provider key as administrators see it: never the key itself, only its last characters. */
export const AiKey = v.object({
  id: Uuid,
  name: v.string(),
  base_url: v.string(),
  models: v.array(AiModel),
  enabled: v.boolean(),
  key_hint: v.nullable(v.string()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});

export type Checks = [
  Assert<Same<v.InferOutput<typeof AdminUser>, AdminUserType>>,
  Assert<Same<v.InferOutput<typeof AdminUserDetail>, AdminUserDetailType>>,
  Assert<Same<v.InferOutput<typeof AdminServer>, AdminServerType>>,
  Assert<Same<v.InferOutput<typeof PlatformLogEntry>, PlatformLogEntryType>>,
  Assert<Same<v.InferOutput<typeof OwnReport>, OwnReportType>>,
  Assert<Same<v.InferOutput<typeof AdminReport>, AdminReportType>>,
  Assert<Same<v.InferOutput<typeof AiSettings>, AiSettingsValues>>,
  Assert<Same<v.InferOutput<typeof AiKey>, AiKeyViewType>>,
];
