import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { apiFrom } from "../helpers/from-address.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * Issue 39, point 7: Engine.IO sessions that never complete a Socket.IO connect (no token, or a
 * wrong one) are capped per client address and closed a few seconds after their handshake
 * (src/gateway/pending-sessions.ts). Addresses other than 127.0.0.1 are faked through
 * 127.0.0.0/8 (test/helpers/from-address.ts).
 */

const CAP = 5;
const TIMEOUT_MS = 1000;
const HANDSHAKE = "/socket.io/?EIO=4&transport=polling";

let server: TestServer;
let user: TestUser;
beforeAll(async () => {
  // A small cap and a short timeout, so the test floods and waits little.
  server = await startServer({ gatewayMaxPendingSessionsPerAddress: CAP, gatewayHandshakeTimeoutMs: TIMEOUT_MS });
  user = await server.register();
});
afterAll(() => server.stop());

/** A polling handshake from `from`: the status, and the session id when one was opened. */
async function handshake(from: string): Promise<{ status: number; sid?: string; res: Awaited<ReturnType<typeof apiFrom>> }> {
  const res = await apiFrom(server.url, from, "GET", HANDSHAKE);
  if (res.status !== 200) return { status: res.status, res };
  return { status: 200, sid: (JSON.parse(String(res.body).slice(1)) as { sid: string }).sid, res };
}

const poll = (from: string, sid: string) => apiFrom(server.url, from, "GET", `${HANDSHAKE}&sid=${sid}`);

/** Until the server's timeout closes the waiting sessions: a refused handshake opens none, so retrying does not add to them. */
const admittedAgain = (attempt: () => Promise<number>) =>
  eventually(async () => (await attempt()) === 200, "a handshake admitted once the waiting sessions are closed", { timeoutMs: TIMEOUT_MS + 3000, intervalMs: 50 });

describe("Engine.IO sessions without a connect", () => {
  test("past the cap one address is refused with 429 while another address, and a client with a token, still connect", async () => {
    const flood = await Promise.all(Array.from({ length: CAP + 15 }, () => handshake("127.0.0.2")));
    expect(flood.filter((h) => h.status === 200)).toHaveLength(CAP);
    const refused = flood.filter((h) => h.status === 429);
    expect(refused).toHaveLength(15);
    expectError(refused[0]!.res, 429, `Too many gateway sessions waiting to connect from this address (at most ${CAP}); retry in a few seconds`);
    expect(refused[0]!.res.headers.get("retry-after")).toBe("1");
    expect((await handshake("127.0.0.3")).status).toBe(200);
    const socket = await server.connect(user.token, { transports: ["polling"] });
    expect(socket.connected).toBe(true);
    socket.close();
  });

  test("a session that never connects is closed after the timeout, and its address may open sessions again", async () => {
    const opened = await Promise.all(Array.from({ length: CAP }, () => handshake("127.0.0.4")));
    expect(opened.map((h) => h.status)).toEqual(Array(CAP).fill(200));
    expect((await handshake("127.0.0.4")).status).toBe(429);
    await admittedAgain(async () => (await handshake("127.0.0.4")).status);
    // Each closes its own timeout after its handshake, and under load the handshakes spread out:
    // one may still be open when the first has made room, and a poll of it then ends with its close.
    for (const { sid } of opened) {
      const closed = await eventually(
        async () => {
          const res = await poll("127.0.0.4", sid!);
          return res.status === 400 ? res : null;
        },
        "the session closed",
        { timeoutMs: TIMEOUT_MS + 5000, intervalMs: 50 },
      );
      expect(closed.body).toEqual({ code: 1, message: "Session ID unknown" });
    }
  });

  test("sessions that connect with a token stop counting: more than the cap connect one after the other from one address", async () => {
    const sockets = [];
    for (let i = 0; i < CAP + 3; i++) sockets.push(await server.connect(user.token, { transports: ["polling"] }));
    expect(sockets.every((s) => s.connected)).toBe(true);
    for (const s of sockets) s.close();
  });

  test("a session whose connect is refused (a wrong token) counts until it closes", async () => {
    // Raw Engine.IO polling from 127.0.0.1: the handshake, a CONNECT with a wrong token, the refusal.
    const sids: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const open = await fetch(server.url + HANDSHAKE);
      const sid = (JSON.parse((await open.text()).slice(1)) as { sid: string }).sid;
      const sent = await fetch(`${server.url}${HANDSHAKE}&sid=${sid}`, { method: "POST", headers: { "content-type": "text/plain;charset=UTF-8" }, body: '40{"token":"not-a-token"}' });
      expect(await sent.text()).toBe("ok");
      expect(await (await fetch(`${server.url}${HANDSHAKE}&sid=${sid}`)).text()).toBe('44{"message":"Unauthorized"}');
      sids.push(sid);
    }
    // 127.0.0.1 holds CAP waiting sessions now: the next handshake from there is refused...
    expect((await fetch(server.url + HANDSHAKE)).status).toBe(429);
    // ...until they are closed.
    await admittedAgain(async () => (await fetch(server.url + HANDSHAKE)).status);
    expect((await fetch(`${server.url}${HANDSHAKE}&sid=${sids[0]}`)).status).toBe(400);
  });
});

describe("configuration", () => {
  test("GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS and GATEWAY_HANDSHAKE_TIMEOUT_MS: defaults 50 and 10 s, validated", () => {
    expect(loadConfig({})).toMatchObject({ gatewayMaxPendingSessionsPerAddress: 50, gatewayHandshakeTimeoutMs: 10_000 });
    expect(loadConfig({ GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS: "500", GATEWAY_HANDSHAKE_TIMEOUT_MS: "3000" })).toMatchObject({
      gatewayMaxPendingSessionsPerAddress: 500,
      gatewayHandshakeTimeoutMs: 3000,
    });
    expect(() => loadConfig({ GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_HANDSHAKE_TIMEOUT_MS: "10" })).toThrow("GATEWAY_HANDSHAKE_TIMEOUT_MS must be at least 500");
  });
});
