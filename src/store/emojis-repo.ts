import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

interface EmojiRef {
  id: string;
  server_id: string;
  name: string;
}

/** A stored custom emoji, as the `emojis` table holds it. */
export interface EmojiRow extends EmojiRef {
  file_path: string;
  original_name: string;
  mime_type: string;
  size: number;
  uploaded_by: string | null;
  created_at: number;
}

/** An emoji as the routes answer it: the row plus the uploader's current username. */
export interface EmojiView extends EmojiRow {
  uploaded_by_username: string | null;
}

/** An emoji in the caller's cross-server list. */
export interface EmojiWithServer extends EmojiView {
  server_name: string;
}

interface NewEmoji {
  serverId: string;
  name: string;
  filePath: string;
  originalName: string;
  mimeType: string;
  size: number;
  uploadedBy: string | null;
}

/** Custom emojis. Messages and reactions look them up to validate `<:name:id>`. */
export class EmojisRepo {
  private readonly byId;
  private readonly rowById;
  private readonly countOfServer;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly viewById;
  private readonly listOfServer;
  private readonly listOfUser;
  private readonly renameStmt;
  private readonly deleteReturning;

  constructor(private readonly db: Database) {
    const view = `SELECT e.*, u.username AS uploaded_by_username FROM emojis e LEFT JOIN users u ON u.id = e.uploaded_by`;
    this.viewById = db.prepare<EmojiView, [string, string]>(`${view} WHERE e.id = ? AND e.server_id = ?`);
    this.listOfServer = db.prepare<EmojiView, [string]>(`${view} WHERE e.server_id = ? ORDER BY e.created_at, e.id`);
    this.listOfUser = db.prepare<EmojiWithServer, [string]>(
      `SELECT e.*, u.username AS uploaded_by_username, s.name AS server_name
       FROM server_members m JOIN servers s ON s.id = m.server_id
       JOIN emojis e ON e.server_id = m.server_id LEFT JOIN users u ON u.id = e.uploaded_by
       WHERE m.user_id = ? AND s.deleted_at IS NULL ORDER BY s.name, e.server_id, e.created_at, e.id`,
    );
    this.renameStmt = db.prepare<{ id: string }, [string, string, string]>(
      "UPDATE emojis SET name = ? WHERE id = ? AND server_id = ? RETURNING id",
    );
    this.deleteReturning = db.prepare<EmojiRow, [string, string]>("DELETE FROM emojis WHERE id = ? AND server_id = ? RETURNING *");
    this.byId = db.prepare<EmojiRef, [string]>("SELECT id, server_id, name FROM emojis WHERE id = ?");
    this.rowById = db.prepare<EmojiRow, [string]>("SELECT * FROM emojis WHERE id = ?");
    this.countOfServer = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM emojis WHERE server_id = ?");
    this.insertStmt = db.prepare(
      `INSERT INTO emojis (id, server_id, name, file_path, original_name, mime_type, size, uploaded_by, created_at)
       VALUES ($id, $server_id, $name, $file_path, $original_name, $mime_type, $size, $uploaded_by, $now)`,
    );
    this.deleteStmt = db.prepare("DELETE FROM emojis WHERE id = ?");
  }

  async find(id: string): Promise<EmojiRef | null> {
    return this.db.get(this.byId, id);
  }

  /** Stores the emoji unless the server already holds `maxPerServer` (then null), in one transaction. */
  async create(emoji: NewEmoji, maxPerServer: number): Promise<EmojiRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`emojis:${emoji.serverId}`);
      if (((await tx.get(this.countOfServer, emoji.serverId))?.n ?? 0) >= maxPerServer) return null;
      const id = Bun.randomUUIDv7();
      await tx.run(this.insertStmt, {
        id,
        server_id: emoji.serverId,
        name: emoji.name,
        file_path: emoji.filePath,
        original_name: emoji.originalName,
        mime_type: emoji.mimeType,
        size: emoji.size,
        uploaded_by: emoji.uploadedBy,
        now: nowSeconds(),
      });
      return (await tx.get(this.rowById, id))!;
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, id)) > 0;
  }

  /** The full stored row (the public file route needs only its path). */
  async findRow(id: string): Promise<EmojiRow | null> {
    return this.db.get(this.rowById, id);
  }

  /** One emoji of one server, with its uploader's username; null when it is not that server's. */
  async findInServer(serverId: string, id: string): Promise<EmojiView | null> {
    return this.db.get(this.viewById, id, serverId);
  }

  /** A server's emojis, oldest first. */
  async list(serverId: string): Promise<EmojiView[]> {
    return this.db.all(this.listOfServer, serverId);
  }

  /** Every emoji of every server the user belongs to, each with its server's name. */
  async listForUser(userId: string): Promise<EmojiWithServer[]> {
    return this.db.all(this.listOfUser, userId);
  }

  /** Renames and returns the renamed emoji, or null when the server has no such emoji. */
  async rename(serverId: string, id: string, name: string): Promise<EmojiView | null> {
    return this.db.transaction(async (tx) => ((await tx.get(this.renameStmt, name, id, serverId)) ? tx.get(this.viewById, id, serverId) : null));
  }

  /** Deletes one emoji of one server and returns it (its file is the caller's to remove), or null. */
  async deleteFromServer(serverId: string, id: string): Promise<EmojiRow | null> {
    return this.db.get(this.deleteReturning, id, serverId);
  }
}
