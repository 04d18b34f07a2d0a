/**
 * The JWT primitive the TokenService is built on, made in http/ from @elysiajs/jwt
 * (src/http/jwt-codec.ts), so that the domain never imports Elysia.
 */
export interface JwtCodec {
  /** A signed token of these claims, expiring after `expiresIn` (jose's duration syntax), or never. */
  sign(claims: { sub: string; ver: number; jti: string }, expiresIn: string | undefined): Promise<string>;
  /** The claims of a token whose HS256 signature is valid and that has not expired; null for anything else. */
  verify(token: string): Promise<Readonly<Record<string, unknown>> | null>;
}

export interface TokenClaims {
  userId: string;
  /** Must equal the account's `token_version`; bumping it revokes every older token. */
  version: number;
}

/** What a verified token says about itself, beyond whose it is. */
export interface VerifiedClaims extends TokenClaims {
  /** Its `jti`, by which logout revokes it alone; absent from tokens issued before they carried one. */
  tokenId?: string;
  /** When it expires, in ms since the epoch; absent for bot tokens, which do not. */
  expiresAt?: number;
}

/**
 * Signs and verifies the bearer tokens of users and bots (JWT, HS256 only). One service,
 * used by REST and by the gateway handshake alike: the claims' shape is checked here, the
 * signature, algorithm and expiry by the codec, revocation by the caller (`Accounts`).
 */
export class TokenService {
  /**
   * Tokens whose signature was already verified (the HMAC check is the largest cost of an
   * authenticated request). A signature never becomes invalid, so only the expiry is checked
   * again; revocation (the token version, a logout) is checked by the caller every time.
   */
  private readonly verified = new Map<string, { claims: Readonly<VerifiedClaims>; expiresAt: number }>();
  private static readonly CACHE_SIZE = 10_000;

  constructor(
    private readonly codec: JwtCodec,
    private readonly lifetime: string,
  ) {}

  /** `expires: false` for bot tokens, which live until regenerated. */
  sign(claims: TokenClaims, expires = true): Promise<string> {
    return this.codec.sign({ sub: claims.userId, ver: claims.version, jti: Bun.randomUUIDv7() }, expires ? this.lifetime : undefined);
  }

  /**
   * What is already known of a token without verifying it again: its claims if its signature was
   * verified and it has not expired, null if it has expired, undefined if it was not seen (then
   * `verify` it). Synchronous: an authenticated request's common case has no promise to wait for.
   */
  known(token: string): Readonly<VerifiedClaims> | null | undefined {
    const cached = this.verified.get(token);
    if (!cached) return undefined;
    if (cached.expiresAt > Date.now()) return cached.claims;
    this.verified.delete(token);
    return null;
  }

  /** The claims of a valid token, or null for anything else (bad signature, expired, malformed). */
  async verify(token: string): Promise<Readonly<VerifiedClaims> | null> {
    const known = this.known(token);
    if (known !== undefined) return known;
    const payload = await this.codec.verify(token);
    if (!payload || typeof payload.sub !== "string" || typeof payload.ver !== "number") return null;
    const claims: VerifiedClaims = { userId: payload.sub, version: payload.ver };
    if (typeof payload.jti === "string") claims.tokenId = payload.jti;
    if (typeof payload.exp === "number") claims.expiresAt = payload.exp * 1000;
    this.remember(token, claims, claims.expiresAt ?? Infinity);
    return claims;
  }

  private remember(token: string, claims: VerifiedClaims, expiresAt: number) {
    if (this.verified.size >= TokenService.CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(token, { claims: Object.freeze({ ...claims }), expiresAt });
  }
}
