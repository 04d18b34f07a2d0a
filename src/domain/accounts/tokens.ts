import { SignJWT, jwtVerify, errors as joseErrors } from "jose";

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
 * used by REST and by the gateway handshake alike.
 */
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens whose signature was already verified (jose's HMAC check costs ~100 µs here, the
   * largest cost of an authenticated request). A signature never becomes invalid, so only the
   * expiry is checked again; revocation is the token version, checked by the caller every time.
   */
  private readonly verified = new Map<string, { claims: Readonly<VerifiedClaims>; expiresAt: number }>();
  private static readonly CACHE_SIZE = 10_000;

  constructor(secret: string, private readonly lifetime: string) {
    this.key = new TextEncoder().encode(secret);
  }

  /** `expires: false` for bot tokens, which live until regenerated. */
  async sign(claims: TokenClaims, expires = true): Promise<string> {
    const jwt = new SignJWT({ ver: claims.version })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.userId)
      .setIssuedAt()
      .setJti(Bun.randomUUIDv7());
    if (expires) jwt.setExpirationTime(this.lifetime);
    return jwt.sign(this.key);
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
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.ver !== "number") return null;
      const claims: VerifiedClaims = { userId: payload.sub, version: payload.ver };
      if (typeof payload.jti === "string") claims.tokenId = payload.jti;
      if (payload.exp !== undefined) claims.expiresAt = payload.exp * 1000;
      this.remember(token, claims, claims.expiresAt ?? Infinity);
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  private remember(token: string, claims: VerifiedClaims, expiresAt: number) {
    if (this.verified.size >= TokenService.CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(token, { claims: Object.freeze({ ...claims }), expiresAt });
  }
}
