import type { Database } from "./database.ts";
import { userColumns, type UserRow } from "./users-repo.ts";
import { nowSeconds } from "./time.ts";

export interface FriendshipRow {
  user_low: string;
  user_high: string;
  requester_id: string;
  status: "pending" | "accepted";
  created_at: number;
  accepted_at: number | null;
}

/** The other user of a relationship, with the relationship's times and who asked. */
export interface RelatedUserRow {
  user_id: string;
  username: string;
  avatar: string | null;
  status: UserRow["status"];
  is_bot: 0 | 1;
  requester_id: string;
  created_at: number;
  accepted_at: number | null;
  /** The user's custom status columns (UserRow): the domain decides what is shown. */
  custom_status_text: string | null;
  custom_status_emoji: string | null;
  custom_status_expires_at: number | null;
}

/** A user found by the friend search, with the caller's relationship row (if any). */
interface SearchRow extends UserRow {
  f_status: "pending" | "accepted" | null;
  f_requester: string | null;
}

type RequestResult =
  | { kind: "requested"; row: FriendshipRow }
  /** The other side had already asked: the request accepted theirs. */
  | { kind: "accepted"; row: FriendshipRow }
  | { kind: "already-requested" }
  | { kind: "already-friends" };

type AcceptResult =
  | { kind: "accepted"; row: FriendshipRow }
  | { kind: "none" }
  | { kind: "own-request" }
  | { kind: "already-friends" };

/** One row per pair, keyed by the sorted ids. */
const pair = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

// The other user of each of `$me`'s rows: the primary key serves `user_low = $me`, the
// friendships_high index serves `user_high = $me`.
const RELATED = `
  SELECT user_high AS other_id, * FROM friendships WHERE user_low = $me
  UNION ALL
  SELECT user_low AS other_id, * FROM friendships WHERE user_high = $me`;

/** Friendships and friend requests (table `friendships`). */
export class FriendsRepo {
  private readonly getStmt;
  private readonly insertStmt;
  private readonly acceptStmt;
  private readonly deleteStmt;
  private readonly relatedStmt;
  private readonly friendIdsStmt;
  private readonly mutualStmt;
  private readonly humanByName;
  private readonly botByName;
  private readonly searchStmt;
  private readonly presenceVisibleStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare<FriendshipRow, [string, string]>("SELECT * FROM friendships WHERE user_low = ? AND user_high = ?");
    this.insertStmt = db.prepare<FriendshipRow, [string, string, string, number]>(
      `INSERT INTO friendships (user_low, user_high, requester_id, status, created_at)
       VALUES (?, ?, ?, 'pending', ?) RETURNING *`,
    );
    this.acceptStmt = db.prepare<FriendshipRow, [number, string, string]>(
      "UPDATE friendships SET status = 'accepted', accepted_at = ? WHERE user_low = ? AND user_high = ? RETURNING *",
    );
    this.deleteStmt = db.prepare<FriendshipRow, [string, string]>(
      "DELETE FROM friendships WHERE user_low = ? AND user_high = ? RETURNING *",
    );
    const { nocase, instr } = db.dialect;
    this.relatedStmt = db.prepare<RelatedUserRow, [{ me: string; status: string }]>(
      `SELECT u.id AS user_id, u.username, u.avatar, u.status, u.is_bot, r.requester_id, r.created_at, r.accepted_at,
         u.custom_status_text, u.custom_status_emoji, u.custom_status_expires_at
       FROM (${RELATED}) r JOIN users u ON u.id = r.other_id
       WHERE r.status = $status
       ORDER BY u.username${nocase}, u.id`,
    );
    this.friendIdsStmt = db.prepare<{ other_id: string }, [{ me: string }]>(
      `SELECT other_id FROM (${RELATED}) r WHERE status = 'accepted'`,
    );
    this.mutualStmt = db.prepare<{ id: string; username: string; avatar: string | null }, [{ a: string; b: string }]>(
      `WITH fa AS (SELECT user_high AS id FROM friendships WHERE user_low = $a AND status = 'accepted'
                   UNION ALL SELECT user_low FROM friendships WHERE user_high = $a AND status = 'accepted'),
            fb AS (SELECT user_high AS id FROM friendships WHERE user_low = $b AND status = 'accepted'
                   UNION ALL SELECT user_low FROM friendships WHERE user_high = $b AND status = 'accepted')
       SELECT u.id, u.username, u.avatar FROM fa JOIN fb ON fb.id = fa.id JOIN users u ON u.id = fa.id
       ORDER BY u.username${nocase}, u.id`,
    );
    this.humanByName = db.prepare<UserRow, [string]>(`SELECT ${userColumns()} FROM users WHERE is_bot = 0 AND username = ?${nocase}`);
    this.botByName = db.prepare<UserRow, [string]>(`SELECT ${userColumns()} FROM users WHERE is_bot = 1 AND username = ?${nocase} LIMIT 1`);
    // An exact username regardless of case: the unique users_username index (NOCASE in
    // SQLite, citext in PostgreSQL) serves it, and it finds at most one human.
    this.searchStmt = db.prepare<SearchRow, [{ me: string; q: string }]>(
      `SELECT ${userColumns("u")}, f.status AS f_status, f.requester_id AS f_requester
       FROM users u
       LEFT JOIN friendships f ON f.user_low = CASE WHEN u.id < $me THEN u.id ELSE $me END
         AND f.user_high = CASE WHEN u.id < $me THEN $me ELSE u.id END
       WHERE u.is_bot = 0 AND u.username = $q${nocase} AND u.id != $me`,
    );
    // Each candidate (found by the users primary key) is $me, an accepted friend (the
    // friendships primary key) or shares a server with $me (server_members_user finds the
    // candidate's servers, the primary key probes $me in each): one indexed query for the
    // whole list, never a scan.
    this.presenceVisibleStmt = db.prepare<{ id: string }, [{ me: string; ids: string }]>(
      `SELECT c.id FROM users c
       WHERE c.id ${db.dialect.inJsonArray("$ids")} AND (c.id = $me OR c.is_bot = 1
         OR EXISTS (SELECT 1 FROM friendships f
                    WHERE f.user_low = CASE WHEN c.id < $me THEN c.id ELSE $me END
                      AND f.user_high = CASE WHEN c.id < $me THEN $me ELSE c.id END
                      AND f.status = 'accepted')
         OR EXISTS (SELECT 1 FROM server_members theirs
                    JOIN server_members mine ON mine.server_id = theirs.server_id AND mine.user_id = $me
                    WHERE theirs.user_id = c.id))`,
    );
  }

  async find(a: string, b: string): Promise<FriendshipRow | null> {
    return this.db.get(this.getStmt, ...pair(a, b));
  }

  /** A user by exact username regardless of case; a human wins over a bot of the same name. */
  async findUserByUsername(username: string): Promise<UserRow | null> {
    return (await this.db.get(this.humanByName, username)) ?? this.db.get(this.botByName, username);
  }

  /** `from` asks `to`: creates the request, or accepts `to`'s pending request to `from`. */
  async request(from: string, to: string): Promise<RequestResult> {
    const [low, high] = pair(from, to);
    return this.db.transaction(async (tx): Promise<RequestResult> => {
      await tx.lock(`friendship:${low}:${high}`);
      const existing = await tx.get(this.getStmt, low, high);
      if (!existing) return { kind: "requested", row: (await tx.get(this.insertStmt, low, high, from, nowSeconds()))! };
      if (existing.status === "accepted") return { kind: "already-friends" };
      if (existing.requester_id === from) return { kind: "already-requested" };
      return { kind: "accepted", row: (await tx.get(this.acceptStmt, nowSeconds(), low, high))! };
    });
  }

  /** `userId` accepts the pending request `otherId` sent them. */
  async accept(userId: string, otherId: string): Promise<AcceptResult> {
    const [low, high] = pair(userId, otherId);
    return this.db.transaction(async (tx): Promise<AcceptResult> => {
      await tx.lock(`friendship:${low}:${high}`);
      const existing = await tx.get(this.getStmt, low, high);
      if (!existing) return { kind: "none" };
      if (existing.status === "accepted") return { kind: "already-friends" };
      if (existing.requester_id === userId) return { kind: "own-request" };
      return { kind: "accepted", row: (await tx.get(this.acceptStmt, nowSeconds(), low, high))! };
    });
  }

  /** Deletes the friendship or request between the two, whichever it is; null when there was none. */
  async remove(a: string, b: string): Promise<FriendshipRow | null> {
    return this.db.get(this.deleteStmt, ...pair(a, b));
  }

  async listFriends(userId: string): Promise<RelatedUserRow[]> {
    return this.db.all(this.relatedStmt, { me: userId, status: "accepted" });
  }

  /** Pending requests sent to or by the user. */
  async listPending(userId: string): Promise<RelatedUserRow[]> {
    return this.db.all(this.relatedStmt, { me: userId, status: "pending" });
  }

  async friendIds(userId: string): Promise<string[]> {
    return (await this.db.all(this.friendIdsStmt, { me: userId })).map((r) => r.other_id);
  }

  /** Users who are friends of both. */
  async mutualFriends(a: string, b: string): Promise<{ id: string; username: string; avatar: string | null }[]> {
    return this.db.all(this.mutualStmt, { a, b });
  }

  /** Humans other than `me` whose username contains `q` (any case); prefix matches first, then shorter names. */
  /** The human (other than `me`) whose username is `q` regardless of case, with `me`'s relationship row. */
  async search(me: string, q: string): Promise<SearchRow[]> {
    return this.db.all(this.searchStmt, { me, q });
  }

  /** Those of `ids` who are `me`, an accepted friend of `me`, or share a server with `me`. */
  async presenceVisible(me: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set((await this.db.all(this.presenceVisibleStmt, { me, ids: JSON.stringify(ids) })).map((r) => r.id));
  }
}
