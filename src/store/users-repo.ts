import type { Database, Queries } from "./database.ts";
import type { PresenceStatus } from "./types.ts";
import { nowSeconds } from "./time.ts";
import { memberUsernameRefresh } from "./member-derived-columns.ts";
import { secretContext, type SecretBox } from "./secret-box.ts";

/**
 * An account as every handler gets it: each column of `users` but `password_hash`, which is read
 * only to check a password (`findByLogin`, `passwordHashOf`), so the hash never rides on the
 * caller of every authenticated request (nor costs reading the string). The columns are `USER_COLUMNS`.
 */
export interface UserRow {
  id: string;
  username: string;
  email: string | null;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  bio: string;
  status: PresenceStatus;
  preferred_status: PresenceStatus;
  is_bot: 0 | 1;
  token_version: number;
  /** How many single tokens of the account were revoked (logout): a change makes a node re-check the token it holds. */
  token_revocations: number;
  /**
   * The TOTP secrets, **sealed** (encrypted at rest, docs/operations.md): test them against
   * null here, read their cleartext with `UsersRepo.totpSecrets`. They stay sealed in the row
   * because users are read in many places and the cleartext is needed in two.
   */
  totp_secret: string | null;
  totp_pending_secret: string | null;
  /** Premium subscriber (larger attachment limit, soundboard catalog); set by administrators (docs/admin.md). */
  premium: 0 | 1;
  /** Platform administrator (holds MANAGE_SETTINGS; docs/admin.md). */
  platform_admin: 0 | 1;
  /** When an administrator disabled the account; its tokens and sockets stop working. */
  disabled_at: number | null;
  /** The custom status (docs/users.md, "Custom status"): null text is none; it is over once `expires_at` (seconds) is past, even before the sweep clears it. */
  custom_status_text: string | null;
  custom_status_emoji: string | null;
  custom_status_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A human account found by its login, with the hash to check the password against. */
type LoginRow = UserRow & { password_hash: string | null };

/** The columns of a `UserRow`: every statement that answers one names these (`userColumns`). */
export const USER_COLUMNS = [
  "id", "username", "email", "avatar", "banner", "banner_offset", "bio", "status", "preferred_status", "is_bot",
  "token_version", "token_revocations", "totp_secret", "totp_pending_secret", "premium", "platform_admin", "disabled_at",
  "custom_status_text", "custom_status_emoji", "custom_status_expires_at", "created_at", "updated_at",
] as const satisfies readonly (keyof UserRow)[];

/** `USER_COLUMNS` as a select list, qualified by a table alias when given (`u.id, u.username, ...`). */
export const userColumns = (alias?: string): string => USER_COLUMNS.map((column) => (alias ? `${alias}.${column}` : column)).join(", ");
const USER = userColumns();

interface NewUser {
  username: string;
  email: string | null;
  passwordHash: string | null;
  isBot: boolean;
}

interface ProfileChanges {
  username?: string;
  bio?: string;
  banner_offset?: number;
}

/** Which unique field a write collided with, if any. */
export type Taken = "username" | "email";
type WriteResult = { ok: true; user: UserRow } | { ok: false; taken: Taken };

export class UsersRepo {
  private readonly byId;
  private readonly byLogin;
  private readonly passwordHashStmt;
  private readonly usernameOwner;
  private readonly emailOwner;
  private readonly insert;
  private readonly updateProfileStmt;
  private readonly refreshMemberNames;
  private readonly setPasswordStmt;
  private readonly setImageStmt: Record<"avatar" | "banner", ReturnType<Database["prepare"]>>;
  private readonly setPendingTotp;
  private readonly enableTotpStmt;
  private readonly disableTotpStmt;
  private readonly setStatusStmt;
  private readonly setPreferredStmt;
  private readonly resetStatuses;
  private readonly setPremiumStmt;
  private readonly bumpTokenVersion;
  private readonly setCustomStatusStmt;
  private readonly clearExpiredStmt;
  private readonly nextExpiryStmt;
  private readonly insertRecoveryCode;
  private readonly deleteRecoveryCodes;
  private readonly useRecoveryCodeStmt;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {
    const { nocase } = db.dialect;
    this.byId = db.prepare<UserRow, [string]>(`SELECT ${USER} FROM users WHERE id = ?`);
    this.passwordHashStmt = db.prepare<{ password_hash: string | null }, [string]>("SELECT password_hash FROM users WHERE id = ?");
    this.byLogin = db.prepare<LoginRow, [{ login: string }]>(
      `SELECT ${USER}, password_hash FROM users WHERE is_bot = 0 AND (email = $login${nocase} OR username = $login${nocase}) LIMIT 1`,
    );
    this.usernameOwner = db.prepare<{ id: string }, [string]>(
      `SELECT id FROM users WHERE is_bot = 0 AND username = ?${nocase}`,
    );
    this.emailOwner = db.prepare<{ id: string }, [string]>(`SELECT id FROM users WHERE email = ?${nocase}`);
    this.insert = db.prepare<UserRow, [Record<string, string | number | null>]>(
      // The first human account is a platform administrator.
      `INSERT INTO users (id, username, email, password_hash, is_bot, platform_admin, created_at, updated_at)
       VALUES ($id, $username, $email, $password_hash, $is_bot,
         CASE WHEN $is_bot = 0 AND NOT EXISTS (SELECT 1 FROM users WHERE is_bot = 0) THEN 1 ELSE 0 END, $now, $now) RETURNING ${USER}`,
    );
    this.updateProfileStmt = db.prepare<UserRow, [Record<string, string | number | null>]>(
      `UPDATE users SET username = coalesce($username, username), bio = coalesce($bio, bio),
         banner_offset = coalesce($banner_offset, banner_offset), updated_at = $now
       WHERE id = $id RETURNING ${USER}`,
    );
    this.refreshMemberNames = memberUsernameRefresh(db);
    this.setPasswordStmt = db.prepare<UserRow, [string, number, string]>(
      `UPDATE users SET password_hash = ?, token_version = token_version + 1, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    this.setImageStmt = {
      avatar: db.prepare("UPDATE users SET avatar = ?, updated_at = ? WHERE id = ?"),
      banner: db.prepare("UPDATE users SET banner = ?, updated_at = ? WHERE id = ?"),
    };
    this.setPendingTotp = db.prepare<UserRow, [string | null, number, string]>(
      `UPDATE users SET totp_pending_secret = ?, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    this.enableTotpStmt = db.prepare<UserRow, [number, string]>(
      `UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, updated_at = ?
       WHERE id = ? AND totp_pending_secret IS NOT NULL RETURNING ${USER}`,
    );
    this.disableTotpStmt = db.prepare<UserRow, [number, string]>(
      `UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    this.setStatusStmt = db.prepare("UPDATE users SET status = ? WHERE id = ?");
    this.setPreferredStmt = db.prepare("UPDATE users SET preferred_status = ?, status = ? WHERE id = ?");
    this.resetStatuses = db.prepare("UPDATE users SET status = 'offline' WHERE status != 'offline'");
    this.setPremiumStmt = db.prepare<UserRow, [number, number, string]>(
      `UPDATE users SET premium = ?, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    this.bumpTokenVersion = db.prepare<UserRow, [number, string]>(
      `UPDATE users SET token_version = token_version + 1, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    this.setCustomStatusStmt = db.prepare<UserRow, [string | null, string | null, number | null, number, string]>(
      `UPDATE users SET custom_status_text = ?, custom_status_emoji = ?, custom_status_expires_at = ?, updated_at = ? WHERE id = ? RETURNING ${USER}`,
    );
    // One statement: when several nodes sweep at once, each row is cleared, and so answered, by one of them.
    this.clearExpiredStmt = db.prepare<{ id: string }, [number]>(
      `UPDATE users SET custom_status_text = NULL, custom_status_emoji = NULL, custom_status_expires_at = NULL
       WHERE custom_status_expires_at IS NOT NULL AND custom_status_expires_at <= ? RETURNING id`,
    );
    this.nextExpiryStmt = db.prepare<{ next: number | null }, []>(
      "SELECT min(custom_status_expires_at) AS next FROM users WHERE custom_status_expires_at IS NOT NULL",
    );
    this.insertRecoveryCode = db.prepare<unknown, [string, string]>("INSERT INTO two_factor_recovery_codes (user_id, code_hash) VALUES (?, ?)");
    this.deleteRecoveryCodes = db.prepare<unknown, [string]>("DELETE FROM two_factor_recovery_codes WHERE user_id = ?");
    this.useRecoveryCodeStmt = db.prepare<unknown, [string, string]>("DELETE FROM two_factor_recovery_codes WHERE user_id = ? AND code_hash = ?");
  }

  // Not `async`: the database's promise as it is (an async wrapper adds promise hops to every
  // authenticated request, which reads the account here).
  findById(id: string): Promise<UserRow | null> {
    return this.db.get(this.byId, id);
  }

  /** A human account by email or username, case-insensitively, with its password hash. */
  async findByLogin(login: string): Promise<LoginRow | null> {
    return this.db.get(this.byLogin, { login });
  }

  /** An account's password hash (null: none, as a bot's, or no such account). */
  async passwordHashOf(id: string): Promise<string | null> {
    return (await this.db.get(this.passwordHashStmt, id))?.password_hash ?? null;
  }

  async create(user: NewUser): Promise<WriteResult> {
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      // One lock for every write of usernames and emails, and for "the first human account".
      await tx.lock("users");
      if (!user.isBot && await tx.get(this.usernameOwner, user.username)) return { ok: false, taken: "username" };
      if (user.email !== null && await tx.get(this.emailOwner, user.email)) return { ok: false, taken: "email" };
      const row = await tx.get(this.insert, {
        id: Bun.randomUUIDv7(),
        username: user.username,
        email: user.email,
        password_hash: user.passwordHash,
        is_bot: user.isBot ? 1 : 0,
        now: nowSeconds(),
      });
      return { ok: true, user: row! };
    });
  }

  /** Applies the given profile fields; a username taken by someone else is reported, not written. */
  async updateProfile(id: string, changes: ProfileChanges): Promise<WriteResult | null> {
    return this.db.transaction(async (tx): Promise<WriteResult | null> => {
      await tx.lock("users");
      if (changes.username !== undefined) {
        const owner = await tx.get(this.usernameOwner, changes.username);
        if (owner && owner.id !== id) return { ok: false, taken: "username" };
      }
      const row = await tx.get(this.updateProfileStmt, {
        id,
        username: changes.username ?? null,
        bio: changes.bio ?? null,
        banner_offset: changes.banner_offset ?? null,
        now: nowSeconds(),
      });
      if (row && changes.username !== undefined) await tx.run(this.refreshMemberNames, id);
      return row ? { ok: true, user: row } : null;
    });
  }

  /** Sets the hash and bumps the token version, so every older token stops working. */
  async setPassword(id: string, passwordHash: string): Promise<UserRow | null> {
    return this.db.get(this.setPasswordStmt, passwordHash, nowSeconds(), id);
  }

  /** Stores a new image path and returns the one it replaced (for the caller to delete). */
  async replaceImage(id: string, kind: "avatar" | "banner", path: string | null): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`user-images:${id}`);
      const before = await tx.get(this.byId, id);
      await tx.run(this.setImageStmt[kind], path, nowSeconds(), id);
      return before ? before[kind] : null;
    });
  }

  async setPendingTotpSecret(id: string, secret: string | null): Promise<UserRow | null> {
    return this.db.get(this.setPendingTotp, this.secrets.sealNullable(secret, secretContext("users.totp", id)), nowSeconds(), id);
  }

  /** The cleartext of a user row's TOTP secrets (the row holds them sealed). */
  totpSecrets(user: Pick<UserRow, "id" | "totp_secret" | "totp_pending_secret">): { active: string | null; pending: string | null } {
    const context = secretContext("users.totp", user.id);
    return { active: this.secrets.openNullable(user.totp_secret, context), pending: this.secrets.openNullable(user.totp_pending_secret, context) };
  }

  /**
   * Promotes the pending secret and stores the hashes of its recovery codes (replacing any), in
   * one transaction; null when there was no pending secret (then nothing is stored).
   */
  async enableTotp(id: string, recoveryCodeHashes: readonly string[]): Promise<UserRow | null> {
    return this.db.transaction(async (tx) => {
      const user = await tx.get(this.enableTotpStmt, nowSeconds(), id);
      if (user) await this.storeRecoveryCodes(tx, id, recoveryCodeHashes);
      return user;
    });
  }

  /** Turns 2FA off: both secrets and every recovery code go, in one transaction. */
  async disableTotp(id: string): Promise<UserRow | null> {
    return this.db.transaction(async (tx) => {
      await tx.run(this.deleteRecoveryCodes, id);
      return tx.get(this.disableTotpStmt, nowSeconds(), id);
    });
  }

  /** The account's recovery codes become these (the earlier set stops working). */
  async replaceRecoveryCodes(id: string, recoveryCodeHashes: readonly string[]): Promise<void> {
    await this.db.transaction((tx) => this.storeRecoveryCodes(tx, id, recoveryCodeHashes));
  }

  /** Uses up one recovery code: true when the account held it (it is gone now), false otherwise. */
  async useRecoveryCode(id: string, codeHash: string): Promise<boolean> {
    return (await this.db.run(this.useRecoveryCodeStmt, id, codeHash)) > 0;
  }

  /** Every token issued before stops working (their version no longer matches); the new row. */
  async revokeAllTokens(id: string): Promise<UserRow | null> {
    return this.db.get(this.bumpTokenVersion, nowSeconds(), id);
  }

  private async storeRecoveryCodes(tx: Queries, id: string, hashes: readonly string[]): Promise<void> {
    await tx.run(this.deleteRecoveryCodes, id);
    for (const hash of hashes) await tx.run(this.insertRecoveryCode, id, hash);
  }

  /** The presence others see (online while connected, offline otherwise). */
  async setStatus(id: string, status: PresenceStatus): Promise<void> {
    await this.db.run(this.setStatusStmt, status, id);
  }

  /** The status the user chose, and the one shown now. */
  async setPreferredStatus(id: string, preferred: PresenceStatus, shown: PresenceStatus): Promise<void> {
    await this.db.run(this.setPreferredStmt, preferred, shown, id);
  }

  /** The premium flag (administrators set it: docs/admin.md). Null if there is no such user. */
  async setPremium(id: string, premium: boolean): Promise<UserRow | null> {
    return this.db.get(this.setPremiumStmt, premium ? 1 : 0, nowSeconds(), id);
  }

  /** Sets (text) or clears (null) the custom status; `expiresAt` in seconds, null for never. Null if there is no such user. */
  async setCustomStatus(id: string, status: { text: string; emoji: string | null; expiresAt: number | null } | null): Promise<UserRow | null> {
    return this.db.get(this.setCustomStatusStmt, status?.text ?? null, status?.emoji ?? null, status?.expiresAt ?? null, nowSeconds(), id);
  }

  /** Clears every custom status whose time is up at `now` (seconds) and answers whose it was. */
  async clearExpiredCustomStatuses(now: number): Promise<string[]> {
    return (await this.db.all(this.clearExpiredStmt, now)).map((row) => row.id);
  }

  /** When the next custom status is due to clear itself (seconds), or null when none will. */
  async nextCustomStatusExpiry(): Promise<number | null> {
    const row = await this.db.get(this.nextExpiryStmt);
    return row?.next === null || row?.next === undefined ? null : Number(row.next);
  }

  /** At start nobody is connected. */
  async markEveryoneOffline(): Promise<void> {
    await this.db.run(this.resetStatuses);
  }
}
