/**
 * Answers of the application, command, bot invite and Bot REST routes (docs/applications.md,
 * docs/commands.md). The shapes the domain builds are defined beside the feature that builds them
 * (their types are the schemas' outputs) and listed here with the answers only these routes
 * build, so the reference names them.
 */
import * as v from "valibot";
import { Application, BotInviteCard, BotServer } from "../../domain/bots/applications.ts";
import { BotAddResult } from "../../domain/bots/bot-membership.ts";
import { CommandOption } from "../../domain/bots/command-option.ts";
import { Command, ServerCommand } from "../../domain/bots/commands.ts";
import { Activity, Presence } from "../../domain/shared/shapes.ts";

export { Application, BotAddResult, BotInviteCard, BotServer, Command, CommandOption, ServerCommand };

/** `POST /oauth2/applications` (SPEC.md): the application and its bot's first token. */
export const NewApplication = v.object({ application: Application, bot_token: v.string() });
export const BotToken = v.object({ bot_token: v.string() });
export const ApplicationPermissions = v.object({
  default_permissions: v.number(),
  invite_permission_locked: v.boolean(),
  permission_labels: v.array(v.string()),
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
