import { describe, expect, test } from "bun:test";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { jwtCodec } from "../../src/http/jwt-codec.ts";

const SECRET = "unit-test-secret-unit-test-secret-0123";
const USER = "01a207fb-b730-735d-99cf-a96dc74ccf39";
const key = new TextEncoder().encode(SECRET);
const signedWith = (alg: string, signingKey: Parameters<SignJWT["sign"]>[0] = key) =>
  new SignJWT({ ver: 0 }).setProtectedHeader({ alg, typ: "JWT" }).setSubject(USER).setIssuedAt().setExpirationTime("1h").sign(signingKey);

describe("jwtCodec (@elysiajs/jwt)", () => {
  test("signs the header and claims docs/auth.md describes, and verifies them back", async () => {
    const codec = jwtCodec(SECRET);
    const token = await codec.sign({ sub: USER, ver: 2, jti: "an-id" }, "30d");
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = decodeJwt(token);
    expect(Object.keys(claims).sort()).toEqual(["exp", "iat", "jti", "sub", "ver"]);
    expect(claims.exp! - claims.iat!).toBe(30 * 86_400);
    expect(await codec.verify(token)).toEqual(claims);
  });

  test("a token signed without an expiry (a bot's) has no exp claim", async () => {
    const token = await jwtCodec(SECRET).sign({ sub: USER, ver: 0, jti: "an-id" }, undefined);
    expect(Object.keys(decodeJwt(token)).sort()).toEqual(["iat", "jti", "sub", "ver"]);
  });

  test("accepts HS256 with the secret (the control for the refusals below)", async () => {
    expect(await jwtCodec(SECRET).verify(await signedWith("HS256"))).toMatchObject({ sub: USER, ver: 0 });
  });

  test.each([
    ["HS512 with the same secret", () => signedWith("HS512")],
    ["HS384 with the same secret", () => signedWith("HS384")],
    ['alg "none"', async () => new UnsecuredJWT({ ver: 0 }).setSubject(USER).setIssuedAt().setExpirationTime("1h").encode()],
    ["RS256 with a key pair of its own", async () => signedWith("RS256", (await generateKeyPair("RS256")).privateKey)],
    ["an HS256 header over an HS512 signature", async () => {
      const [, payload, signature] = (await signedWith("HS512")).split(".");
      const [header] = (await signedWith("HS256")).split(".");
      return `${header}.${payload}.${signature}`;
    }],
    ["expired", () => new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256" }).setSubject(USER).setIssuedAt(1_000_000).setExpirationTime(1_000_060).sign(key)],
    ["another secret", () => signedWith("HS256", new TextEncoder().encode("another-secret-another-secret-123"))],
    ["empty", async () => ""],
  ])("refuses %s", async (_name, make) => {
    expect(await jwtCodec(SECRET).verify(await make())).toBeNull();
  });
});
