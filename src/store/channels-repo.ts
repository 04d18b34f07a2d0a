import type { Database, SqlValue, Transaction } from "./database.ts";
import type { OverrideRow } from "./access-repo.ts";
import { nowSeconds } from "./time.ts";

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
  /** Set when its delete was asked (migration 22); such a row is never read, and goes in the background. */
  deleted_at: number | null;
}

export interface CategoryRow {
  id: string;
  server_id: string;
  name: string;
  position: number;
  created_at: number;
}

export interface NewChannel {
  serverId: string;
  name: string;
  type: "text" | "voice";
  categoryId: string | null;
  topic: string | null;
  slowmode: number;
  nsfw: boolean;
  isMeeting: boolean;
  chatEnabled: boolean;
}

/** The columns an update may change; absent keys keep their value. */
export type ChannelPatch = Partial<Pick<ChannelRow, "name" | "category_id" | "topic" | "slowmode" | "nsfw" | "is_meeting" | "chat_enabled">>;

/** Where a channel sits: what checks over all of a server's channels read (its permissions follow its category). */
export type ChannelPlace = Pick<ChannelRow, "id" | "category_id" | "position">;

export interface ChannelPlacement {
  id: string;
  position: number;
  /** undefined keeps the category; null makes the channel uncategorized. */
  category_id?: string | null;
}

/**
 * `ORDER BY position, created_at, id`, the order `byServer` reads (ids are lower-case UUIDs: their
 * text compares alike in JavaScript and in both databases).
 */
const byListOrder = (a: ChannelRow, b: ChannelRow): number =>
  a.position - b.position || Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Channels and categories of servers, and their permission overrides. */
export class ChannelsRepo {
  private readonly byId;
  private readonly categoryById;
  private readonly byServer;
  private readonly placesByServer;
  private readonly placesAmongStmt;
  private readonly namedChannels;
  private readonly namedCategories;
  private readonly byCategory;
  private readonly categoriesByServer;
  private readonly nextChannelPosition;
  private readonly nextCategoryPosition;
  private readonly countOfServer;
  private readonly insertChannel;
  private readonly updateChannel;
  private readonly placeChannel;
  private readonly insertCategory;
  private readonly renameCategoryStmt;
  private readonly deleteCategoryStmt;
  private readonly setCategoryPosition;
  private readonly roleServer;
  private readonly channelOverrides;
  private readonly upsertChannelOverride;
  private readonly deleteChannelOverrideStmt;
  private readonly copyChannelOverrides;
  private readonly categoryOverrides;
  private readonly upsertCategoryOverride;
  private readonly deleteCategoryOverrideStmt;

  constructor(private readonly db: Database) {
    // A channel being deleted (deleted_at set, migration 22) is gone for every read.
    this.byId = db.prepare<ChannelRow, [string]>("SELECT * FROM channels WHERE id = ? AND deleted_at IS NULL");
    this.categoryById = db.prepare<CategoryRow, [string]>("SELECT * FROM categories WHERE id = ?");
    this.byServer = db.prepare<ChannelRow, [string]>("SELECT * FROM channels WHERE server_id = ? AND deleted_at IS NULL ORDER BY position, created_at, id");
    this.placesByServer = db.prepare<ChannelPlace, [string]>("SELECT id, category_id, position FROM channels WHERE server_id = ? AND deleted_at IS NULL ORDER BY position, created_at, id");
    // Each side by its own index (the primary key; channels_category), never the server's every
    // channel: the server is checked on the rows found (a condition on it here lets SQLite's
    // planner read channels_server, every channel of the server, instead).
    this.placesAmongStmt = db.prepare<ChannelPlace & { server_id: string }, [SqlValue, SqlValue]>(
      `SELECT id, server_id, category_id, position FROM channels WHERE id ${db.dialect.inIdList("?1")} AND deleted_at IS NULL
       UNION
       SELECT id, server_id, category_id, position FROM channels WHERE category_id ${db.dialect.inIdList("?2")} AND deleted_at IS NULL`,
    );
    // By the primary key alone, for the same reason: the server is checked on the rows found.
    this.namedChannels = db.prepare<ChannelRow, [SqlValue]>(`SELECT * FROM channels WHERE id ${db.dialect.inIdList("?1")} AND deleted_at IS NULL`);
    this.namedCategories = db.prepare<CategoryRow, [SqlValue]>(`SELECT * FROM categories WHERE id ${db.dialect.inIdList("?1")}`);
    this.byCategory = db.prepare<ChannelRow, [string]>("SELECT * FROM channels WHERE category_id = ? AND deleted_at IS NULL ORDER BY position, created_at, id");
    this.categoriesByServer = db.prepare<CategoryRow, [string]>(
      "SELECT * FROM categories WHERE server_id = ? ORDER BY position, created_at, id",
    );
    this.nextChannelPosition = db.prepare<{ next: number }, [string]>(
      "SELECT coalesce(max(position) + 1, 0) AS next FROM channels WHERE server_id = ?",
    );
    this.nextCategoryPosition = db.prepare<{ next: number }, [string]>(
      "SELECT coalesce(max(position) + 1, 0) AS next FROM categories WHERE server_id = ?",
    );
    // channels_server and categories_server serve both counts.
    this.countOfServer = db.prepare<{ n: number }, [string]>(
      "SELECT (SELECT count(*) FROM channels WHERE server_id = ?1 AND deleted_at IS NULL) + (SELECT count(*) FROM categories WHERE server_id = ?1) AS n",
    );
    this.insertChannel = db.prepare<ChannelRow, [Record<string, string | number | null>]>(
      `INSERT INTO channels (id, server_id, name, type, category_id, position, topic, slowmode, nsfw, is_meeting, chat_enabled, created_at)
       VALUES ($id, $server_id, $name, $type, $category_id, $position, $topic, $slowmode, $nsfw, $is_meeting, $chat_enabled, $created_at)
       RETURNING *`,
    );
    this.updateChannel = db.prepare<ChannelRow, [Record<string, string | number | null>]>(
      `UPDATE channels SET name = $name, category_id = $category_id, topic = $topic, slowmode = $slowmode, nsfw = $nsfw,
         is_meeting = $is_meeting, chat_enabled = $chat_enabled
       WHERE id = $id RETURNING *`,
    );
    this.placeChannel = db.prepare("UPDATE channels SET position = ?, category_id = ? WHERE id = ? AND server_id = ?");
    this.insertCategory = db.prepare<CategoryRow, [string, string, string, number, number]>(
      "INSERT INTO categories (id, server_id, name, position, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *",
    );
    this.renameCategoryStmt = db.prepare<CategoryRow, [string, string]>("UPDATE categories SET name = ? WHERE id = ? RETURNING *");
    this.deleteCategoryStmt = db.prepare("DELETE FROM categories WHERE id = ?");
    this.setCategoryPosition = db.prepare("UPDATE categories SET position = ? WHERE id = ? AND server_id = ?");
    this.roleServer = db.prepare<{ server_id: string }, [string]>("SELECT server_id FROM roles WHERE id = ?");
    this.channelOverrides = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM channel_overrides WHERE channel_id = ? ORDER BY role_id",
    );
    this.upsertChannelOverride = db.prepare<OverrideRow, [string, string, number, number]>(
      `INSERT INTO channel_overrides (channel_id, role_id, allow, deny) VALUES (?, ?, ?, ?)
       ON CONFLICT (channel_id, role_id) DO UPDATE SET allow = excluded.allow, deny = excluded.deny
       RETURNING role_id, allow, deny`,
    );
    this.deleteChannelOverrideStmt = db.prepare("DELETE FROM channel_overrides WHERE channel_id = ? AND role_id = ?");
    this.copyChannelOverrides = db.prepare(
      "INSERT INTO channel_overrides (channel_id, role_id, allow, deny) SELECT ?, role_id, allow, deny FROM channel_overrides WHERE channel_id = ?",
    );
    this.categoryOverrides = db.prepare<OverrideRow, [string]>(
      "SELECT role_id, allow, deny FROM category_overrides WHERE category_id = ? ORDER BY role_id",
    );
    this.upsertCategoryOverride = db.prepare<OverrideRow, [string, string, number, number]>(
      `INSERT INTO category_overrides (category_id, role_id, allow, deny) VALUES (?, ?, ?, ?)
       ON CONFLICT (category_id, role_id) DO UPDATE SET allow = excluded.allow, deny = excluded.deny
       RETURNING role_id, allow, deny`,
    );
    this.deleteCategoryOverrideStmt = db.prepare("DELETE FROM category_overrides WHERE category_id = ? AND role_id = ?");
  }

  async findById(id: string): Promise<ChannelRow | null> {
    return this.db.get(this.byId, id);
  }

  async findCategory(id: string): Promise<CategoryRow | null> {
    return this.db.get(this.categoryById, id);
  }

  async listByServer(serverId: string): Promise<ChannelRow[]> {
    return this.db.all(this.byServer, serverId);
  }

  /**
   * Where each of the server's channels sits, in its order: a few columns of each row, for checks
   * over every channel (a server-wide search, joining all channel rooms), which the whole rows
   * would cost several times as much at the channel cap.
   */
  async placesInServer(serverId: string): Promise<ChannelPlace[]> {
    return this.db.all(this.placesByServer, serverId);
  }

  /** The places of the server's channels among `channelIds` or in one of `categoryIds`, in no order. */
  async placesAmong(serverId: string, channelIds: string[], categoryIds: string[]): Promise<ChannelPlace[]> {
    if (!channelIds.length && !categoryIds.length) return [];
    const rows = await this.db.all(this.placesAmongStmt, this.db.dialect.idList(channelIds), this.db.dialect.idList(categoryIds));
    return rows.filter((row) => row.server_id === serverId).map(({ id, category_id, position }) => ({ id, category_id, position }));
  }

  async listByCategory(categoryId: string): Promise<ChannelRow[]> {
    return this.db.all(this.byCategory, categoryId);
  }

  async listCategories(serverId: string): Promise<CategoryRow[]> {
    return this.db.all(this.categoriesByServer, serverId);
  }

  /** A new channel at the end of the server's list; null when the server already holds `maxPerServer` channels and categories. */
  async create(channel: NewChannel, maxPerServer: number): Promise<ChannelRow | null> {
    return this.db.transaction((tx) => this.insert(tx, channel, maxPerServer));
  }

  /**
   * Inserts at the end of the server's list, holding the lock on its positions, which is also
   * the lock of its channel-and-category count (createCategory takes it too).
   */
  private async insert(tx: Transaction, channel: NewChannel, maxPerServer: number): Promise<ChannelRow | null> {
    await tx.lock(`channels:${channel.serverId}`);
    if (await this.isFull(tx, channel.serverId, maxPerServer)) return null;
    return (await tx.get(this.insertChannel, {
      id: Bun.randomUUIDv7(),
      server_id: channel.serverId,
      name: channel.name,
      type: channel.type,
      category_id: channel.categoryId,
      position: (await tx.get(this.nextChannelPosition, channel.serverId))?.next ?? 0,
      topic: channel.topic,
      slowmode: channel.slowmode,
      nsfw: channel.nsfw ? 1 : 0,
      is_meeting: channel.isMeeting ? 1 : 0,
      chat_enabled: channel.chatEnabled ? 1 : 0,
      created_at: nowSeconds(),
    }))!;
  }

  /** Applies `patch` over the current row; null when the channel is gone. */
  async update(id: string, patch: ChannelPatch): Promise<ChannelRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`channel:${id}`);
      const current = await tx.get(this.byId, id);
      if (!current) return null;
      const next = { ...current, ...patch };
      return tx.get(this.updateChannel, {
        id,
        name: next.name,
        category_id: next.category_id,
        topic: next.topic,
        slowmode: next.slowmode,
        nsfw: next.nsfw,
        is_meeting: next.is_meeting,
        chat_enabled: next.chat_enabled,
      });
    });
  }

  private async isFull(tx: Transaction, serverId: string, maxPerServer: number): Promise<boolean> {
    return ((await tx.get(this.countOfServer, serverId))?.n ?? 0) >= maxPerServer;
  }

  /**
   * A copy of the channel (settings and permission overrides) named `name`, at the end of the
   * list; null when the channel is gone, "full" when the server holds `maxPerServer` channels and categories.
   */
  async duplicate(id: string, name: string, maxPerServer: number): Promise<ChannelRow | "full" | null> {
    return this.db.transaction(async (tx) => {
      const source = await tx.get(this.byId, id);
      if (!source) return null;
      const copy = await this.insert(tx, {
        serverId: source.server_id,
        name,
        type: source.type,
        categoryId: source.category_id,
        topic: source.topic,
        slowmode: source.slowmode,
        nsfw: source.nsfw === 1,
        isMeeting: source.is_meeting === 1,
        chatEnabled: source.chat_enabled === 1,
      }, maxPerServer);
      if (!copy) return "full";
      await tx.run(this.copyChannelOverrides, copy.id, source.id);
      return copy;
    });
  }


  /**
   * Sets positions (and categories where given) of the server's channels in one transaction:
   * `check` sees the rows the placements name (by id; a placement naming no channel of the server
   * has none) and the categories, before anything is written, and may throw to refuse. Answers
   * the moved channels in the list's order with their rows before, and, with `list`, the channels
   * after (the placements applied to the rows read, in the list's order, as `byServer` would read
   * them again) and every category of the server.
   *
   * With `list` the server's channels and categories are read once (at the channel cap a second
   * read of every row cost as much as the rest of a reorder, and so did maps of every channel,
   * which are not made: only of the placements). Without it only the rows the placements name are
   * read, channels and categories by id, so the cost follows the placements, not the server.
   * Placements of channels not in the server are skipped; an unchanged one is not written.
   */
  async place(
    serverId: string,
    placements: ChannelPlacement[],
    check: (named: ReadonlyMap<string, ChannelRow>, categories: CategoryRow[]) => void,
    options: { list: boolean },
  ): Promise<{ after: ChannelRow[] | null; moved: { row: ChannelRow; from: ChannelRow }[]; categories: CategoryRow[] }> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`channels:${serverId}`);
      const asked = [...new Set(placements.map((p) => p.id))];
      const namedCategoryIds = [...new Set(placements.flatMap((p) => (p.category_id ? [p.category_id] : [])))];
      const rows = options.list
        ? await tx.all(this.byServer, serverId)
        : asked.length ? (await tx.all(this.namedChannels, this.db.dialect.idList(asked))).filter((row) => row.server_id === serverId) : [];
      const categories = options.list
        ? await tx.all(this.categoriesByServer, serverId)
        : namedCategoryIds.length ? (await tx.all(this.namedCategories, this.db.dialect.idList(namedCategoryIds))).filter((row) => row.server_id === serverId) : [];
      const askedSet = new Set(asked);
      const named = new Map<string, ChannelRow>();
      const at = new Map<string, number>();
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        if (!askedSet.has(row.id)) continue;
        named.set(row.id, row);
        at.set(row.id, i);
      }
      check(named, categories);
      const moved = new Map<string, { row: ChannelRow; from: ChannelRow }>();
      for (const p of placements) {
        const current = named.get(p.id);
        if (!current) continue;
        const categoryId = p.category_id === undefined ? current.category_id : p.category_id;
        if (current.position === p.position && current.category_id === categoryId) continue;
        await tx.run(this.placeChannel, p.position, categoryId, p.id, serverId);
        const row = { ...current, position: p.position, category_id: categoryId };
        named.set(p.id, row);
        moved.set(p.id, { row, from: moved.get(p.id)?.from ?? current });
      }
      const movedInOrder = [...moved.values()].sort((a, b) => byListOrder(a.row, b.row));
      if (!options.list) return { after: null, moved: movedInOrder, categories };
      if (moved.size === 0) return { after: rows, moved: [], categories };
      const after = rows.slice();
      for (const [id, { row }] of moved) after[at.get(id)!] = row;
      after.sort(byListOrder);
      return { after, moved: movedInOrder, categories };
    });
  }

  /** A new category at the end; null when the server already holds `maxPerServer` channels and categories. */
  async createCategory(serverId: string, name: string, maxPerServer: number): Promise<CategoryRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`channels:${serverId}`);
      if (await this.isFull(tx, serverId, maxPerServer)) return null;
      await tx.lock(`categories:${serverId}`);
      const position = (await tx.get(this.nextCategoryPosition, serverId))?.next ?? 0;
      return (await tx.get(this.insertCategory, Bun.randomUUIDv7(), serverId, name, position, nowSeconds()))!;
    });
  }

  async renameCategory(id: string, name: string): Promise<CategoryRow | null> {
    return this.db.get(this.renameCategoryStmt, name, id);
  }

  /** Deletes the category; its channels become uncategorized (ON DELETE SET NULL). */
  async deleteCategory(id: string): Promise<boolean> {
    return (await this.db.run(this.deleteCategoryStmt, id)) > 0;
  }

  /** Category positions follow the order of `ids` (0, 1, ...). */
  async reorderCategories(serverId: string, ids: string[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.lock(`categories:${serverId}`);
      for (const [index, id] of ids.entries()) await tx.run(this.setCategoryPosition, index, id, serverId);
    });
  }

  /** The server a role belongs to, or null for no such role. */
  async roleServerId(roleId: string): Promise<string | null> {
    return (await this.db.get(this.roleServer, roleId))?.server_id ?? null;
  }

  async listChannelOverrides(channelId: string): Promise<OverrideRow[]> {
    return this.db.all(this.channelOverrides, channelId);
  }

  async setChannelOverride(channelId: string, roleId: string, allow: number, deny: number): Promise<OverrideRow> {
    return (await this.db.get(this.upsertChannelOverride, channelId, roleId, allow, deny))!;
  }

  async deleteChannelOverride(channelId: string, roleId: string): Promise<boolean> {
    return (await this.db.run(this.deleteChannelOverrideStmt, channelId, roleId)) > 0;
  }

  async listCategoryOverrides(categoryId: string): Promise<OverrideRow[]> {
    return this.db.all(this.categoryOverrides, categoryId);
  }

  async setCategoryOverride(categoryId: string, roleId: string, allow: number, deny: number): Promise<OverrideRow> {
    return (await this.db.get(this.upsertCategoryOverride, categoryId, roleId, allow, deny))!;
  }

  async deleteCategoryOverride(categoryId: string, roleId: string): Promise<boolean> {
    return (await this.db.run(this.deleteCategoryOverrideStmt, categoryId, roleId)) > 0;
  }
}
