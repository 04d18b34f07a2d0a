/**
 * Slash-command registration (SPEC.md "Slash command", "Commands"). Notes: docs/commands.md.
 *
 * - Bulk (`POST /oauth2/commands`, bot token): replaces every GLOBAL command of the bot's
 *   application in one transaction; at most 50; a name twice in the array is 409.
 * - Per application (`/oauth2/applications/:appId/commands`): the owner's user token or the
 *   application's own bot token; anyone else gets 404 (the application does not leak).
 *   Server-scoped commands (`server_id`) are the owner's alone, and only for a server where
 *   the owner is the server owner or an admin (the same rule as adding the bot there).
 * - Per server (`/oauth2/servers/:serverId/commands`): any member sees every command usable
 *   there: global commands of the bots in the server plus commands scoped to it.
 */
import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ApplicationRow } from "../../store/applications-repo.ts";
import type { CommandInput, CommandRow, CommandWrite, ServerCommandRow } from "../../store/commands-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { COMMAND_NAME_RE, normalizeOption } from "./command-args.ts";
import { CommandOption } from "./command-option.ts";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";

/** SPEC.md "Slash command" as the API answers it. */
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
export type Command = v.InferOutput<typeof Command>;

/** A command usable in a server, with the bot that answers it. */
export const ServerCommand = v.object({ ...Command.entries, bot_id: Uuid, bot_name: v.string(), bot_avatar: ImageUrl, app_name: v.string() });
export type ServerCommand = v.InferOutput<typeof ServerCommand>;

function toCommand(row: CommandRow): Command {
  const options: unknown = JSON.parse(row.options);
  return {
    id: row.id,
    application_id: row.application_id,
    server_id: row.server_id,
    name: row.name,
    description: row.description,
    options: Array.isArray(options) ? (options as CommandOption[]) : [],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toServerCommand(row: ServerCommandRow): ServerCommand {
  return { ...toCommand(row), bot_id: row.bot_id, bot_name: row.bot_name, bot_avatar: row.bot_avatar, app_name: row.app_name };
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const duplicateName = (name: string) => conflict(`Duplicate command name: ${name}`);

interface NormalizedCommand {
  name: string;
  description: string;
  options: CommandOption[];
}

/** `path` prefixes field names in errors: "" for a single command, "3." inside the bulk array. */
function commandName(value: unknown, path: string): string {
  if (value === undefined || value === null) throw badRequest(`${path}name: is required`);
  if (typeof value !== "string" || !COMMAND_NAME_RE.test(value)) throw badRequest(`${path}name: must be 1-${LIMITS.commandNameLength} letters, digits, _ or -`);
  return value.toLowerCase();
}

function commandDescription(value: unknown, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw badRequest(`${path}description: must be a string`);
  if (value.length > LIMITS.optionDescriptionLength) throw badRequest(`${path}description: must be at most ${LIMITS.optionDescriptionLength} characters`);
  return value;
}

function commandOptions(value: unknown, path: string): CommandOption[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest(`${path}options: must be an array`);
  if (value.length > LIMITS.optionsPerCommand) throw badRequest(`${path}options: at most ${LIMITS.optionsPerCommand} options`);
  const options = value.map((option, index) => {
    try {
      return normalizeOption(option, index);
    } catch (error) {
      if (error instanceof ApiError && path) throw badRequest(`${path}${error.message}`);
      throw error;
    }
  });
  const seen = new Set<string>();
  for (const option of options) {
    if (seen.has(option.name)) throw badRequest(`${path}options: duplicate option name ${option.name}`);
    seen.add(option.name);
  }
  return options;
}

/** Validates a command object (SPEC.md "Slash command"); unknown fields are ignored. */
function normalizeCommand(input: unknown, path = ""): NormalizedCommand {
  if (!isRecord(input)) throw badRequest(path ? `${path.slice(0, -1)}: must be a JSON object` : "body: must be a JSON object");
  return {
    name: commandName(input.name, path),
    description: commandDescription(input.description, path),
    options: commandOptions(input.options, path),
  };
}

const toInput = (c: NormalizedCommand): CommandInput => ({ name: c.name, description: c.description, options: JSON.stringify(c.options) });

function written(result: CommandWrite): Command {
  if (!result.ok) throw duplicateName(result.conflict);
  return toCommand(result.command);
}

export class Commands {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
  ) {}

  /** POST /oauth2/commands: the bot's global commands become exactly `body`. */
  async replaceGlobal(bot: UserRow, body: unknown): Promise<Command[]> {
    const app = await this.store.applications.findByBotUser(bot.id);
    if (!app) throw notFound("Application");
    if (!Array.isArray(body)) throw badRequest("body: must be an array of commands");
    if (body.length > LIMITS.globalCommandsPerApplication) {
      throw badRequest(`body: at most ${LIMITS.globalCommandsPerApplication} global commands per application`);
    }
    const commands = body.map((input, index) => normalizeCommand(input, `${index}.`));
    const names = new Set<string>();
    for (const command of commands) {
      if (names.has(command.name)) throw duplicateName(command.name);
      names.add(command.name);
    }
    return (await this.store.commands.replaceGlobal(app.id, commands.map(toInput))).map(toCommand);
  }

  async list(appId: string, caller: UserRow): Promise<Command[]> {
    const app = await this.application(appId, caller);
    return (await this.store.commands.listByApplication(app.id)).map(toCommand);
  }

  /** POST one command; `server_id` scopes it to a server (owner only, admin of that server). */
  async create(appId: string, caller: UserRow, body: unknown): Promise<Command> {
    const app = await this.application(appId, caller);
    const command = normalizeCommand(body);
    const serverId = (body as Record<string, unknown>).server_id ?? null;
    if (serverId !== null) {
      if (typeof serverId !== "string") throw badRequest("server_id: must be a server id");
      await this.requireServerScope(caller, serverId);
    }
    return written(await this.store.commands.create(app.id, serverId === null ? null : serverId.toLowerCase(), toInput(command)));
  }

  /** PUT: the fields given (name, description, options) replace the stored ones; the scope stays. */
  async update(appId: string, cmdId: string, caller: UserRow, body: unknown): Promise<Command> {
    const app = await this.application(appId, caller);
    const current = await this.command(app, cmdId);
    if (!isRecord(body)) throw badRequest("body: must be a JSON object");
    if (body.server_id !== undefined && (body.server_id ?? null) !== current.server_id) {
      throw badRequest("server_id: the scope of a command cannot change");
    }
    if (current.server_id) await this.requireServerScope(caller, current.server_id);
    const name = body.name === undefined ? undefined : commandName(body.name, "");
    const description = body.description === undefined ? undefined : commandDescription(body.description, "");
    const options = body.options === undefined ? undefined : JSON.stringify(commandOptions(body.options, ""));
    const result = await this.store.commands.update(app.id, current.id, (stored) => ({
      name: name ?? stored.name,
      description: description ?? stored.description,
      options: options ?? stored.options,
    }));
    if (!result) throw notFound("Command");
    return written(result);
  }

  async delete(appId: string, cmdId: string, caller: UserRow): Promise<void> {
    const app = await this.application(appId, caller);
    const current = await this.command(app, cmdId);
    if (current.server_id && caller.is_bot) throw this.ownerOnly();
    if (!(await this.store.commands.delete(app.id, current.id))) throw notFound("Command");
  }

  /** GET /oauth2/servers/:serverId/commands: any member; 403 for others. */
  async forServer(serverId: string, caller: UserRow): Promise<ServerCommand[]> {
    const member = await this.access.member(serverId, caller.id);
    return (await this.store.commands.listForServer(member.server.id)).map(toServerCommand);
  }

  /** The owner (user token) or the application's own bot; anyone else: 404. */
  private async application(appId: string, caller: UserRow): Promise<ApplicationRow> {
    const app = isUuid(appId) ? await this.store.applications.findById(appId.toLowerCase()) : null;
    const allowed = app && (caller.is_bot ? app.bot_user_id === caller.id : app.owner_id === caller.id);
    if (!app || !allowed) throw notFound("Application");
    return app;
  }

  private async command(app: ApplicationRow, cmdId: string): Promise<CommandRow> {
    const row = isUuid(cmdId) ? await this.store.commands.findById(app.id, cmdId.toLowerCase()) : null;
    if (!row) throw notFound("Command");
    return row;
  }

  private ownerOnly() {
    return forbidden("Server commands are registered by the application owner");
  }

  /** Server scope: the owner's user token, as server owner or admin of that server. */
  private async requireServerScope(caller: UserRow, serverId: string): Promise<void> {
    if (caller.is_bot) throw this.ownerOnly();
    await this.access.requireAdmin(serverId, caller.id);
  }
}
