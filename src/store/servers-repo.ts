import type { Database } from "./database.ts";
import { memberCountChange, usernameLowerOf } from "./member-derived-columns.ts";
import { nowSeconds } from "./time.ts";

export interface ServerRow {
  id: string;
  name: string;
  description: string;
  icon: string | null;
  banner: string | null;
  banner_offset: number;
  owner_id: string;
  vanity_code: string | null;
  verified: number;
  settings: string;
  /** Kept by the repositories that add and remove members (member-derived-columns.ts). */
  member_count: number;
  created_at: number;
  updated_at: number;
  /** Set when its delete was asked (migration 22); such a row is never read, and goes in the background. */
  deleted_at: number | null;
}

interface NewServer {
  ownerId: string;
  name: string;
  description: string;
  everyonePermissions: number;
  primaryInviteCode: string;
}

/** Servers themselves; membership lives in MembersRepo. */
export class ServersRepo {
  private readonly byId;
  private readonly forUser;
  private readonly insertServer;
  private readonly insertRole;
  private readonly insertChannel;
  private readonly insertMember;
  private readonly countOwner;
  private readonly insertInvite;
  private readonly nextListPosition;
  private readonly serverCountOfUser;
  private readonly updateStmt;
  private readonly setIcon;
  private readonly setBanner;
  private readonly setVanityStmt;
  private readonly vanityOwner;
  private readonly setListPosition;
  private readonly filesStmt;

  constructor(private readonly db: Database) {
    // A server being deleted (deleted_at set, migration 22) is gone for every read.
    this.byId = db.prepare<ServerRow, [string]>("SELECT * FROM servers WHERE id = ? AND deleted_at IS NULL");
    this.forUser = db.prepare<ServerRow, [string]>(
      `SELECT s.* FROM server_members m JOIN servers s ON s.id = m.server_id
       WHERE m.user_id = ? AND s.deleted_at IS NULL ORDER BY m.list_position, m.joined_at, s.id`,
    );
    this.insertServer = db.prepare<ServerRow, [Record<string, string | number>]>(
      `INSERT INTO servers (id, name, description, owner_id, created_at, updated_at)
       VALUES ($id, $name, $description, $owner_id, $now, $now) RETURNING *`,
    );
    this.insertRole = db.prepare(
      `INSERT INTO roles (id, server_id, name, color, position, permissions, hoist, is_default, created_at)
       VALUES (?, ?, '@everyone', '#99AAB5', 0, ?, 0, 1, ?)`,
    );
    this.insertChannel = db.prepare(
      "INSERT INTO channels (id, server_id, name, type, position, created_at) VALUES (?, ?, 'general', 'text', 0, ?)",
    );
    this.insertMember = db.prepare(
      `INSERT INTO server_members (server_id, user_id, role, list_position, joined_at, username_lower)
       VALUES (?, ?, 'owner', ?, ?, ${usernameLowerOf(db, "?")})`,
    );
    this.countOwner = memberCountChange(db, "+");
    this.insertInvite = db.prepare(
      "INSERT INTO invites (id, server_id, code, is_primary, created_by, created_at) VALUES (?, ?, ?, 1, ?, ?)",
    );
    // server_members_user serves it.
    this.serverCountOfUser = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM server_members WHERE user_id = ?");
    this.nextListPosition = db.prepare<{ next: number }, [string]>(
      "SELECT coalesce(max(list_position) + 1, 0) AS next FROM server_members WHERE user_id = ?",
    );
    this.updateStmt = db.prepare<ServerRow, [Record<string, string | number | null>]>(
      `UPDATE servers SET name = coalesce($name, name), description = coalesce($description, description),
         banner_offset = coalesce($banner_offset, banner_offset), settings = coalesce(${db.dialect.json("$settings")}, settings),
         updated_at = $now
       WHERE id = $id RETURNING *`,
    );
    this.setIcon = db.prepare("UPDATE servers SET icon = ?, updated_at = ? WHERE id = ?");
    this.setBanner = db.prepare("UPDATE servers SET banner = ?, updated_at = ? WHERE id = ?");
    this.setVanityStmt = db.prepare<ServerRow, [string | null, number, string]>(
      "UPDATE servers SET vanity_code = ?, updated_at = ? WHERE id = ? RETURNING *",
    );
    this.vanityOwner = db.prepare<{ id: string }, [string]>(`SELECT id FROM servers WHERE vanity_code = ?${db.dialect.nocase}`);
    this.setListPosition = db.prepare("UPDATE server_members SET list_position = ? WHERE user_id = ? AND server_id = ?");
    this.filesStmt = db.prepare<{ path: string }, [Record<string, string>]>(
      `SELECT icon AS path FROM servers WHERE id = $id AND icon IS NOT NULL
       UNION ALL SELECT banner FROM servers WHERE id = $id AND banner IS NOT NULL
       UNION ALL SELECT a.filename FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.server_id = $id
       UNION ALL SELECT file_path FROM server_gifs WHERE server_id = $id
       UNION ALL SELECT file_path FROM emojis WHERE server_id = $id
       UNION ALL SELECT file_path FROM soundboard_sounds WHERE server_id = $id`,
    );
  }

  async findById(id: string): Promise<ServerRow | null> {
    return this.db.get(this.byId, id);
  }

  async listForUser(userId: string): Promise<ServerRow[]> {
    return this.db.all(this.forUser, userId);
  }

  /**
   * One transaction: the server, its `@everyone` role, a `general` text channel, the owner's
   * membership and the primary invite. Null when the owner already belongs to `maxServers`
   * servers (the same lock and count as MembersRepo.add).
   */
  async create(server: NewServer, maxServers: number): Promise<ServerRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`server-list:${server.ownerId}`);
      if (((await tx.get(this.serverCountOfUser, server.ownerId))?.n ?? 0) >= maxServers) return null;
      const now = nowSeconds();
      const row = (await tx.get(this.insertServer, {
        id: Bun.randomUUIDv7(),
        name: server.name,
        description: server.description,
        owner_id: server.ownerId,
        now,
      }))!;
      await tx.run(this.insertRole, Bun.randomUUIDv7(), row.id, server.everyonePermissions, now);
      await tx.run(this.insertChannel, Bun.randomUUIDv7(), row.id, now);
      await tx.run(this.insertMember, row.id, server.ownerId, (await tx.get(this.nextListPosition, server.ownerId))?.next ?? 0, now, server.ownerId);
      await tx.run(this.countOwner, row.id);
      await tx.run(this.insertInvite, Bun.randomUUIDv7(), row.id, server.primaryInviteCode, server.ownerId, now);
      // As stored now, with the owner counted.
      return (await tx.get(this.byId, row.id))!;
    });
  }

  async update(
    id: string,
    changes: { name?: string; description?: string; banner_offset?: number; settings?: string },
  ): Promise<ServerRow | null> {
    return this.db.get(this.updateStmt, {
      id,
      name: changes.name ?? null,
      description: changes.description ?? null,
      banner_offset: changes.banner_offset ?? null,
      settings: changes.settings ?? null,
      now: nowSeconds(),
    });
  }

  /** Stores a new icon or banner path and returns the one it replaced. */
  async replaceImage(id: string, kind: "icon" | "banner", path: string | null): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`server-images:${id}`);
      const before = await tx.get(this.byId, id);
      await tx.run(kind === "icon" ? this.setIcon : this.setBanner, path, nowSeconds(), id);
      return before ? before[kind] : null;
    });
  }

  /** Sets (or clears) the vanity code; false when another server has it. */
  async setVanity(id: string, code: string | null): Promise<ServerRow | false | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock("vanity-codes");
      if (code !== null) {
        const owner = await tx.get(this.vanityOwner, code);
        if (owner && owner.id !== id) return false;
      }
      return tx.get(this.setVanityStmt, code, nowSeconds(), id);
    });
  }

  /** Every stored file the server owns (images, attachments, GIFs, emojis, sounds): removed with it. */
  async files(id: string): Promise<string[]> {
    return (await this.db.all(this.filesStmt, { id })).map((row) => row.path);
  }

  /** The caller's server list order: the given ids first, in order. */
  async reorderForUser(userId: string, serverIds: string[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const [index, serverId] of serverIds.entries()) await tx.run(this.setListPosition, index, userId, serverId);
    });
  }
}
