import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, waitForDisconnect, type TestServer, type TestUser } from "../helpers/server.ts";
import { letTimePass, quietWindow } from "../helpers/wait.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { createBot } from "../helpers/bots.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const me = (token: string) => server.api("GET", "/api/v1/users/me/info", { token });
const logout = (token: string, all = false) => server.api("POST", `/api/v1/auth/logout${all ? "/all" : ""}`, { token });

async function secondSession(user: TestUser): Promise<string> {
  const res = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
  expect(res.status).toBe(200);
  return res.body.token;
}

describe("POST /api/v1/auth/logout", () => {
  test("revokes the request's token on REST; the account's other tokens keep working", async () => {
    const user = await server.register();
    const other = await secondSession(user);
    const res = await logout(user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged_out: true });
    expect((await me(user.token)).status).toBe(401);
    expect((await me(user.token)).body).toEqual({ error: "Unauthorized" });
    expect((await logout(user.token)).status).toBe(401);
    expect((await me(other)).status).toBe(200);
  });

  test("disconnects the token's sockets (websocket and polling) at once; new handshakes with it fail Unauthorized", async () => {
    const user = await server.register();
    const other = await secondSession(user);
    const websocket = await server.connect(user.token);
    const polling = await server.connect(user.token, { transports: ["polling"] });
    const untouched = await server.connect(other);
    const gone = [waitForDisconnect(websocket), waitForDisconnect(polling)];
    expect((await logout(user.token)).status).toBe(200);
    expect(await Promise.all(gone)).toEqual(["io server disconnect", "io server disconnect"]);
    await expect(server.connect(user.token)).rejects.toThrow("Unauthorized");
    await expect(server.connect(user.token, { transports: ["polling"] })).rejects.toThrow("Unauthorized");
    await quietWindow(); // another session's socket stays
    expect(untouched.connected).toBe(true);
  });

  test("a session dropped before the logout cannot be resumed with the revoked token", async () => {
    const user = await server.register();
    const socket = await connectResumable(server.url, user.token);
    await drop(socket);
    expect((await logout(user.token)).status).toBe(200);
    await expect(reconnect(socket)).rejects.toThrow("Unauthorized");
    socket.close();
  });

  test("a bot token cannot log out (403): a bot's token is regenerated instead", async () => {
    const owner = await server.register();
    const botToken = (await createBot(server, owner)).token;
    for (const all of [false, true]) {
      const res = await logout(botToken, all);
      expect(res.status).toBe(403);
      expect(res.body.error).toContain("regenerate");
    }
    expect((await server.api("GET", "/api/v1/users/me/info", { token: botToken })).status).toBe(200);
  });
});

describe("POST /api/v1/auth/logout/all", () => {
  test("revokes every token of the account and disconnects all its sockets; logging in again works", async () => {
    const user = await server.register();
    const other = await secondSession(user);
    const sockets = [await server.connect(user.token), await server.connect(other, { transports: ["polling"] })];
    const gone = sockets.map((socket) => waitForDisconnect(socket));
    const res = await logout(other, true);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged_out: true });
    expect(await Promise.all(gone)).toEqual(["io server disconnect", "io server disconnect"]);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(other)).status).toBe(401);
    await expect(server.connect(other)).rejects.toThrow("Unauthorized");
    const fresh = await secondSession(user);
    expect((await me(fresh)).status).toBe(200);
  });
});

describe("token expiry", () => {
  test("a socket is disconnected when its token expires, and the token then fails everywhere", async () => {
    const short = await startServer({ tokenLifetime: "2s" });
    try {
      const user = await short.register();
      const socket = await short.connect(user.token);
      const polling = await short.connect(user.token, { transports: ["polling"] });
      const started = Date.now();
      const reasons = await Promise.all([waitForDisconnect(socket, 5000), waitForDisconnect(polling, 5000)]);
      expect(reasons).toEqual(["io server disconnect", "io server disconnect"]);
      // Issued with a 2 s lifetime (whole seconds: exp is at most 2 s after the register).
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await short.api("GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(401);
      await expect(short.connect(user.token)).rejects.toThrow("Unauthorized");
    } finally {
      await short.stop();
    }
  });

  test("a bot token has no expiry: its socket gets no timer and stays", async () => {
    const short = await startServer({ tokenLifetime: "1s" });
    try {
      const owner = await short.register();
      const bot = await short.connect((await createBot(short, owner)).token);
      await letTimePass(1500, "past the 1 s token lifetime");
      expect(bot.connected).toBe(true);
    } finally {
      await short.stop();
    }
  });
});
