import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

/**
 * Uploaded files' bytes kept in the database (UPLOAD_STORAGE=database), by their path under
 * `/uploads` (`attachments/<uuid>.png`, `ai/<user id>/<uuid>.txt`).
 */
export class StoredFilesRepo {
  private readonly putStmt;
  private readonly getStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Database) {
    // Paths are new UUIDs: a second write of one is a retry of the same bytes.
    this.putStmt = db.prepare<unknown, [string, Uint8Array, number]>(
      "INSERT INTO stored_files (path, bytes, created_at) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes",
    );
    this.getStmt = db.prepare<{ bytes: Uint8Array }, [string]>("SELECT bytes FROM stored_files WHERE path = ?");
    this.deleteStmt = db.prepare<unknown, [string]>("DELETE FROM stored_files WHERE path = ?");
  }

  async put(path: string, bytes: Uint8Array): Promise<void> {
    await this.db.run(this.putStmt, path, bytes, nowSeconds());
  }

  /** The bytes, or null when no file is stored at `path`. */
  async get(path: string): Promise<Uint8Array | null> {
    return (await this.db.get(this.getStmt, path))?.bytes ?? null;
  }

  async delete(path: string): Promise<void> {
    await this.db.run(this.deleteStmt, path);
  }
}
