import type { Database } from "bun:sqlite";
import { nowSeconds } from "./time.ts";

export interface ApplicationRow {
  id: string;
  owner_id: string;
  bot_user_id: string;
  name: string;
  description: string;
  client_secret: string;
  default_permissions: number;
  invite_permission_locked: number;
  public_invite: number;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  created_at: number;
  updated_at: number;
}

/** Applications and their bot users: an application and its bot are created and removed together. */
export class ApplicationsRepo {
  private readonly insertBot;
  private readonly insertApp;
  private readonly byId;
  private readonly byBot;
  private readonly byOwner;

  constructor(private readonly db: Database) {
    this.insertBot = db.prepare(
      `INSERT INTO users (id, username, email, password_hash, is_bot, status, preferred_status, created_at, updated_at)
       VALUES (?, ?, NULL, NULL, 1, 'offline', 'online', ?, ?)`,
    );
    this.insertApp = db.prepare<ApplicationRow, Record<string, string | number>>(
      `INSERT INTO applications (id, owner_id, bot_user_id, name, description, client_secret, created_at, updated_at)
       VALUES ($id, $owner_id, $bot_user_id, $name, $description, $client_secret, $now, $now) RETURNING *`,
    );
    this.byId = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE id = ?");
    this.byBot = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE bot_user_id = ?");
    this.byOwner = db.prepare<ApplicationRow, [string]>("SELECT * FROM applications WHERE owner_id = ? ORDER BY created_at, id");
  }

  /** The application and its bot user (named after it), in one transaction. */
  async create(app: { ownerId: string; name: string; description: string; clientSecret: string }): Promise<ApplicationRow> {
    return this.db.transaction(() => {
      const now = nowSeconds();
      const botUserId = Bun.randomUUIDv7();
      this.insertBot.run(botUserId, app.name, now, now);
      return this.insertApp.get({
        id: Bun.randomUUIDv7(),
        owner_id: app.ownerId,
        bot_user_id: botUserId,
        name: app.name,
        description: app.description,
        client_secret: app.clientSecret,
        now,
      })!;
    })();
  }

  async findById(id: string): Promise<ApplicationRow | null> {
    return this.byId.get(id);
  }

  async findByBotUser(botUserId: string): Promise<ApplicationRow | null> {
    return this.byBot.get(botUserId);
  }

  async listByOwner(ownerId: string): Promise<ApplicationRow[]> {
    return this.byOwner.all(ownerId);
  }
}
