import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";

/** A file a user uploaded for a turn of the AI assistant. */
export interface AiUploadRow {
  id: string;
  user_id: string;
  url: string;
  name: string;
  mime_type: string;
  size: number;
  created_at: number;
}

interface NewAiUpload {
  userId: string;
  url: string;
  name: string;
  mimeType: string;
  size: number;
}

export class AiUploadsRepo {
  private readonly insertStmt;
  private readonly byUrlStmt;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare<AiUploadRow, [string, string, string, string, string, number, number]>(
      "INSERT INTO ai_uploads (id, user_id, url, name, mime_type, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
    );
    this.byUrlStmt = db.prepare<AiUploadRow, [string, string]>("SELECT * FROM ai_uploads WHERE url = ? AND user_id = ?");
  }

  async create(upload: NewAiUpload): Promise<AiUploadRow> {
    return (await this.db.get(this.insertStmt, Bun.randomUUIDv7(), upload.userId, upload.url, upload.name, upload.mimeType, upload.size, nowSeconds()))!;
  }

  /** The user's own upload at `url`; anyone else's reads as missing. */
  async findByUrl(userId: string, url: string): Promise<AiUploadRow | null> {
    return this.db.get(this.byUrlStmt, url, userId);
  }
}
