import type { Database } from "bun:sqlite";

export interface ChannelRow {
  id: string;
  server_id: string;
  name: string;
  type: "text" | "voice";
  category_id: string | null;
  position: number;
  topic: string | null;
  slowmode: number;
  nsfw: number;
  is_meeting: number;
  chat_enabled: number;
  created_at: number;
}

export interface CategoryRow {
  id: string;
  server_id: string;
  name: string;
  position: number;
  created_at: number;
}

/** Channels and categories of servers. */
export class ChannelsRepo {
  private readonly byId;
  private readonly categoryById;
  private readonly byServer;
  private readonly categoriesByServer;

  constructor(private readonly db: Database) {
    this.byId = db.prepare<ChannelRow, [string]>("SELECT * FROM channels WHERE id = ?");
    this.categoryById = db.prepare<CategoryRow, [string]>("SELECT * FROM categories WHERE id = ?");
    this.byServer = db.prepare<ChannelRow, [string]>("SELECT * FROM channels WHERE server_id = ? ORDER BY position, created_at, id");
    this.categoriesByServer = db.prepare<CategoryRow, [string]>(
      "SELECT * FROM categories WHERE server_id = ? ORDER BY position, created_at, id",
    );
  }

  async findById(id: string): Promise<ChannelRow | null> {
    return this.byId.get(id);
  }

  async findCategory(id: string): Promise<CategoryRow | null> {
    return this.categoryById.get(id);
  }

  async listByServer(serverId: string): Promise<ChannelRow[]> {
    return this.byServer.all(serverId);
  }

  async listCategories(serverId: string): Promise<CategoryRow[]> {
    return this.categoriesByServer.all(serverId);
  }
}
