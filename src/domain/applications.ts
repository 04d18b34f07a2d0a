import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import type { ApplicationRow } from "../store/applications-repo.ts";
import type { UserRow } from "../store/users-repo.ts";
import { forbidden, notFound } from "./errors.ts";
import type { TokenService } from "./tokens.ts";
import type { TwoFactor } from "./two-factor.ts";
import { hasTwoFactor } from "./two-factor.ts";
import { isUuid } from "./validation.ts";

/** SPEC.md "Application": the creation response object, and what the owner sees afterwards. */
export interface Application {
  id: string;
  name: string;
  description: string;
  bot_user_id: string;
  client_secret: string;
  default_permissions: number;
  invite_permission_locked: boolean;
  public_invite: boolean;
  avatar: string | null;
  banner: string | null;
  banner_offset: number;
  owner_id: string;
  created_at: number;
  updated_at: number;
}

export function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    bot_user_id: row.bot_user_id,
    client_secret: row.client_secret,
    default_permissions: row.default_permissions,
    invite_permission_locked: row.invite_permission_locked === 1,
    public_invite: row.public_invite === 1,
    avatar: row.avatar,
    banner: row.banner,
    banner_offset: row.banner_offset,
    owner_id: row.owner_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A client secret: 32 random bytes as hex. */
const newClientSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

/**
 * Applications: each has one bot user (`is_bot` = 1, named after the application, `offline`
 * until it connects) whose bearer token never expires and is revoked by regenerating it.
 * Management needs the owner's user token; bots get 403.
 */
export class Applications {
  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly twoFactor: TwoFactor,
    private readonly config: Pick<Config, "requireTwoFactorForApplications">,
  ) {}

  /**
   * POST /oauth2/applications. When the platform requires it (REQUIRE_2FA_FOR_APPLICATIONS),
   * the caller must have two-factor authentication on and send the current code (X-2FA-Code).
   */
  async create(
    user: UserRow,
    input: { name: string; description: string },
    twoFactorCode: string | null,
  ): Promise<{ application: Application; bot_token: string }> {
    this.requireHuman(user);
    if (this.config.requireTwoFactorForApplications) {
      if (!hasTwoFactor(user)) throw forbidden("Enable two-factor authentication to create applications");
      this.twoFactor.requireCode(user, twoFactorCode);
    }
    const row = await this.store.applications.create({
      ownerId: user.id,
      name: input.name,
      description: input.description,
      clientSecret: newClientSecret(),
    });
    return { application: toApplication(row), bot_token: await this.botToken(row.bot_user_id) };
  }

  /** The owner's application; 404 for anyone else's (its existence does not leak). */
  async owned(appId: string, user: UserRow): Promise<ApplicationRow> {
    this.requireHuman(user);
    const row = isUuid(appId) ? await this.store.applications.findById(appId) : null;
    if (!row || row.owner_id !== user.id) throw notFound("Application");
    return row;
  }

  /** A bearer token for the bot user, bound to its current token version; it does not expire. */
  async botToken(botUserId: string): Promise<string> {
    const bot = await this.store.users.findById(botUserId);
    if (!bot) throw notFound("Bot user");
    return this.tokens.sign({ userId: bot.id, version: bot.token_version }, false);
  }

  /** Application management needs a user token (SPEC.md "Authentication" 4). */
  requireHuman(user: UserRow): void {
    if (user.is_bot) throw forbidden("Bots cannot manage applications");
  }
}
