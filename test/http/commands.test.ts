import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { createBot, type TestBot } from "../helpers/bots.ts";
import { addMember, createServer } from "../helpers/community.ts";

let s: TestServer;
let owner: TestUser; // owns `bot` and the server
let member: TestUser; // plain member of the server
let stranger: TestUser; // owns `otherBot`, in no server
let bot: TestBot; // added to the server by its owner
let otherBot: TestBot; // a member of the server too
let outsideBot: TestBot; // owned by `owner`, not in the server
let serverId: string;

const MISSING = "0190a3b4-0000-7000-8000-000000000000";

beforeAll(async () => {
  s = await startServer();
  [owner, member, stranger] = await Promise.all([s.register(), s.register(), s.register()]);
  bot = await createBot(s, owner, "Musicbot");
  otherBot = await createBot(s, stranger, "Otherbot");
  outsideBot = await createBot(s, owner, "Outsidebot");
  serverId = await createServer(s, owner);
  await addMember(s, serverId, member);
  const added = await s.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: {} });
  expect(added.status).toBeLessThan(300);
  await s.app.store.members.add(serverId, otherBot.botUserId, "member");
});
afterAll(() => s.stop());

const bulk = (token: string | null, body: unknown) => s.api("POST", "/api/v1/oauth2/commands", { token, body });
const appCommands = (appId: string) => `/api/v1/oauth2/applications/${appId}/commands`;
const serverCommands = (id: string) => `/api/v1/oauth2/servers/${id}/commands`;
const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

describe("POST /api/v1/oauth2/commands (bulk, bot token)", () => {
  test("stores the commands normalized and answers them", async () => {
    const res = await bulk(bot.token, [
      { name: "Play", description: "Play a song", options: [{ name: "Query", type: "string", required: true }] },
      { name: "skip", description: "Skip" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      application_id: bot.appId,
      server_id: null,
      name: "play",
      description: "Play a song",
      options: [{ name: "query", description: "", type: 3, required: true }],
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect(res.body[1]).toMatchObject({ name: "skip", description: "Skip", options: [] });
  });

  test("replaces every global command: kept names keep their id, missing ones go", async () => {
    const first = await bulk(bot.token, [{ name: "a" }, { name: "b" }]);
    const aId = first.body.find((c: any) => c.name === "a").id;
    const second = await bulk(bot.token, [{ name: "a", description: "new" }, { name: "c" }]);
    expect(second.status).toBe(200);
    const list = await s.api("GET", appCommands(bot.appId), { token: owner.token });
    expect(list.body.map((c: any) => c.name)).toEqual(["a", "c"]);
    expect(list.body[0]).toMatchObject({ id: aId, description: "new" });
  });

  test("an empty array clears the global commands", async () => {
    expect((await bulk(outsideBot.token, [{ name: "x" }])).status).toBe(200);
    expect((await bulk(outsideBot.token, [])).body).toEqual([]);
    expect((await s.api("GET", appCommands(outsideBot.appId), { token: owner.token })).body).toEqual([]);
  });

  test("leaves server-scoped commands alone", async () => {
    const scoped = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "local", server_id: serverId } });
    expect(scoped.status).toBe(201);
    await bulk(bot.token, [{ name: "play" }]);
    const list = await s.api("GET", appCommands(bot.appId), { token: bot.token });
    expect(list.body.map((c: any) => [c.name, c.server_id])).toEqual([["play", null], ["local", serverId]]);
    await s.api("DELETE", `${appCommands(bot.appId)}/${scoped.body.id}`, { token: owner.token });
  });

  test("50 commands are fine, 51 are 400 and change nothing", async () => {
    expect((await bulk(outsideBot.token, many(50, (i) => ({ name: `c${i}` })))).status).toBe(200);
    const res = await bulk(outsideBot.token, many(51, (i) => ({ name: `d${i}` })));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("50");
    expect((await s.api("GET", appCommands(outsideBot.appId), { token: owner.token })).body).toHaveLength(50);
  });

  test("a name twice in the array is 409, also after lowercasing, and nothing changes", async () => {
    await bulk(outsideBot.token, [{ name: "keep" }]);
    const res = await bulk(outsideBot.token, [{ name: "dup" }, { name: "DUP" }]);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("Duplicate command name: dup");
    expect((await s.api("GET", appCommands(outsideBot.appId), { token: owner.token })).body.map((c: any) => c.name)).toEqual(["keep"]);
  });

  test("one bad command refuses the whole array (atomic)", async () => {
    await bulk(outsideBot.token, [{ name: "keep" }]);
    const res = await bulk(outsideBot.token, [{ name: "fine" }, { name: "Bad Name" }]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("1.name: must be 1-32 letters, digits, _ or -");
    expect((await s.api("GET", appCommands(outsideBot.appId), { token: owner.token })).body.map((c: any) => c.name)).toEqual(["keep"]);
  });

  test.each([
    ["not an array", { name: "x" }, "body: must be an array of commands"],
    ["an entry not an object", ["x"], "0: must be a JSON object"],
    ["missing name", [{}], "0.name: is required"],
    ["name with a space", [{ name: "Bad Name" }], "0.name: must be 1-32 letters, digits, _ or -"],
    ["33-character name", [{ name: "a".repeat(33) }], "0.name: must be 1-32 letters, digits, _ or -"],
    ["description 101", [{ name: "x", description: "d".repeat(101) }], "0.description: must be at most 100 characters"],
    ["option named __bot", [{ name: "x", options: [{ name: "__bot" }] }], "0.options.0.name: __bot is reserved"],
    ["26 options", [{ name: "x", options: many(26, (i) => ({ name: `o${i}` })) }], "0.options: at most 25 options"],
    ["26 choices", [{ name: "x", options: [{ name: "o", choices: many(26, (i) => ({ name: `c${i}`, value: i })) }] }], "0.options.0.choices: at most 25 choices"],
    ["duplicate option names", [{ name: "x", options: [{ name: "o" }, { name: "O" }] }], "0.options: duplicate option name o"],
  ])("400: %s", async (_label, body, error) => {
    const res = await bulk(outsideBot.token, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  test("invalid JSON is 400", async () => {
    const res = await s.api("POST", "/api/v1/oauth2/commands", {
      token: bot.token,
      raw: "[{",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe("string");
  });

  test("401 without a token, 403 with a user token", async () => {
    expect((await bulk(null, [])).status).toBe(401);
    const res = await bulk(owner.token, []);
    expect(res.status).toBe(403);
    expect(typeof res.body.error).toBe("string");
  });
});

describe("option normalization (through the API)", () => {
  test("max_length is clamped to 1-6000", async () => {
    const res = await bulk(outsideBot.token, [
      { name: "clamp", options: [{ name: "low", type: 3, max_length: 0 }, { name: "high", type: 3, max_length: 9000 }, { name: "mid", max_length: 50 }] },
    ]);
    expect(res.status).toBe(200);
    expect(res.body[0].options.map((o: any) => o.max_length)).toEqual([1, 6000, 50]);
  });

  test("type aliases become codes; unknown and missing become 3", async () => {
    const types = ["string", "int", "bool", "member", "channel", "role", "mentionable", "double", "weird", undefined, 4, 99];
    const res = await bulk(outsideBot.token, [{ name: "types", options: types.map((type, i) => ({ name: `o${i}`, type })) }]);
    expect(res.status).toBe(200);
    expect(res.body[0].options.map((o: any) => o.type)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 3, 3, 4, 3]);
  });

  test("names are lowercased; autocomplete is stored as true; choices and bounds kept", async () => {
    const res = await bulk(outsideBot.token, [
      {
        name: "MiXeD",
        options: [
          { name: "Level", type: "integer", required: true, min_value: 1, max_value: 5, autocomplete: "yes" },
          { name: "Mode", choices: [{ name: "Easy", value: "e" }] },
          { name: "Where", type: "channel", channel_types: [0, 2] },
        ],
      },
    ]);
    expect(res.status).toBe(200);
    expect(res.body[0].name).toBe("mixed");
    expect(res.body[0].options).toEqual([
      { name: "level", description: "", type: 4, required: true, autocomplete: true, min_value: 1, max_value: 5 },
      { name: "mode", description: "", type: 3, required: false, choices: [{ name: "Easy", value: "e" }] },
      { name: "where", description: "", type: 7, required: false, channel_types: [0, 2] },
    ]);
  });
});

describe("/api/v1/oauth2/applications/:appId/commands", () => {
  test("owner creates (201), lists, updates and deletes a global command", async () => {
    const created = await s.api("POST", appCommands(outsideBot.appId), {
      token: owner.token,
      body: { name: "Greet", description: "Say hi", options: [{ name: "who", type: "user" }] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ application_id: outsideBot.appId, server_id: null, name: "greet", description: "Say hi" });
    const id = created.body.id;

    const listed = await s.api("GET", appCommands(outsideBot.appId), { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body.some((c: any) => c.id === id)).toBe(true);

    const updated = await s.api("PUT", `${appCommands(outsideBot.appId)}/${id}`, { token: owner.token, body: { name: "Hello" } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, name: "hello", description: "Say hi", options: [{ name: "who", type: 6 }] });

    const deleted = await s.api("DELETE", `${appCommands(outsideBot.appId)}/${id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expect((await s.api("DELETE", `${appCommands(outsideBot.appId)}/${id}`, { token: owner.token })).status).toBe(404);
  });

  test("the application's own bot token works too", async () => {
    const created = await s.api("POST", appCommands(outsideBot.appId), { token: outsideBot.token, body: { name: "botmade" } });
    expect(created.status).toBe(201);
    const listed = await s.api("GET", appCommands(outsideBot.appId), { token: outsideBot.token });
    expect(listed.body.some((c: any) => c.name === "botmade")).toBe(true);
    expect((await s.api("DELETE", `${appCommands(outsideBot.appId)}/${created.body.id}`, { token: outsideBot.token })).status).toBe(200);
  });

  test("409 on a create or rename into a taken name in the same scope", async () => {
    await s.api("POST", appCommands(outsideBot.appId), { token: owner.token, body: { name: "one" } });
    const two = await s.api("POST", appCommands(outsideBot.appId), { token: owner.token, body: { name: "two" } });
    const again = await s.api("POST", appCommands(outsideBot.appId), { token: owner.token, body: { name: "ONE" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Duplicate command name: one");
    const rename = await s.api("PUT", `${appCommands(outsideBot.appId)}/${two.body.id}`, { token: owner.token, body: { name: "one" } });
    expect(rename.status).toBe(409);
    // Renaming to its own name is no conflict.
    expect((await s.api("PUT", `${appCommands(outsideBot.appId)}/${two.body.id}`, { token: owner.token, body: { name: "two" } })).status).toBe(200);
  });

  test("the same name may exist once globally and once per server", async () => {
    await bulk(bot.token, [{ name: "same" }]);
    const scoped = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "same", server_id: serverId } });
    expect(scoped.status).toBe(201);
    expect(scoped.body.server_id).toBe(serverId);
    const again = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "same", server_id: serverId } });
    expect(again.status).toBe(409);
    await s.api("DELETE", `${appCommands(bot.appId)}/${scoped.body.id}`, { token: owner.token });
  });

  test("server scope: owner only, and only as admin/owner of that server", async () => {
    const viaBot = await s.api("POST", appCommands(bot.appId), { token: bot.token, body: { name: "scoped", server_id: serverId } });
    expect(viaBot.status).toBe(403);
    const strangersServer = await createServer(s, stranger, "Elsewhere");
    const notMember = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "scoped", server_id: strangersServer } });
    expect(notMember.status).toBe(403);
    await addMember(s, strangersServer, owner, "member");
    const plainMember = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "scoped", server_id: strangersServer } });
    expect(plainMember.status).toBe(403);
    await s.app.store.members.setBuiltinRole(strangersServer, owner.id, "admin");
    const asAdmin = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "scoped", server_id: strangersServer } });
    expect(asAdmin.status).toBe(201);
    const missing = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "scoped", server_id: MISSING } });
    expect(missing.status).toBe(404);
    const badType = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "scoped", server_id: 5 } });
    expect(badType.status).toBe(400);
    // The scope cannot change, and the bot cannot edit or delete a server command.
    const moved = await s.api("PUT", `${appCommands(bot.appId)}/${asAdmin.body.id}`, { token: owner.token, body: { server_id: null } });
    expect(moved.status).toBe(400);
    expect((await s.api("DELETE", `${appCommands(bot.appId)}/${asAdmin.body.id}`, { token: bot.token })).status).toBe(403);
    expect((await s.api("DELETE", `${appCommands(bot.appId)}/${asAdmin.body.id}`, { token: owner.token })).status).toBe(200);
  });

  test("400 on bad input", async () => {
    const url = appCommands(outsideBot.appId);
    const cases: [unknown, string][] = [
      [{ name: "Bad Name" }, "name: must be 1-32 letters, digits, _ or -"],
      [{ name: "x".repeat(33) }, "name: must be 1-32 letters, digits, _ or -"],
      [{ description: "no name" }, "name: is required"],
      [{ name: "x", description: "d".repeat(101) }, "description: must be at most 100 characters"],
      [{ name: "x", options: [{ name: "__bot" }] }, "options.0.name: __bot is reserved"],
      [{ name: "x", options: many(26, (i) => ({ name: `o${i}` })) }, "options: at most 25 options"],
      [{ name: "x", options: [{ name: "o", description: "d".repeat(101) }] }, "options.0.description: must be at most 100 characters"],
      [[{ name: "x" }], "body: must be a JSON object"],
    ];
    for (const [body, error] of cases) {
      const res = await s.api("POST", url, { token: owner.token, body });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
    const created = await s.api("POST", url, { token: owner.token, body: { name: "valid" } });
    const put = await s.api("PUT", `${url}/${created.body.id}`, { token: owner.token, body: { options: "nope" } });
    expect(put.status).toBe(400);
    expect(put.body.error).toBe("options: must be an array");
  });

  test("401 without a token", async () => {
    expect((await s.api("GET", appCommands(bot.appId))).status).toBe(401);
    expect((await s.api("POST", appCommands(bot.appId), { body: { name: "x" } })).status).toBe(401);
  });

  test("404 for someone else's application, another bot, a missing app or command", async () => {
    expect((await s.api("GET", appCommands(bot.appId), { token: stranger.token })).status).toBe(404);
    expect((await s.api("GET", appCommands(bot.appId), { token: otherBot.token })).status).toBe(404);
    expect((await s.api("POST", appCommands(bot.appId), { token: stranger.token, body: { name: "x" } })).status).toBe(404);
    expect((await s.api("GET", appCommands(MISSING), { token: owner.token })).status).toBe(404);
    expect((await s.api("GET", appCommands("not-a-uuid"), { token: owner.token })).status).toBe(404);
    expect((await s.api("PUT", `${appCommands(bot.appId)}/${MISSING}`, { token: owner.token, body: { name: "x" } })).status).toBe(404);
    expect((await s.api("DELETE", `${appCommands(bot.appId)}/not-a-uuid`, { token: owner.token })).status).toBe(404);
    // A command of another application is not reachable through this one.
    const mine = await s.api("POST", appCommands(outsideBot.appId), { token: owner.token, body: { name: "mine" } });
    expect((await s.api("PUT", `${appCommands(bot.appId)}/${mine.body.id}`, { token: owner.token, body: { name: "y" } })).status).toBe(404);
  });
});

describe("GET /api/v1/oauth2/servers/:serverId/commands", () => {
  test("global commands of member bots plus server-scoped ones, with bot fields", async () => {
    await bulk(bot.token, [{ name: "play", description: "Play" }, { name: "shared" }]);
    await bulk(otherBot.token, [{ name: "shared", description: "Other's" }]);
    await bulk(outsideBot.token, [{ name: "invisible" }]);
    const scoped = await s.api("POST", appCommands(bot.appId), { token: owner.token, body: { name: "local", server_id: serverId } });

    const res = await s.api("GET", serverCommands(serverId), { token: member.token });
    expect(res.status).toBe(200);
    const rows = res.body.map((c: any) => [c.name, c.bot_id, c.server_id]);
    expect(rows).toEqual([
      ["local", bot.botUserId, serverId],
      ["play", bot.botUserId, null],
      ["shared", bot.botUserId, null],
      ["shared", otherBot.botUserId, null],
    ]);
    expect(res.body[1]).toEqual({
      id: expect.any(String),
      application_id: bot.appId,
      server_id: null,
      name: "play",
      description: "Play",
      options: [],
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      bot_id: bot.botUserId,
      bot_name: "Musicbot",
      bot_avatar: null,
      app_name: "Musicbot",
    });
    // A bot member may list them too.
    expect((await s.api("GET", serverCommands(serverId), { token: bot.token })).status).toBe(200);
    await s.api("DELETE", `${appCommands(bot.appId)}/${scoped.body.id}`, { token: owner.token });
  });

  test("findForInvocation answers every bot with that name", async () => {
    const found = await s.app.store.commands.findForInvocation(serverId, "SHARED");
    expect(found.map((f) => f.botUserId).sort()).toEqual([bot.botUserId, otherBot.botUserId].sort());
    expect(found.every((f) => f.command.name === "shared" && typeof f.command.options === "string")).toBe(true);
    expect(await s.app.store.commands.findForInvocation(serverId, "invisible")).toEqual([]);
  });

  test("401, 403 for a non-member, 404 for a missing server", async () => {
    expect((await s.api("GET", serverCommands(serverId))).status).toBe(401);
    expect((await s.api("GET", serverCommands(serverId), { token: stranger.token })).status).toBe(403);
    expect((await s.api("GET", serverCommands(serverId), { token: outsideBot.token })).status).toBe(403);
    expect((await s.api("GET", serverCommands(MISSING), { token: member.token })).status).toBe(404);
    expect((await s.api("GET", serverCommands("nope"), { token: member.token })).status).toBe(404);
  });
});
