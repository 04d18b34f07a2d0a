/**
 * The wire shapes of applications, bot invites and commands as docs/applications.md and
 * docs/commands.md describe them. test/web/application-types.check.ts checks that the server's
 * own types still fit these.
 */
import type { CommandOption, Role } from "./types.ts";

/** An application as its owner sees it. */
export interface Application {
  id: string;
  name: string;
  description: string;
  bot_user_id: string;
  default_permissions: number;
  invite_permission_locked: boolean;
  public_invite: boolean;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  owner_id: string;
  created_at: number;
}

/** POST /oauth2/applications: the new application and its bot's token (shown once). */
export interface CreatedApplication {
  application: Application;
  bot_token: string;
}

/** The public invite card of a bot (no token needed). */
export interface BotInviteCard {
  bot_user_id: string;
  name: string;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  description: string;
  public_invite: boolean;
  default_permissions: number;
  invite_permission_locked: boolean;
  permission_labels: string[];
}

/** A server the bot is in, as its owner sees it. */
export interface BotServer {
  id: string;
  name: string;
  icon: string | null;
  role_id: string | null;
  bot_permissions: number;
  permission_labels: string[];
}

/** What adding (or authorizing again) a bot did. */
export interface BotAddResult {
  server_id: string;
  bot_user_id: string;
  /** False when the bot was already in the server and only its role changed. */
  joined: boolean;
  permissions: number;
  role: Role;
}

/** A slash command of an application (global when `server_id` is null). */
export interface ApplicationCommand {
  id: string;
  application_id: string;
  server_id: string | null;
  name: string;
  description: string;
  options: CommandOption[];
}

/** PATCH /oauth2/applications/:appId/permissions. */
export interface PermissionsUpdate {
  default_permissions: number;
  invite_permission_locked: boolean;
  permission_labels: string[];
}
