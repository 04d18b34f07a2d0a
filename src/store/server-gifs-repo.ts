import type { Database } from "./database.ts";
import { containsPattern } from "./like.ts";
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

/** Where a GIF search page starts: after this (lower-cased name, id). */
export interface GifCursor {
  name: string;
  id: string;
}

/** A server's custom GIFs and stickers. */
export class ServerGifsRepo {
  private readonly listStmt;
  private readonly byIdStmt;
  private readonly countStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly searchStmt;

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
    this.searchStmt = db.prepare<ServerGifRow & { server_name: string; sort_name: string }, [Record<string, string | number | null>]>(
      `SELECT g.*, u.username AS uploaded_by_username, s.name AS server_name, lower(g.name) AS sort_name
       FROM server_members m JOIN server_gifs g ON g.server_id = m.server_id JOIN servers s ON s.id = g.server_id
         LEFT JOIN users u ON u.id = g.uploaded_by
       WHERE m.user_id = $user_id AND s.deleted_at IS NULL
         AND (CAST($q AS TEXT) IS NULL OR lower(g.name) LIKE lower($q) ESCAPE '\\')
         AND (CAST($kind AS TEXT) IS NULL OR g.kind = $kind)
         AND (CAST($after_name AS TEXT) IS NULL OR (lower(g.name), g.id) > ($after_name, $after_id))
       ORDER BY lower(g.name), g.id LIMIT $limit`,
    );
  }

  /** GIFs and stickers of every server `userId` is a member of, by name (then id), from `after`. */
  async searchForMember(
    userId: string,
    filter: { q: string | null; kind: "gif" | "sticker" | null },
    after: GifCursor | null,
    limit: number,
  ): Promise<(ServerGifRow & { server_name: string; sort_name: string })[]> {
    return this.db.all(this.searchStmt, {
      user_id: userId,
      q: filter.q === null ? null : containsPattern(filter.q),
      kind: filter.kind,
      after_name: after?.name ?? null,
      after_id: after?.id ?? "",
      limit,
    });
  }

  async list(serverId: string): Promise<ServerGifRow[]> {
    return this.db.all(this.listStmt, serverId);
  }

  async find(serverId: string, id: string): Promise<ServerGifRow | null> {
    return this.db.get(this.byIdStmt, id, serverId);
  }

  /** Adds one unless the server already has `max`: the cap is checked and written in one transaction. */
  async add(
    gif: Omit<ServerGifRow, "id" | "created_at" | "uploaded_by_username">,
    max: number,
  ): Promise<ServerGifRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`server-gifs:${gif.server_id}`);
      if (((await tx.get(this.countStmt, gif.server_id))?.n ?? 0) >= max) return null;
      const id = Bun.randomUUIDv7();
      await tx.run(this.insertStmt, { ...gif, id, now: nowSeconds() });
      return tx.get(this.byIdStmt, id, gif.server_id);
    });
  }

  async remove(serverId: string, id: string): Promise<boolean> {
    return (await this.db.run(this.deleteStmt, id, serverId)) > 0;
  }
}
