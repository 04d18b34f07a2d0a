import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { SignJWT } from "jose";
import { TokenService } from "../../../src/domain/accounts/tokens.ts";
import { jwtCodec } from "../../../src/http/jwt-codec.ts";

const SECRET = "unit-test-secret-unit-test-secret-0123";
const USER = "01a207fb-b730-735d-99cf-a96dc74ccf39";

afterEach(() => setSystemTime());

describe("TokenService", () => {
  test("round-trips the claims; a cached token verifies the same", async () => {
    const tokens = new TokenService(jwtCodec(SECRET), "30d");
    const token = await tokens.sign({ userId: USER, version: 3 });
    const claims = { userId: USER, version: 3, tokenId: expect.stringMatching(/^[0-9a-f-]{36}$/), expiresAt: expect.any(Number) };
    expect(await tokens.verify(token)).toEqual(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    // The expiry in ms, 30 days on (exp is whole seconds).
    expect(Math.abs((await tokens.verify(token))!.expiresAt! - (Date.now() + 30 * 86_400_000))).toBeLessThan(2000);
  });

  test("a token stops verifying at its expiry, cached or not", async () => {
    const tokens = new TokenService(jwtCodec(SECRET), "1h");
    const token = await tokens.sign({ userId: USER, version: 0 });
    expect(await tokens.verify(token)).not.toBeNull();
    setSystemTime(new Date(Date.now() + 2 * 60 * 60 * 1000));
    expect(await tokens.verify(token)).toBeNull();
    const fresh = new TokenService(jwtCodec(SECRET), "1h");
    expect(await fresh.verify(token)).toBeNull();
  });

  test("known(): nothing before a verify, the claims after it, null once expired; a bad token is never known", async () => {
    const tokens = new TokenService(jwtCodec(SECRET), "1h");
    const token = await tokens.sign({ userId: USER, version: 2 });
    expect(tokens.known(token)).toBeUndefined();
    expect(await tokens.verify(token)).toMatchObject({ userId: USER, version: 2 });
    expect(tokens.known(token)).toMatchObject({ userId: USER, version: 2 });
    expect(await tokens.verify("a.b.c")).toBeNull();
    expect(tokens.known("a.b.c")).toBeUndefined();
    setSystemTime(new Date(Date.now() + 2 * 60 * 60 * 1000));
    expect(tokens.known(token)).toBeNull();
    expect(await tokens.verify(token)).toBeNull();
  });

  test("bot tokens (no expiry) keep verifying", async () => {
    const tokens = new TokenService(jwtCodec(SECRET), "1h");
    const token = await tokens.sign({ userId: USER, version: 1 }, false);
    setSystemTime(new Date(Date.now() + 400 * 24 * 60 * 60 * 1000));
    expect(await tokens.verify(token)).toEqual({ userId: USER, version: 1, tokenId: expect.any(String) });
  });

  test("a token without a jti (issued before tokens carried one) still verifies, with no tokenId", async () => {
    const tokens = new TokenService(jwtCodec(SECRET), "1h");
    const old = await new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256" }).setSubject(USER).setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(SECRET));
    const claims = await tokens.verify(old);
    expect(claims).toEqual({ userId: USER, version: 0, expiresAt: expect.any(Number) });
  });

  test.each([
    ["another secret", async () => new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256" }).setSubject(USER).sign(new TextEncoder().encode("another-secret-another-secret-123"))],
    ["HS512 with the same secret", async () => new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS512" }).setSubject(USER).sign(new TextEncoder().encode(SECRET))],
    ["no version claim", async () => new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(USER).sign(new TextEncoder().encode(SECRET))],
    ["no subject", async () => new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(SECRET))],
    ["alg none", async () => `${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify({ sub: USER, ver: 0 }))}.`],
    ["garbage", async () => "a.b.c"],
    ["empty", async () => ""],
  ])("refuses %s", async (_name, make) => {
    const tokens = new TokenService(jwtCodec(SECRET), "30d");
    expect(await tokens.verify(await make())).toBeNull();
  });
});
