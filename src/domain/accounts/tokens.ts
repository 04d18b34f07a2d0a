import { SignJWT, jwtVerify, errors as joseErrors } from "jose";

export interface TokenClaims {
  userId: string;
  /** Must equal the account's `token_version`; bumping it revokes every older token. */
  version: number;
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
  private readonly verified = new Map<string, TokenClaims & { expiresAt: number }>();
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

  /** The claims of a valid token, or null for anything else (bad signature, expired, malformed). */
  async verify(token: string): Promise<TokenClaims | null> {
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.expiresAt > Date.now()) return { userId: cached.userId, version: cached.version };
      this.verified.delete(token);
      return null;
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.ver !== "number") return null;
      const claims = { userId: payload.sub, version: payload.ver };
      this.remember(token, claims, payload.exp === undefined ? Infinity : payload.exp * 1000);
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  private remember(token: string, claims: TokenClaims, expiresAt: number) {
    if (this.verified.size >= TokenService.CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(token, { ...claims, expiresAt });
  }
}
