/** Answers of the application, command, bot invite and Bot REST routes (docs/applications.md, docs/commands.md). */
import * as v from "valibot";
import type { Application as ApplicationType, BotInviteCard as BotInviteCardType, BotServer as BotServerType } from "../../domain/bots/applications.ts";
import { BotAddResult } from "../../domain/bots/bot-membership.ts";
import type { CommandOption as CommandOptionType } from "../../domain/bots/command-args.ts";
import type { Command as CommandType, ServerCommand as ServerCommandType } from "../../domain/bots/commands.ts";
import { PERMISSIONS, type PermissionName } from "../../domain/access/permission-bits.ts";
import { Activity, ImageUrl, Presence, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import type { Assert, Same } from "./same-type.ts";

export { BotAddResult };

export const Application = v.object({
  id: Uuid,
  name: v.string(),
  description: v.string(),
  bot_user_id: Uuid,
  client_secret: v.string(),
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  public_invite: v.boolean(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  owner_id: Uuid,
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
/** `POST /oauth2/applications` (SPEC.md): the application and its bot's first token. */
export const NewApplication = v.object({ application: Application, bot_token: v.string() });
export const BotToken = v.object({ bot_token: v.string() });
export const ApplicationPermissions = v.object({
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  permission_labels: v.array(v.string()),
});
export const BotServer = v.object({
  id: Uuid,
  name: v.string(),
  icon: ImageUrl,
  role_id: v.nullable(Uuid),
  bot_permissions: v.number(),
  permission_labels: v.array(v.string()),
});

export const BotInviteCard = v.object({
  bot_user_id: Uuid,
  name: v.string(),
  avatar: ImageUrl,
  banner: ImageUrl,
  banner_offset: v.number(),
  description: v.string(),
  public_invite: v.boolean(),
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  permission_labels: v.array(v.string()),
  permission_flags: v.array(v.picklist(Object.keys(PERMISSIONS) as PermissionName[])),
  invite_url: v.string(),
});

export const CommandOption = v.object({
  name: v.string(),
  description: v.string(),
  /** SPEC.md "Option types": 3 string, 4 integer, 5 boolean, 6 user, 7 channel, 8 role, 10 number. */
  type: v.number(),
  required: v.boolean(),
  choices: v.optional(v.array(v.object({ name: v.string(), value: v.union([v.string(), v.number()]) }))),
  autocomplete: v.optional(v.boolean()),
  min_value: v.optional(v.number()),
  max_value: v.optional(v.number()),
  max_length: v.optional(v.number()),
  channel_types: v.optional(v.array(v.number())),
});
export const Command = v.object({
  id: Uuid,
  application_id: Uuid,
  server_id: v.nullable(Uuid),
  name: v.string(),
  description: v.string(),
  options: v.array(CommandOption),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export const ServerCommand = v.object({
  ...Command.entries,
  bot_id: Uuid,
  bot_name: v.string(),
  bot_avatar: ImageUrl,
  app_name: v.string(),
});

/**
 * A slash command as a bot registers it (SPEC.md "Slash command"); the domain validates it
 * (src/domain/bots/commands.ts), this describes it for the reference.
 */
export const CommandDefinition = v.object({
  name: v.string(),
  description: v.optional(v.string()),
  options: v.optional(v.array(v.object({ ...CommandOption.entries, description: v.optional(v.string()), required: v.optional(v.boolean()) }))),
});

export const BotPresence = v.object({ status: Presence, activity: v.nullable(Activity) });

export type Checks = [
  Assert<Same<v.InferOutput<typeof Application>, ApplicationType>>,
  Assert<Same<v.InferOutput<typeof BotServer>, BotServerType>>,

  Assert<Same<v.InferOutput<typeof BotInviteCard>, BotInviteCardType>>,
  Assert<Same<v.InferOutput<typeof CommandOption>, CommandOptionType>>,
  Assert<Same<v.InferOutput<typeof Command>, CommandType>>,
  Assert<Same<v.InferOutput<typeof ServerCommand>, ServerCommandType>>,
];
