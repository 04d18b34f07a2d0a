/**
 * The member list's pages and search (`GET /api/v1/servers/:id/members?limit=&after=&query=`,
 * and the same on Bot REST), one member (`GET /api/v1/servers/:id/members/:userId` and Bot
 * REST's), and the stored member count through every
 * way members come and go (docs/servers.md, "Members").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addBot, createBot, type TestBot } from "../helpers/bots.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
/** The first human account: the platform administrator (the admin server view). */
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.register();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const MEMBER_KEYS = ["avatar", "custom_status", "is_bot", "joined_at", "role", "roles", "status", "timeout_until", "user_id", "username"];
const LIMIT_ERROR = "limit: must be a whole number between 1 and 1000";
const SEARCH_LIMIT_ERROR = "limit: must be a whole number between 1 and 100";

const members = (user: { token: string }, serverId: string, query = "") =>
  server.api("GET", `/api/v1/servers/${serverId}/members${query}`, { token: user.token });
const botMembers = (bot: TestBot, serverId: string, query = "") =>
  server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/members${query}`, { token: bot.token });

/** A short tag of this run, so usernames made from it start with something no other user's does. */
let tags = 0;
const newTag = () => `t${process.pid.toString(36)}${(++tags).toString(36)}${Math.random().toString(36).slice(2, 5)}`;

/** Registers `names` (each prefixed by nothing: pass whole usernames) and adds them to the server. */
async function membersNamed(serverId: string, names: string[]): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (const name of names) {
    const user = await server.register(name);
    await addMember(server, serverId, user);
    users.push(user);
  }
  return users;
}

/** Every page of `?limit=` (following `after`), and the pages' sizes. */
async function allPages(user: { token: string }, serverId: string, limit: number) {
  const pages: any[][] = [];
  let after: string | null = null;
  for (;;) {
    const res = await members(user, serverId, `?limit=${limit}${after ? `&after=${after}` : ""}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (res.body.length < limit) return pages;
    after = res.body.at(-1).user_id;
  }
}

describe("GET /api/v1/servers/:id/members: pages", () => {
  test("no limit: every member in the order they joined, as the spec's clients read it", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const [a, b] = await membersNamed(serverId, [`${newTag()}a`, `${newTag()}b`]);
    const res = await members(owner, serverId);
    expect(res.status).toBe(200);
    expect(res.body.map((m: any) => m.user_id)).toEqual([owner.id, a!.id, b!.id]);
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    expect(res.body[0]).toMatchObject({ user_id: owner.id, username: owner.username, role: "owner", roles: [], is_bot: 0, timeout_until: null });
  });

  test("limit: pages by user id, each entry exactly the full list's, `after` the keyset", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    await membersNamed(serverId, Array.from({ length: 6 }, () => newTag()));
    const bot = await addBot(server, owner, serverId);
    const helper = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "helper" } });
    const full = (await members(owner, serverId)).body as any[];
    const someone = full[3];
    expect((await server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: someone.user_id, roleId: helper.body.id } })).status).toBe(200);
    const fullNow = (await members(owner, serverId)).body as any[];
    expect(fullNow).toHaveLength(8);
    const byId = [...fullNow].sort((x, y) => (x.user_id < y.user_id ? -1 : 1));

    const pages = await allPages(owner, serverId, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
    expect(pages.flat()).toEqual(byId);
    expect(pages.flat().find((m) => m.user_id === someone.user_id).roles).toEqual([helper.body.id]);
    expect(pages.flat().find((m) => m.user_id === bot.botUserId)).toMatchObject({ is_bot: 1, username: bot.name });

    // `after` is a position, not a member: any user id works, a non-member's too.
    const middle = byId[4].user_id as string;
    expect((await members(owner, serverId, `?limit=2&after=${middle}`)).body).toEqual(byId.slice(5, 7));
    expect((await members(owner, serverId, "?limit=2&after=00000000-0000-0000-0000-000000000000")).body).toEqual(byId.slice(0, 2));
    expect((await members(owner, serverId, "?limit=2&after=ffffffff-ffff-ffff-ffff-ffffffffffff")).body).toEqual([]);
    // `after` alone: the rest, up to 1000; past the last member: [].
    expect((await members(owner, serverId, `?after=${byId[1].user_id}`)).body).toEqual(byId.slice(2));
    expect((await members(owner, serverId, `?limit=5&after=${byId[7].user_id}`)).body).toEqual([]);
    // An upper-case id is the same id.
    expect((await members(owner, serverId, `?limit=2&after=${middle.toUpperCase()}`)).body).toEqual(byId.slice(5, 7));
    // The bounds themselves.
    expect((await members(owner, serverId, "?limit=1")).body).toEqual(byId.slice(0, 1));
    expect((await members(owner, serverId, "?limit=1000")).body).toEqual(byId);
  });

  test("bad limit or after: 400 naming the field", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    for (const limit of ["0", "1001", "-1", "1.5", "abc", "", "1e3"]) {
      expectError(await members(owner, serverId, `?limit=${limit}`), 400, LIMIT_ERROR);
    }
    for (const after of ["nope", "", "123", `${UNKNOWN}x`]) {
      expectError(await members(owner, serverId, `?limit=10&after=${after}`), 400, "after: must be a user id");
    }
  });

  test("401 without a token, 403 for a non-member, 404 for an unknown server", async () => {
    const owner = await server.register();
    const outsider = await server.register();
    const serverId = await createServer(server, owner);
    expectError(await server.api("GET", `/api/v1/servers/${serverId}/members?limit=10`), 401);
    expectError(await members(outsider, serverId, "?limit=10"), 403, "You are not a member of this server");
    expectError(await members(outsider, serverId, "?query=a"), 403, "You are not a member of this server");
    expectError(await members(owner, UNKNOWN, "?limit=10"), 404, "Server not found");
    expectError(await members(owner, "not-a-uuid", "?limit=10"), 404, "Server not found");
    // The query is checked before the server is looked up.
    expectError(await members(outsider, serverId, "?limit=0"), 400, LIMIT_ERROR);
    expectError(await members(owner, UNKNOWN, "?after=x"), 400, "after: must be a user id");
  });
});

describe("GET /api/v1/servers/:id/members?query=: the member search", () => {
  test("a username prefix, A-Z in either case, ordered by name; `_` and `%` are letters like any other", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const tag = newTag();
    const [alpha, alpine, beta, under, plain] = await membersNamed(serverId, [`${tag}Alpha`, `${tag}ALPINE`, `${tag}beta`, `${tag}_x`, `${tag}ax`]);
    // Someone with a matching name who is not a member is never found.
    await server.register(`${tag}AlphaOut`);
    const found = async (query: string, limit = "") => {
      const res = await members(owner, serverId, `?query=${encodeURIComponent(query)}${limit}`);
      expect(res.status).toBe(200);
      for (const m of res.body) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
      return res.body.map((m: any) => m.username);
    };
    expect(await found(`${tag}al`)).toEqual([alpha!.username, alpine!.username]);
    expect(await found(`${tag.toUpperCase()}AL`)).toEqual([alpha!.username, alpine!.username]);
    expect(await found(`${tag}alpi`)).toEqual([alpine!.username]);
    expect(await found(`${tag}ALPHA`)).toEqual([alpha!.username]);
    // By the lowered name: "_" (0x5f) before "a", "al" before "ax".
    expect(await found(`${tag}`)).toEqual([under!.username, alpha!.username, alpine!.username, plain!.username, beta!.username]);
    expect(await found(`${tag}_`)).toEqual([under!.username]);
    expect(await found(`${tag}%`)).toEqual([]);
    expect(await found(`${tag}alphab`)).toEqual([]);
    expect(await found(`${tag}`, "&limit=2")).toEqual([under!.username, alpha!.username]);
    // The entries are the full list's.
    const full = (await members(owner, serverId)).body as any[];
    const res = await members(owner, serverId, `?query=${tag}be`);
    expect(res.body).toEqual([full.find((m) => m.user_id === beta!.id)]);
  });

  test("bots by their name; a rename is found by the new name at once, users' and bots' alike", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const tag = newTag();
    const [member] = await membersNamed(serverId, [`${tag}old`]);
    const bot = await addBot(server, owner, serverId, `${tag}Bot Helper`);
    const names = async (query: string) => ((await members(owner, serverId, `?query=${encodeURIComponent(query)}`)).body as any[]).map((m) => m.user_id);
    expect(await names(`${tag}bot h`)).toEqual([bot.botUserId]);
    expect((await members(owner, serverId, `?query=${tag}b`)).body[0]).toMatchObject({ is_bot: 1, role: "member" });

    expect((await server.api("PUT", "/api/v1/users/me/profile", { token: member!.token, body: { username: `${tag}New` } })).status).toBe(200);
    expect(await names(`${tag}old`)).toEqual([]);
    expect(await names(`${tag}new`)).toEqual([member!.id]);
    expect((await server.api("PUT", `/api/v1/oauth2/applications/${bot.appId}`, { token: owner.token, body: { name: `${tag}Renamed` } })).status).toBe(200);
    expect(await names(`${tag}bot`)).toEqual([]);
    expect(await names(`${tag}ren`)).toEqual([bot.botUserId]);
  });

  test("letters past A-Z match in the case they are written in, on both databases", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const tag = newTag();
    const bot = await addBot(server, owner, serverId, `Élan${tag}`);
    const ids = async (query: string) => ((await members(owner, serverId, `?query=${encodeURIComponent(query)}`)).body as any[]).map((m) => m.user_id);
    expect(await ids(`Élan${tag.toUpperCase()}`)).toEqual([bot.botUserId]);
    // Composed or not, é is one letter (names are stored composed, NFC).
    expect(await ids(`E\u0301lan`)).toEqual([bot.botUserId]);
    expect(await ids(`élan`)).toEqual([]);
  });

  test("limit 1-100 with a query (default 100), query 1-32 characters, never with after", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    expect((await members(owner, serverId, `?query=${owner.username}&limit=100`)).body.map((m: any) => m.user_id)).toEqual([owner.id]);
    expectError(await members(owner, serverId, "?query=a&limit=101"), 400, SEARCH_LIMIT_ERROR);
    expectError(await members(owner, serverId, "?query=a&limit=1000"), 400, SEARCH_LIMIT_ERROR);
    expectError(await members(owner, serverId, "?query=a&limit=0"), 400, LIMIT_ERROR);
    expectError(await members(owner, serverId, "?query="), 400, "query: must be 1-32 characters");
    expectError(await members(owner, serverId, `?query=${"a".repeat(33)}`), 400, "query: must be 1-32 characters");
    expect((await members(owner, serverId, `?query=${"a".repeat(32)}`)).body).toEqual([]);
    expectError(await members(owner, serverId, `?query=a&after=${UNKNOWN}`), 400, "after: cannot be used with query");
    expectError(await server.api("GET", `/api/v1/servers/${serverId}/members?query=a`), 401);
    expectError(await members(owner, UNKNOWN, "?query=a"), 404, "Server not found");
  });

  test("the default is 100 results", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const tag = newTag();
    // Straight through the store: 101 accounts over REST would be slow for what it shows.
    const store = server.app.store;
    for (let i = 0; i < 101; i++) {
      const created = await store.users.create({ username: `${tag}${i.toString().padStart(3, "0")}`, email: null, passwordHash: null, isBot: false });
      if (!created.ok) throw new Error("create failed");
      await store.members.add(serverId, created.user.id);
    }
    const res = await members(owner, serverId, `?query=${tag}`);
    expect(res.body).toHaveLength(100);
    expect(res.body[0].username).toBe(`${tag}000`);
    expect(res.body[99].username).toBe(`${tag}099`);
  });
});

describe("Bot REST: the same list, and one member", () => {
  test("GET .../members takes the same limit, after and query; GET .../members/:userId is one entry", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const tag = newTag();
    const [member] = await membersNamed(serverId, [`${tag}one`, `${tag}two`]);
    const bot = await addBot(server, owner, serverId);
    const full = (await botMembers(bot, serverId)).body as any[];
    expect(full).toEqual((await members(owner, serverId)).body);
    const byId = [...full].sort((x, y) => (x.user_id < y.user_id ? -1 : 1));
    expect((await botMembers(bot, serverId, "?limit=2")).body).toEqual(byId.slice(0, 2));
    expect((await botMembers(bot, serverId, `?limit=2&after=${byId[1].user_id}`)).body).toEqual(byId.slice(2, 4));
    expect((await botMembers(bot, serverId, `?query=${tag}o`)).body).toEqual([full.find((m) => m.user_id === member!.id)]);
    expectError(await botMembers(bot, serverId, "?limit=1001"), 400, LIMIT_ERROR);
    expectError(await botMembers(bot, serverId, "?query=a&limit=101"), 400, SEARCH_LIMIT_ERROR);

    for (const m of full) {
      const one = await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/members/${m.user_id}`, { token: bot.token });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(m);
    }
    const upper = await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/members/${member!.id.toUpperCase()}`, { token: bot.token });
    expect(upper.body.user_id).toBe(member!.id);
    const outsider = await server.register();
    for (const id of [outsider.id, UNKNOWN, "not-a-uuid"]) {
      expectError(await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/members/${id}`, { token: bot.token }), 404, "Member not found");
    }
    const elsewhere = await createServer(server, owner);
    expectError(await server.api("GET", `/api/v1/oauth2/bot/servers/${elsewhere}/members/${owner.id}`, { token: bot.token }), 403, "You are not a member of this server");
    expectError(await botMembers(bot, elsewhere, "?limit=5"), 403, "You are not a member of this server");
    expectError(await botMembers(bot, UNKNOWN, "?limit=5"), 404, "Server not found");
    expectError(await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}/members?limit=5`), 401);
  });
});

describe("GET /api/v1/servers/:id/members/:userId: one member", () => {
  const one = (user: { token: string }, serverId: string, userId: string) =>
    server.api("GET", `/api/v1/servers/${serverId}/members/${userId}`, { token: user.token });

  test("each member's entry is exactly the list's, custom roles and timeout included, for any member", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const [member, other] = await membersNamed(serverId, [`${newTag()}one`, `${newTag()}two`]);
    const bot = await addBot(server, owner, serverId);
    const role = await server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "helper" } });
    expect((await server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: member!.id, roleId: role.body.id } })).status).toBe(200);
    expect((await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: other!.id, duration: 600 } })).status).toBe(200);
    const full = (await members(owner, serverId)).body as any[];
    expect(full).toHaveLength(4);
    // Any member may read any member, themselves included.
    for (const reader of [owner, member!, other!]) {
      for (const m of full) {
        const res = await one(reader, serverId, m.user_id);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(MEMBER_KEYS);
        expect(res.body).toEqual(m);
      }
    }
    expect((await one(owner, serverId, member!.id)).body).toMatchObject({ roles: [role.body.id], role: "member", is_bot: 0 });
    expect((await one(owner, serverId, other!.id)).body.timeout_until).toBeGreaterThan(Date.now() / 1000);
    expect((await one(owner, serverId, bot.botUserId)).body).toMatchObject({ is_bot: 1, username: bot.name });
    // An upper-case id is the same id.
    expect((await one(owner, serverId, member!.id.toUpperCase())).body.user_id).toBe(member!.id);
    // A fresh read: the role taken away is gone at once.
    expect((await server.api("DELETE", `/api/v1/roles/${serverId}/assign/${member!.id}/${role.body.id}`, { token: owner.token })).status).toBe(200);
    expect((await one(owner, serverId, member!.id)).body.roles).toEqual([]);
  });

  test("404 Member not found for a non-member, an unknown or malformed id, and someone who left", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const [leaver] = await membersNamed(serverId, [newTag()]);
    const outsider = await server.register();
    for (const id of [outsider.id, UNKNOWN, "not-a-uuid"]) expectError(await one(owner, serverId, id), 404, "Member not found");
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: leaver!.token })).status).toBe(200);
    expectError(await one(owner, serverId, leaver!.id), 404, "Member not found");
  });

  test("401 without a token, 403 for a non-member caller, 404 for an unknown server", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const outsider = await server.register();
    expectError(await server.api("GET", `/api/v1/servers/${serverId}/members/${owner.id}`), 401);
    // A caller outside the server learns nothing about its members, not even whether one exists.
    expectError(await one(outsider, serverId, owner.id), 403, "You are not a member of this server");
    expectError(await one(outsider, serverId, UNKNOWN), 403, "You are not a member of this server");
    expectError(await one(owner, UNKNOWN, owner.id), 404, "Server not found");
    expectError(await one(owner, "not-a-uuid", owner.id), 404, "Server not found");
  });
});

describe("member_count: stored, and kept by every way members come and go", () => {
  /** The server's membership rows, counted in the database. */
  async function counted(serverId: string): Promise<number> {
    const db = server.app.store.db;
    return (await db.get(db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM server_members WHERE server_id = ?"), serverId))!.n;
  }

  /** Every answer that carries the server's member_count says `n`, and so does the database. */
  async function expectCount(serverId: string, owner: TestUser, n: number, bot?: TestBot) {
    expect(await counted(serverId)).toBe(n);
    expect((await server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).body.member_count).toBe(n);
    const listed = (await server.api("GET", "/api/v1/servers", { token: owner.token })).body as any[];
    expect(listed.find((s) => s.id === serverId).member_count).toBe(n);
    expect((await server.api("GET", `/api/v1/admin/servers/${serverId}`, { token: admin.token })).body.member_count).toBe(n);
    if (bot) expect((await server.api("GET", `/api/v1/oauth2/bot/servers/${serverId}`, { token: bot.token })).body.member_count).toBe(n);
    expect((await members(owner, serverId)).body).toHaveLength(n);
  }

  test("creation, joins, leave, kick, ban, bots added, removed and deleted with their application", async () => {
    const owner = await server.register();
    const created = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Counted" } });
    expect(created.body.member_count).toBe(1);
    const serverId = created.body.id as string;
    await expectCount(serverId, owner, 1);
    const code = ((await server.api("GET", `/api/v1/servers/${serverId}/invites`, { token: owner.token })).body as any[])[0].code;
    const join = async (user: TestUser) => server.api("POST", `/api/v1/servers/join/${code}`, { token: user.token });

    const [a, b, c, d] = [await server.register(), await server.register(), await server.register(), await server.register()];
    for (const [i, user] of [a, b, c, d].entries()) {
      const res = await join(user);
      expect(res.status).toBe(200);
      // The join's answer counts the new member.
      expect(res.body.member_count).toBe(i + 2);
    }
    await expectCount(serverId, owner, 5);
    // Joining again changes nothing.
    expect((await join(a)).body.member_count).toBe(5);
    await expectCount(serverId, owner, 5);

    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: a.token })).status).toBe(200);
    await expectCount(serverId, owner, 4);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${b.id}`, { token: owner.token })).status).toBe(200);
    await expectCount(serverId, owner, 3);
    expect((await server.api("POST", `/api/v1/servers/${serverId}/bans`, { token: owner.token, body: { targetUserId: c.id } })).status).toBe(201);
    await expectCount(serverId, owner, 2);
    // Banning someone who is not a member, and kicking someone gone, change nothing.
    const stranger = await server.register();
    expect((await server.api("POST", `/api/v1/servers/${serverId}/bans`, { token: owner.token, body: { targetUserId: stranger.id } })).status).toBe(201);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${b.id}`, { token: owner.token })).status).toBe(404);
    await expectCount(serverId, owner, 2);

    const bot = await addBot(server, owner, serverId);
    await expectCount(serverId, owner, 3, bot);
    expect((await server.api("DELETE", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    await expectCount(serverId, owner, 2);

    // A bot in two servers, deleted with its application: both count one less.
    const other = await createServer(server, owner, "Other");
    const doomed = await createBot(server, owner);
    for (const id of [serverId, other]) {
      expect((await server.api("POST", `/api/v1/oauth2/applications/${doomed.appId}/servers/${id}`, { token: owner.token, body: {} })).status).toBe(200);
    }
    await expectCount(serverId, owner, 3, doomed);
    await expectCount(other, owner, 2, doomed);
    expect((await server.api("DELETE", `/api/v1/oauth2/applications/${doomed.appId}`, { token: owner.token })).status).toBe(200);
    await expectCount(serverId, owner, 2);
    await expectCount(other, owner, 1);
  });

  test("concurrent joins and leaves: the count is exactly the rows", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    const code = ((await server.api("GET", `/api/v1/servers/${serverId}/invites`, { token: owner.token })).body as any[])[0].code;
    const users = await Promise.all(Array.from({ length: 12 }, () => server.register()));
    await Promise.all(users.map((user) => server.api("POST", `/api/v1/servers/join/${code}`, { token: user.token })));
    await expectCount(serverId, owner, 13);
    await Promise.all(users.slice(0, 7).map((user) => server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: user.token })));
    await expectCount(serverId, owner, 6);
  });
});
