import type { Database } from "./database.ts";
import { nowSeconds } from "./time.ts";
import { secretContext, type SecretBox } from "./secret-box.ts";

/** A provider key as the `ai_keys` table holds it. `api_key` never leaves the server. */
export interface AiKeyRow {
  id: string;
  name: string;
  base_url: string;
  api_key: string;
  /** JSON array of `{id, name, flags}`. */
  models: string;
  enabled: 0 | 1;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewAiKey {
  name: string;
  baseUrl: string;
  apiKey: string;
  models: string;
  enabled: boolean;
  createdBy: string;
}

export interface AiKeyChanges {
  name?: string;
  baseUrl?: string;
  apiKey?: string;
  models?: string;
  enabled?: boolean;
}

/** Provider keys of the AI assistant (docs/ai.md), oldest first: the first enabled key serving a model wins. */
export class AiKeysRepo {
  private readonly listStmt;
  private readonly enabledStmt;
  private readonly byIdStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {
    const { json } = db.dialect;
    this.listStmt = db.prepare<AiKeyRow, []>("SELECT * FROM ai_keys ORDER BY id");
    this.enabledStmt = db.prepare<AiKeyRow, []>("SELECT * FROM ai_keys WHERE enabled = 1 ORDER BY id");
    this.byIdStmt = db.prepare<AiKeyRow, [string]>("SELECT * FROM ai_keys WHERE id = ?");
    this.insertStmt = db.prepare<AiKeyRow, [string, string, string, string, string, number, string, number, number]>(
      `INSERT INTO ai_keys (id, name, base_url, api_key, models, enabled, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ${json("?")}, ?, ?, ?, ?) RETURNING *`,
    );
    this.updateStmt = db.prepare<AiKeyRow, [Record<string, string | number | null>]>(
      `UPDATE ai_keys SET name = coalesce($name, name), base_url = coalesce($base_url, base_url),
         api_key = coalesce($api_key, api_key), models = coalesce(${json("$models")}, models),
         enabled = coalesce($enabled, enabled), updated_at = $now
       WHERE id = $id RETURNING *`,
    );
    this.deleteStmt = db.prepare<AiKeyRow, [string]>("DELETE FROM ai_keys WHERE id = ? RETURNING *");
  }

  async list(): Promise<AiKeyRow[]> {
    return (await this.db.all(this.listStmt)).map((row) => this.open(row)!);
  }

  async listEnabled(): Promise<AiKeyRow[]> {
    return (await this.db.all(this.enabledStmt)).map((row) => this.open(row)!);
  }

  async find(id: string): Promise<AiKeyRow | null> {
    return this.open(await this.db.get(this.byIdStmt, id));
  }

  async create(key: NewAiKey): Promise<AiKeyRow> {
    const now = nowSeconds();
    const id = Bun.randomUUIDv7();
    const sealed = this.secrets.seal(key.apiKey, secretContext("ai_keys.api_key", id));
    return this.open(await this.db.get(this.insertStmt, id, key.name, key.baseUrl, sealed, key.models, key.enabled ? 1 : 0, key.createdBy, now, now))!;
  }

  /** A row as the domain sees it: the provider key in clear (it is stored sealed). */
  private open(row: AiKeyRow | null): AiKeyRow | null {
    return row && { ...row, api_key: this.secrets.open(row.api_key, secretContext("ai_keys.api_key", row.id)) };
  }

  /** The key before and after the change, or null when it does not exist. */
  async update(id: string, changes: AiKeyChanges): Promise<{ before: AiKeyRow; after: AiKeyRow } | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`ai-key:${id}`);
      const before = await tx.get(this.byIdStmt, id);
      if (!before) return null;
      const after = (await tx.get(this.updateStmt, {
        id,
        name: changes.name ?? null,
        base_url: changes.baseUrl ?? null,
        api_key: changes.apiKey === undefined ? null : this.secrets.seal(changes.apiKey, secretContext("ai_keys.api_key", id)),
        models: changes.models ?? null,
        enabled: changes.enabled === undefined ? null : changes.enabled ? 1 : 0,
        now: nowSeconds(),
      }))!;
      return { before: this.open(before)!, after: this.open(after)! };
    });
  }

  async delete(id: string): Promise<AiKeyRow | null> {
    return this.open(await this.db.get(this.deleteStmt, id));
  }
}
