/**
 * Three Hearth nodes on one PostgreSQL and one Redis (npm run test:cluster): the two-factor code
 * budget is one budget over every node, and a logout on one node holds on every other at once
 * (docs/auth.md, "Rate limits" and "Logging out").
 */
import { describe, expect, test } from "bun:test";
import { api, connect, register, useThreeNodes, type ClusterUser, type HearthNode } from "./nodes.ts";
import { totpCode, wrongCode } from "../helpers/totp.ts";
import { letTimePass, waitForDisconnect as disconnectedWithin } from "../helpers/wait.ts";

// CLUSTER_ENV sets LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE to 4; a short window lets the test see it end.
const BUDGET = 4;
const WINDOW_SECONDS = 3;

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes), { LOGIN_FAILURES_WINDOW_SECONDS: String(WINDOW_SECONDS) });

async function enableTwoFactor(node: HearthNode, user: ClusterUser): Promise<string> {
  const setup = await api(node, "POST", "/api/v1/auth/2fa/setup", { token: user.token });
  expect(setup.status).toBe(200);
  const enabled = await api(node, "POST", "/api/v1/auth/2fa/enable", { token: user.token, body: { code: totpCode(setup.body.secret), password: user.password } });
  expect(enabled.status).toBe(200);
  return setup.body.secret;
}

const disable = (node: HearthNode, user: ClusterUser, code: string) =>
  api(node, "POST", "/api/v1/auth/2fa/disable", { token: user.token, body: { code, password: user.password } });

/** Across nodes: the disconnect comes through Redis, so allowed longer than in one process. */
const waitForDisconnect = (socket: Awaited<ReturnType<typeof connect>>) => disconnectedWithin(socket, 5000);

describe("the two-factor code budget across nodes", () => {
  test("wrong codes on two nodes spend one budget: then the right code is refused on every node until the window ends", async () => {
    const user = await register(n1);
    const secret = await enableTwoFactor(n1, user);
    const wrong = await Promise.all([
      ...Array.from({ length: BUDGET }, () => disable(n1, user, wrongCode(secret))),
      ...Array.from({ length: BUDGET }, () => disable(n2, user, wrongCode(secret))),
    ]);
    const statuses = wrong.map((res) => res.status);
    expect(statuses.filter((status) => status === 400)).toHaveLength(BUDGET);
    expect(statuses.filter((status) => status === 429)).toHaveLength(BUDGET);

    for (const node of [n1, n2, n3]) {
      const right = await disable(node, user, totpCode(secret));
      expect(right.status).toBe(429);
      expect(right.body).toEqual({ error: "Too many failed attempts for this account, try again later" });
    }
    // Login shares it too.
    const login = await api(n3, "POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password, code: totpCode(secret) } });
    expect(login.status).toBe(429);

    await letTimePass(WINDOW_SECONDS * 1000 + 300, "the budget's window ends on every node");
    const after = await disable(n2, user, totpCode(secret));
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ two_factor_enabled: false });
  });
});

describe("logout across nodes", () => {
  test("a logout on node 1 refuses the token on nodes 2 and 3 at once and disconnects its socket on node 2", async () => {
    const user = await register(n1);
    const second = await api(n2, "POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    const other: string = second.body.token;
    // Node 2 has verified (and cached) the token before the logout.
    expect((await api(n2, "GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(200);
    const socket = await connect(n2, user.token);
    const untouched = await connect(n3, other);
    const gone = waitForDisconnect(socket);

    const res = await api(n1, "POST", "/api/v1/auth/logout", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged_out: true });
    expect((await api(n2, "GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(401);
    expect((await api(n3, "GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(401);
    expect(await gone).toBe("io server disconnect");
    await expect(connect(n3, user.token)).rejects.toThrow("Unauthorized");
    await expect(connect(n2, user.token, { transports: ["polling"] })).rejects.toThrow("Unauthorized");
    // The account's other token, on every node.
    for (const node of [n1, n2, n3]) expect((await api(node, "GET", "/api/v1/users/me/info", { token: other })).status).toBe(200);
    expect(untouched.connected).toBe(true);
  });

  test("logout/all on node 3 revokes every token of the account on every node and disconnects its sockets there", async () => {
    const user = await register(n1);
    const second = await api(n2, "POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    const other: string = second.body.token;
    const sockets = [await connect(n1, user.token), await connect(n2, other, { transports: ["polling"] })];
    const gone = sockets.map(waitForDisconnect);
    expect((await api(n3, "POST", "/api/v1/auth/logout/all", { token: other })).status).toBe(200);
    expect(await Promise.all(gone)).toEqual(["io server disconnect", "io server disconnect"]);
    for (const node of [n1, n2, n3]) {
      expect((await api(node, "GET", "/api/v1/users/me/info", { token: user.token })).status).toBe(401);
      expect((await api(node, "GET", "/api/v1/users/me/info", { token: other })).status).toBe(401);
    }
  });
});
