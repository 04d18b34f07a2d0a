import type { Database } from "bun:sqlite";
import { nowSeconds } from "./time.ts";

export interface ServerGifRow {
  id: string;
  server_id: string;
  name: string;
  kind: "gif" | "sticker";
  file_path: string;
  mime_type: string;
  size: number;
  uploaded_by: string | null;
  uploaded_by_username: string | null;
  created_at: number;
}

/** A server's custom GIFs and stickers. */
export class ServerGifsRepo {
  private readonly listStmt;
  private readonly byIdStmt;
  private readonly countStmt;
  private readonly insertStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Database) {
    const select = `SELECT g.*, u.username AS uploaded_by_username FROM server_gifs g LEFT JOIN users u ON u.id = g.uploaded_by`;
    this.listStmt = db.prepare<ServerGifRow, [string]>(`${select} WHERE g.server_id = ? ORDER BY g.created_at, g.id`);
    this.byIdStmt = db.prepare<ServerGifRow, [string, string]>(`${select} WHERE g.id = ? AND g.server_id = ?`);
    this.countStmt = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM server_gifs WHERE server_id = ?");
    this.insertStmt = db.prepare(
      `INSERT INTO server_gifs (id, server_id, name, kind, file_path, mime_type, size, uploaded_by, created_at)
       VALUES ($id, $server_id, $name, $kind, $file_path, $mime_type, $size, $uploaded_by, $now)`,
    );
    this.deleteStmt = db.prepare("DELETE FROM server_gifs WHERE id = ? AND server_id = ?");
  }

  async list(serverId: string): Promise<ServerGifRow[]> {
    return this.listStmt.all(serverId);
  }

  async find(serverId: string, id: string): Promise<ServerGifRow | null> {
    return this.byIdStmt.get(id, serverId);
  }

  /** Adds one unless the server already has `max`: the cap is checked and written in one transaction. */
  async add(
    gif: Omit<ServerGifRow, "id" | "created_at" | "uploaded_by_username">,
    max: number,
  ): Promise<ServerGifRow | null> {
    return this.db.transaction(() => {
      if ((this.countStmt.get(gif.server_id)?.n ?? 0) >= max) return null;
      const id = Bun.randomUUIDv7();
      this.insertStmt.run({ ...gif, id, now: nowSeconds() });
      return this.byIdStmt.get(id, gif.server_id);
    })();
  }

  async remove(serverId: string, id: string): Promise<boolean> {
    return this.deleteStmt.run(id, serverId).changes > 0;
  }
}
