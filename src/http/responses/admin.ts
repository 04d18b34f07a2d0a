/**
 * Answers of the administration, report and AI administration routes (docs/admin.md,
 * docs/reports.md, docs/ai.md). The shapes the domain builds are defined beside the feature that
 * builds them (their types are the schemas' outputs) and listed here with the answers only these
 * routes build, so the reference names them.
 */
import * as v from "valibot";
import { AdminServer } from "../../domain/admin/admin-servers.ts";
import { AdminUser, AdminUserDetail } from "../../domain/admin/admin-users.ts";
import { PlatformLogEntry } from "../../domain/admin/admins.ts";
import { GENERAL_SETTINGS, type GeneralSettingName } from "../../domain/admin/general-settings.ts";
import { AdminReport, OwnReport } from "../../domain/admin/reports.ts";
import { AiKey } from "../../domain/ai/keys.ts";
import { AiSettingsValues } from "../../domain/ai/settings.ts";

/** `AiSettings` in the reference; the domain's `AiSettings` is the service that keeps them. */
export { AdminReport, AdminServer, AdminUser, AdminUserDetail, AiKey, AiSettingsValues as AiSettings, OwnReport, PlatformLogEntry };

export const GeneralSettings = v.object(
  Object.fromEntries((Object.keys(GENERAL_SETTINGS) as GeneralSettingName[]).map((name) => [name, v.boolean()])) as Record<GeneralSettingName, v.BooleanSchema<undefined>>,
);
export const PlatformLogPage = v.object({ entries: v.array(PlatformLogEntry), hasMore: v.boolean() });
