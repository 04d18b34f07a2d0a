import type { Database } from "bun:sqlite";
import { nowSeconds } from "./time.ts";

export interface EmojiRef {
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

export interface NewEmoji {
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

  constructor(private readonly db: Database) {
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
    return this.byId.get(id);
  }

  /** Stores the emoji unless the server already holds `maxPerServer` (then null), in one transaction. */
  async create(emoji: NewEmoji, maxPerServer: number): Promise<EmojiRow | null> {
    return this.db.transaction(() => {
      if ((this.countOfServer.get(emoji.serverId)?.n ?? 0) >= maxPerServer) return null;
      const id = Bun.randomUUIDv7();
      this.insertStmt.run({
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
      return this.rowById.get(id)!;
    })();
  }

  async delete(id: string): Promise<boolean> {
    return this.deleteStmt.run(id).changes > 0;
  }
}
