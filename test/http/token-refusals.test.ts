/**
 * REST and the gateway handshake refuse the same tokens: both go through the one TokenService
 * (src/domain/accounts/tokens.ts on src/http/jwt-codec.ts) and `Accounts.authenticate`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ tokenLifetime: "1h" });
});
afterAll(() => server.stop());
afterEach(() => setSystemTime());

const restStatus = async (token: string) => (await server.api("GET", "/api/v1/users/me/info", { token })).status;
const handshake = (token: string) =>
  server.connect(token).then(
    (socket) => {
      socket.close();
      return "connected";
    },
    (error: Error) => error.message,
  );

/** Claims as the server signs them, for `user`, under the given header. */
const forge = (user: TestUser, alg: string, key: Parameters<SignJWT["sign"]>[0]) =>
  new SignJWT({ ver: 0 }).setProtectedHeader({ alg, typ: "JWT" }).setSubject(user.id).setJti(Bun.randomUUIDv7()).setIssuedAt().setExpirationTime("1h").sign(key);
const secret = () => new TextEncoder().encode(server.config.jwtSecret!);

describe("a token is refused on REST and on the gateway handshake alike", () => {
  test("the control: the server's own token is accepted by both", async () => {
    const user = await server.register();
    expect(await restStatus(user.token)).toBe(200);
    expect(await handshake(user.token)).toBe("connected");
  });

  test.each([
    ["signed with HS512 and the server's secret", (user: TestUser) => forge(user, "HS512", secret())],
    ['with alg "none"', async (user: TestUser) => new UnsecuredJWT({ ver: 0 }).setSubject(user.id).setIssuedAt().setExpirationTime("1h").encode()],
    ["signed with RS256", async (user: TestUser) => forge(user, "RS256", (await generateKeyPair("RS256")).privateKey)],
    ["expired, signed with the server's secret", (user: TestUser) =>
      new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject(user.id).setJti(Bun.randomUUIDv7()).setIssuedAt(1_000_000).setExpirationTime(1_000_060).sign(secret())],
  ])("a token %s", async (_name, make) => {
    const user = await server.register();
    const token = await make(user);
    expect(await restStatus(token)).toBe(401);
    expect(await handshake(token)).toBe("Unauthorized");
  });

  test("a token verified (and cached) while valid is refused by both once it has expired", async () => {
    const user = await server.register();
    expect(await restStatus(user.token)).toBe(200);
    expect(await handshake(user.token)).toBe("connected");
    setSystemTime(new Date(Date.now() + 2 * 60 * 60 * 1000));
    expect(await restStatus(user.token)).toBe(401);
    expect(await handshake(user.token)).toBe("Unauthorized");
  });

  test("a token revoked by a logout is refused by both; the account's other token is not", async () => {
    const user = await server.register();
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect((await server.api("POST", "/api/v1/auth/logout", { token: user.token })).status).toBe(200);
    expect(await restStatus(user.token)).toBe(401);
    expect(await handshake(user.token)).toBe("Unauthorized");
    expect(await restStatus(login.body.token)).toBe(200);
    expect(await handshake(login.body.token)).toBe("connected");
  });
});
