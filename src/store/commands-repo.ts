/**
 * Slash commands (table `commands`, migration 5): global (`server_id` NULL) or scoped to one
 * server; a name is unique per application + scope. `options` is the JSON text of the
 * normalized option definitions (see domain/bots/command-args.ts `CommandOption`).
 *
 * Lookups for other features:
 * - `findForInvocation(serverId, name)`: every command with that (lowercased) name usable in
 *   that server, i.e. global commands and commands scoped to that server, of every bot that
 *   is a member of the server (a bot outside the server never receives interactions), with
 *   the bot's user id and application id. Several entries mean several bots (or one bot's
 *   global and server-scoped command) share the name.
 * - `listForServer(serverId)`: the same set for every name, with the bot's display fields.
 *
 * Every write that checks a name is one transaction: the check and the write cannot be
 * separated by another request.
 */
import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

export interface CommandRow {
  id: string;
  application_id: string;
  server_id: string | null;
  name: string;
  description: string;
  /** JSON text of the option definitions. */
  options: string;
  created_at: number;
  updated_at: number;
}

/** A command usable in a server, with the bot that owns it. */
export interface ServerCommandRow extends CommandRow {
  bot_id: string;
  bot_name: string;
  bot_avatar: string | null;
  app_name: string;
}

/** What a registration writes; `name` is already lowercased, `options` already JSON. */
export interface CommandInput {
  name: string;
  description: string;
  options: string;
}

export type CommandWrite = { ok: true; command: CommandRow } | { ok: false; conflict: string };

export class CommandsRepo {
  private readonly byApp;
  private readonly byId;
  private readonly byScopeName;
  private readonly globalByApp;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly forServer;
  private readonly forInvocation;

  constructor(private readonly db: Database) {
    this.byApp = db.prepare<CommandRow, [string]>(
      "SELECT * FROM commands WHERE application_id = ? ORDER BY server_id IS NOT NULL, server_id, name",
    );
    this.byId = db.prepare<CommandRow, [string, string]>("SELECT * FROM commands WHERE application_id = ? AND id = ?");
    this.byScopeName = db.prepare<CommandRow, [string, string, string]>(
      "SELECT * FROM commands WHERE application_id = ? AND coalesce(server_id, '') = ? AND name = ?",
    );
    this.globalByApp = db.prepare<CommandRow, [string]>(
      "SELECT * FROM commands WHERE application_id = ? AND coalesce(server_id, '') = '' ORDER BY name",
    );
    this.insertStmt = db.prepare<CommandRow, [string, string, string | null, string, string, string, number, number]>(
      `INSERT INTO commands (id, application_id, server_id, name, description, options, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ${db.dialect.json("?")}, ?, ?) RETURNING *`,
    );
    this.updateStmt = db.prepare<CommandRow, [string, string, string, number, string]>(
      `UPDATE commands SET name = ?, description = ?, options = ${db.dialect.json("?")}, updated_at = ? WHERE id = ? RETURNING *`,
    );
    this.deleteStmt = db.prepare("DELETE FROM commands WHERE application_id = ? AND id = ?");
    // Bots that are members of the server: global commands plus the ones scoped to it.
    const usable = `FROM commands c
       JOIN applications a ON a.id = c.application_id
       JOIN server_members m ON m.server_id = $server AND m.user_id = a.bot_user_id
       JOIN users u ON u.id = a.bot_user_id
       WHERE (c.server_id IS NULL OR c.server_id = $server)`;
    this.forServer = db.prepare<ServerCommandRow, [{ server: string }]>(
      `SELECT c.*, a.bot_user_id AS bot_id, u.username AS bot_name, u.avatar AS bot_avatar, a.name AS app_name
       ${usable} ORDER BY c.name, u.username, c.server_id IS NULL, c.id`,
    );
    this.forInvocation = db.prepare<CommandRow & { bot_user_id: string }, [{ server: string; name: string }]>(
      `SELECT c.*, a.bot_user_id AS bot_user_id ${usable} AND c.name = $name ORDER BY u.username, c.server_id IS NULL, c.id`,
    );
  }

  async listByApplication(applicationId: string): Promise<CommandRow[]> {
    return this.db.all(this.byApp, applicationId);
  }

  async findById(applicationId: string, id: string): Promise<CommandRow | null> {
    return this.db.get(this.byId, applicationId, id);
  }

  /**
   * Replaces every global command of the application with `commands` (names already unique),
   * atomically. A command whose name survives keeps its id and `created_at`.
   */
  async replaceGlobal(applicationId: string, commands: CommandInput[]): Promise<CommandRow[]> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`commands:${applicationId}`);
      const now = nowSeconds();
      const existing = new Map((await tx.all(this.globalByApp, applicationId)).map((c) => [c.name, c]));
      const kept = new Set<string>();
      const stored: CommandRow[] = [];
      for (const c of commands) {
        const before = existing.get(c.name);
        if (before) kept.add(before.id);
        stored.push(
          before
            ? (await tx.get(this.updateStmt, c.name, c.description, c.options, now, before.id))!
            : (await tx.get(this.insertStmt, Bun.randomUUIDv7(), applicationId, null, c.name, c.description, c.options, now, now))!,
        );
      }
      for (const before of existing.values()) if (!kept.has(before.id)) await tx.run(this.deleteStmt, applicationId, before.id);
      return stored;
    });
  }

  /** Creates one command; a name taken in that scope answers the conflict. */
  async create(applicationId: string, serverId: string | null, input: CommandInput): Promise<CommandWrite> {
    return this.db.transaction(async (tx): Promise<CommandWrite> => {
      await tx.lock(`commands:${applicationId}`);
      if (await tx.get(this.byScopeName, applicationId, serverId ?? "", input.name)) return { ok: false, conflict: input.name };
      const now = nowSeconds();
      const command = (await tx.get(this.insertStmt, Bun.randomUUIDv7(), applicationId, serverId, input.name, input.description, input.options, now, now))!;
      return { ok: true, command };
    });
  }

  /** Applies `change` to the stored command (read in the same transaction); null when it is gone. */
  async update(applicationId: string, id: string, change: (current: CommandRow) => CommandInput): Promise<CommandWrite | null> {
    return this.db.transaction(async (tx): Promise<CommandWrite | null> => {
      await tx.lock(`commands:${applicationId}`);
      const current = await tx.get(this.byId, applicationId, id);
      if (!current) return null;
      const next = change(current);
      const holder = await tx.get(this.byScopeName, applicationId, current.server_id ?? "", next.name);
      if (holder && holder.id !== id) return { ok: false, conflict: next.name };
      return { ok: true, command: (await tx.get(this.updateStmt, next.name, next.description, next.options, nowSeconds(), id))! };
    });
  }

  async delete(applicationId: string, id: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, applicationId, id)) > 0;
  }

  /** Every command usable in the server (see the file comment), with its bot's display fields. */
  async listForServer(serverId: string): Promise<ServerCommandRow[]> {
    return this.db.all(this.forServer, { server: serverId });
  }

  /** Every command named `name` usable in the server (see the file comment). */
  async findForInvocation(serverId: string, name: string): Promise<{ command: CommandRow; botUserId: string; applicationId: string }[]> {
    return (await this.db.all(this.forInvocation, { server: serverId, name: name.toLowerCase() })).map(({ bot_user_id, ...command }) => ({
      command,
      botUserId: bot_user_id,
      applicationId: command.application_id,
    }));
  }
}
