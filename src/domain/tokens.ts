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
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.ver !== "number") return null;
      return { userId: payload.sub, version: payload.ver };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }
}
