import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

/** A stored soundboard sound, as the `soundboard_sounds` table holds it. */
export interface SoundRow {
  id: string;
  server_id: string;
  name: string;
  icon: string;
  file_path: string;
  original_name: string;
  mime_type: string;
  size: number;
  uploaded_by: string | null;
  created_at: number;
}

/** A sound as the routes answer it: the row plus the uploader's current username. */
export interface SoundView extends SoundRow {
  uploaded_by_username: string | null;
}

/** A sound in the caller's cross-server catalog. */
interface SoundWithServer extends SoundRow {
  server_name: string;
}

interface NewSound {
  serverId: string;
  name: string;
  icon: string;
  filePath: string;
  originalName: string;
  mimeType: string;
  size: number;
  uploadedBy: string | null;
}

/** What an update changes; a new file comes with its path, type and size together. */
export interface SoundChanges {
  name?: string;
  icon?: string;
  file?: { filePath: string; originalName: string; mimeType: string; size: number };
}

/** Soundboard sounds of servers. */
export class SoundboardRepo {
  private readonly rowById;
  private readonly viewById;
  private readonly listOfServer;
  private readonly listOfUser;
  private readonly countOfServer;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteReturning;

  constructor(private readonly db: Database) {
    const view = `SELECT s.*, u.username AS uploaded_by_username FROM soundboard_sounds s LEFT JOIN users u ON u.id = s.uploaded_by`;
    this.viewById = db.prepare<SoundView, [string, string]>(`${view} WHERE s.id = ? AND s.server_id = ?`);
    this.listOfServer = db.prepare<SoundView, [string]>(`${view} WHERE s.server_id = ? ORDER BY s.created_at, s.id`);
    this.listOfUser = db.prepare<SoundWithServer, [string]>(
      `SELECT s.*, v.name AS server_name
       FROM server_members m JOIN servers v ON v.id = m.server_id
       JOIN soundboard_sounds s ON s.server_id = m.server_id
       WHERE m.user_id = ? AND v.deleted_at IS NULL ORDER BY v.name, s.server_id, s.created_at, s.id`,
    );
    this.rowById = db.prepare<SoundRow, [string]>("SELECT * FROM soundboard_sounds WHERE id = ?");
    this.countOfServer = db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM soundboard_sounds WHERE server_id = ?");
    this.insertStmt = db.prepare(
      `INSERT INTO soundboard_sounds (id, server_id, name, icon, file_path, original_name, mime_type, size, uploaded_by, created_at)
       VALUES ($id, $server_id, $name, $icon, $file_path, $original_name, $mime_type, $size, $uploaded_by, $now)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE soundboard_sounds SET name = $name, icon = $icon, file_path = $file_path, original_name = $original_name,
         mime_type = $mime_type, size = $size
       WHERE id = $id AND server_id = $server_id`,
    );
    this.deleteReturning = db.prepare<SoundRow, [string, string]>(
      "DELETE FROM soundboard_sounds WHERE id = ? AND server_id = ? RETURNING *",
    );
  }

  /** Stores the sound unless the server already holds `maxPerServer` (then null), in one transaction. */
  async create(sound: NewSound, maxPerServer: number): Promise<SoundRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`sounds:${sound.serverId}`);
      if (((await tx.get(this.countOfServer, sound.serverId))?.n ?? 0) >= maxPerServer) return null;
      const id = Bun.randomUUIDv7();
      await tx.run(this.insertStmt, {
        id,
        server_id: sound.serverId,
        name: sound.name,
        icon: sound.icon,
        file_path: sound.filePath,
        original_name: sound.originalName,
        mime_type: sound.mimeType,
        size: sound.size,
        uploaded_by: sound.uploadedBy,
        now: nowSeconds(),
      });
      return (await tx.get(this.rowById, id))!;
    });
  }

  /** Any sound by id (play looks it up before knowing its server). */
  async findRow(id: string): Promise<SoundRow | null> {
    return this.db.get(this.rowById, id);
  }

  /** One sound of one server, with its uploader's username; null when it is not that server's. */
  async findInServer(serverId: string, id: string): Promise<SoundView | null> {
    return this.db.get(this.viewById, id, serverId);
  }

  /** A server's sounds, oldest first. */
  async list(serverId: string): Promise<SoundView[]> {
    return this.db.all(this.listOfServer, serverId);
  }

  /** Every sound of every server the user belongs to, each with its server's name. */
  async listForUser(userId: string): Promise<SoundWithServer[]> {
    return this.db.all(this.listOfUser, userId);
  }

  /**
   * Applies the changes in one transaction and returns the sound before and after (the old
   * file, when replaced, is the caller's to remove), or null when the server has no such sound.
   */
  async update(serverId: string, id: string, changes: SoundChanges): Promise<{ before: SoundRow; after: SoundView } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`sound:${id}`);
      const before = await tx.get(this.rowById, id);
      if (!before || before.server_id !== serverId) return null;
      await tx.run(this.updateStmt, {
        id,
        server_id: serverId,
        name: changes.name ?? before.name,
        icon: changes.icon ?? before.icon,
        file_path: changes.file?.filePath ?? before.file_path,
        original_name: changes.file?.originalName ?? before.original_name,
        mime_type: changes.file?.mimeType ?? before.mime_type,
        size: changes.file?.size ?? before.size,
      });
      return { before, after: (await tx.get(this.viewById, id, serverId))! };
    });
  }

  /** Deletes one sound of one server and returns it (its file is the caller's to remove), or null. */
  async deleteFromServer(serverId: string, id: string): Promise<SoundRow | null> {
    return this.db.get(this.deleteReturning, id, serverId);
  }
}
