import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot } from "../helpers/bots.ts";
import { addMember, auditEntries, community, createServer } from "../helpers/community.ts";
import { expectError, recordEvents, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";
import { DEFAULT_CAPS, type ResourceCaps } from "../../src/domain/shared/caps.ts";

// Caps lowered so a test needs few creates (their values are configuration: docs/operations.md,
// "Caps"); webhooks and reactions keep the real defaults, which are cheap to reach.
const CAPS: ResourceCaps = {
  ...DEFAULT_CAPS,
  channelsPerServer: 10,
  rolesPerServer: 4,
  invitesPerServer: 4,
  serversPerUser: 10,
  serversPerBot: 3,
  applicationsPerUser: 2,
  groupDmsPerUser: 3,
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ caps: CAPS });
});
afterAll(() => server.stop());

const call = (method: string, path: string, user: TestUser, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user.token, body });
/** What `event` a socket of `user` in the server's room receives from now on. */
async function eventsInServer(user: TestUser, serverId: string, event: string): Promise<unknown[]> {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("server:join", serverId)).toMatchObject({ ok: true });
  return recordEvents(socket, event);
}
const channelCount = async (serverId: string) =>
  (await server.app.store.channels.listByServer(serverId)).length + (await server.app.store.channels.listCategories(serverId)).length;

describe("channels and categories per server", () => {
  const FULL = `This server has reached its limit of ${CAPS.channelsPerServer} channels and categories`;

  test("channels and categories count together; at the cap a create, a category and a duplicate are 400, with no event or audit entry", async () => {
    const { owner, serverId, channelId } = await community(server);
    for (let i = 0; i < 5; i++) expect((await call("POST", `/channels/${serverId}`, owner, { name: `c${i}`, type: "text" })).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await call("POST", `/channels/${serverId}/categories`, owner, { name: `k${i}` })).status).toBe(201);
    expect(await channelCount(serverId)).toBe(10); // general, 5 channels, 4 categories
    const created = await eventsInServer(owner, serverId, "channel:created");
    expectError(await call("POST", `/channels/${serverId}`, owner, { name: "one-more", type: "voice" }), 400, FULL);
    expectError(await call("POST", `/channels/${serverId}/categories`, owner, { name: "one more" }), 400, FULL);
    expectError(await call("POST", `/channels/${channelId}/duplicate`, owner), 400, FULL);
    expect(created).toEqual([]); // and still none once the create below is seen (in order on one socket)
    expect(await channelCount(serverId)).toBe(10);
    expect(await auditEntries(server, serverId, "CHANNEL_CREATE")).toHaveLength(5);
    // Deleting one makes room again.
    const [, spare] = await server.app.store.channels.listByServer(serverId);
    expect((await call("DELETE", `/channels/${spare!.id}`, owner)).status).toBe(200);
    expect((await call("POST", `/channels/${channelId}/duplicate`, owner)).status).toBe(201);
    await until(() => created.length > 0, "channel:created of the duplicate");
    expect(created).toHaveLength(1);
  });

  test("40 concurrent creates with room for 5 leave exactly the cap", async () => {
    const { owner, serverId } = await community(server);
    for (let i = 0; i < 4; i++) expect((await call("POST", `/channels/${serverId}`, owner, { name: `c${i}`, type: "text" })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 ? call("POST", `/channels/${serverId}`, owner, { name: `race-${i}`, type: "text" }) : call("POST", `/channels/${serverId}/categories`, owner, { name: `race ${i}` }),
      ),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(5);
    for (const res of answers.filter((res) => res.status !== 201)) expectError(res, 400, FULL);
    expect(await channelCount(serverId)).toBe(CAPS.channelsPerServer);
  });
});

describe("roles per server", () => {
  const FULL = `This server has reached its limit of ${CAPS.rolesPerServer} roles`;

  test("@everyone does not count; at the cap a create is 400 with no role:created, and a bot's managed role is refused too", async () => {
    const { owner, serverId } = await community(server);
    for (let i = 0; i < CAPS.rolesPerServer; i++) expect((await call("POST", `/roles/${serverId}`, owner, { name: `r${i}` })).status).toBe(201);
    const created = await eventsInServer(owner, serverId, "role:created");
    expectError(await call("POST", `/roles/${serverId}`, owner, { name: "one more" }), 400, FULL);
    const bot = await createBot(server, owner);
    expectError(await call("POST", `/oauth2/applications/${bot.appId}/servers/${serverId}`, owner, {}), 400, FULL);
    await quietWindow();
    expect(created).toEqual([]);
    expect(await server.app.store.members.find(serverId, bot.botUserId)).toBeNull();
    expect((await server.app.store.roles.list(serverId)).length).toBe(CAPS.rolesPerServer + 1);
  });
});

describe("invites per server", () => {
  const FULL = `This server has reached its limit of ${CAPS.invitesPerServer} active invites; delete one or let one expire`;

  test("only live invites count: a used-up one frees its place, an expired unused one is removed", async () => {
    const { owner, serverId } = await community(server);
    // The primary invite is the first of the four.
    const once = (await call("POST", `/servers/${serverId}/invites`, owner, { max_uses: 1 })).body;
    const expiring = (await call("POST", `/servers/${serverId}/invites`, owner, { expires_in: 3600 })).body;
    expect((await call("POST", `/servers/${serverId}/invites`, owner, {})).status).toBe(201);
    expectError(await call("POST", `/servers/${serverId}/invites`, owner, {}), 400, FULL);

    const joiner = await server.register();
    expect((await call("POST", `/servers/join/${once.code}`, joiner)).status).toBe(200);
    expect((await call("POST", `/servers/${serverId}/invites`, owner, {})).status).toBe(201);
    expectError(await call("POST", `/servers/${serverId}/invites`, owner, {}), 400, FULL);
    // The used-up invite keeps its history.
    expect((await call("GET", `/servers/${serverId}/invites/${once.id}/uses`, owner)).body).toHaveLength(1);

    const { db } = server.app.store;
    await db.run(db.prepare("UPDATE invites SET expires_at = 1 WHERE id = ?"), expiring.id);
    expect((await call("POST", `/servers/${serverId}/invites`, owner, {})).status).toBe(201);
    expect(await server.app.store.invites.findById(expiring.id)).toBeNull();
    expect(await auditEntries(server, serverId, "INVITE_CREATE")).toHaveLength(5);
  });
});

describe("webhooks per channel (the default, 15)", () => {
  test("the 16th is 400; another channel has its own 15", async () => {
    const { owner, serverId, channelId } = await community(server);
    for (let i = 0; i < 15; i++) expect((await call("POST", `/channels/${channelId}/webhooks`, owner, { name: `h${i}` })).status).toBe(201);
    expectError(await call("POST", `/channels/${channelId}/webhooks`, owner, { name: "h15" }), 400, "This channel has reached its limit of 15 webhooks");
    expect(await server.app.store.webhooks.listByChannel(channelId)).toHaveLength(15);
    const other = (await call("POST", `/channels/${serverId}`, owner, { name: "other", type: "text" })).body;
    expect((await call("POST", `/channels/${other.id}/webhooks`, owner, { name: "h0" })).status).toBe(201);
  });
});

describe("distinct reactions per message (the default, 20)", () => {
  const FULL = "This message has reached its limit of 20 different reactions";
  const EMOJIS = ["😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆", "😉", "😊", "😋", "😎", "😍", "😘", "🥰", "😗", "😙", "🥲", "😚", "🙂", "🤗"];

  test("a 21st emoji is 400 with no event; adding an emoji already there stays allowed, and removing one makes room", async () => {
    const { owner, member, channelId } = await community(server);
    const message = (await call("POST", `/messages/${channelId}`, owner, { content: "react" })).body;
    const react = (user: TestUser, emoji: string) => call("PUT", `/messages/${channelId}/reactions/${message.id}`, user, { emoji });
    for (const emoji of EMOJIS.slice(0, 20)) expect((await react(owner, emoji)).body.action).toBe("added");
    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("channel:join", channelId)).toMatchObject({ ok: true });
    const events = recordEvents(socket, "message:reaction");
    expectError(await react(member, EMOJIS[20]!), 400, FULL);
    expect(events).toEqual([]); // and still none once the next reaction is seen (in order on one socket)
    expect((await react(member, EMOJIS[0]!)).body).toEqual({ emoji: EMOJIS[0], action: "added", count: 2 });
    await until(() => events.length > 0, "the allowed reaction's event");
    expect(events).toHaveLength(1);
    expect((await react(owner, EMOJIS[19]!)).body.action).toBe("removed");
    expect((await react(member, EMOJIS[20]!)).body.action).toBe("added");
  });

  test("DM messages have the same cap", async () => {
    const { owner, member } = await community(server);
    const message = (await call("POST", `/dm/${member.id}/messages`, owner, { content: "react" })).body;
    const react = (emoji: string) => call("PUT", `/dm/${member.id}/messages/${message.id}/reactions`, owner, { emoji });
    for (const emoji of EMOJIS.slice(0, 20)) expect((await react(emoji)).body.action).toBe("added");
    expectError(await react(EMOJIS[20]!), 400, FULL);
  });
});

describe("servers a user or bot may be in", () => {
  const FULL = `You have reached the limit of ${CAPS.serversPerUser} servers; leave one first`;

  /** `count` servers to join, each with its owner (a fresh one every 8, under their own cap) and primary invite code. */
  async function serversToJoin(count: number): Promise<{ owner: TestUser; serverId: string; code: string }[]> {
    const servers: { owner: TestUser; serverId: string; code: string }[] = [];
    let owner = await server.register();
    for (let i = 0; i < count; i++) {
      if (i > 0 && i % 8 === 0) owner = await server.register();
      const serverId = await createServer(server, owner);
      servers.push({ owner, serverId, code: (await call("GET", `/servers/${serverId}/invites`, owner)).body[0].code });
    }
    return servers;
  }

  test("owned and joined servers count together: creating and joining are 400 at the cap, with no member:joined and no use counted", async () => {
    const user = await server.register();
    for (let i = 0; i < 6; i++) await createServer(server, user);
    const [target, ...joined] = await serversToJoin(5);
    for (const { code } of joined) expect((await call("POST", `/servers/join/${code}`, user)).status).toBe(200);
    expect(await server.app.store.members.serverIdsOf(user.id)).toHaveLength(CAPS.serversPerUser);

    expectError(await call("POST", "/servers", user, { name: "One more" }), 400, FULL);
    const events = await eventsInServer(target!.owner, target!.serverId, "member:joined");
    expectError(await call("POST", `/servers/join/${target!.code}`, user), 400, FULL);
    expect(events).toEqual([]); // and still none once the join below is seen (in order on one socket)
    expect(await server.app.store.members.find(target!.serverId, user.id)).toBeNull();
    expect((await call("GET", `/servers/${target!.serverId}/invites`, target!.owner)).body[0].uses).toBe(0);
    expect(await auditEntries(server, target!.serverId, "MEMBER_JOIN")).toHaveLength(0);

    // Leaving one makes room.
    expect((await call("DELETE", `/servers/${joined[0]!.serverId}/leave`, user)).status).toBe(200);
    expect((await call("POST", `/servers/join/${target!.code}`, user)).status).toBe(200);
    await until(() => events.length > 0, "member:joined of the join");
    expect(events).toHaveLength(1);
  });

  test("40 concurrent joins with room for 5 leave exactly the cap", async () => {
    const user = await server.register();
    for (let i = 0; i < CAPS.serversPerUser - 5; i++) await createServer(server, user);
    const targets = await serversToJoin(40);
    const answers = await Promise.all(targets.map(({ code }) => call("POST", `/servers/join/${code}`, user)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(5);
    for (const res of answers.filter((res) => res.status !== 200)) expectError(res, 400, FULL);
    expect(await server.app.store.members.serverIdsOf(user.id)).toHaveLength(CAPS.serversPerUser);
  });

  test("a bot has a cap of its own", async () => {
    const owner = await server.register();
    const bot = await createBot(server, owner);
    for (let i = 0; i < CAPS.serversPerBot; i++) {
      const serverId = await createServer(server, owner);
      expect((await call("POST", `/oauth2/applications/${bot.appId}/servers/${serverId}`, owner, {})).status).toBe(200);
    }
    const serverId = await createServer(server, owner);
    expectError(
      await call("POST", `/oauth2/applications/${bot.appId}/servers/${serverId}`, owner, {}),
      400,
      `This bot has reached its limit of ${CAPS.serversPerBot} servers`,
    );
    expect(await server.app.store.members.find(serverId, bot.botUserId)).toBeNull();
    expect(await server.app.store.roles.findManaged(serverId, bot.botUserId)).toBeNull();
  });
});

describe("applications per user", () => {
  test("the third is 400; deleting one makes room", async () => {
    const owner = await server.register();
    const first = await createBot(server, owner);
    await createBot(server, owner);
    const FULL = `You have reached the limit of ${CAPS.applicationsPerUser} applications; delete one first`;
    expectError(await call("POST", "/oauth2/applications", owner, { name: "Third", description: "" }), 400, FULL);
    expect(await server.app.store.applications.listByOwner(owner.id)).toHaveLength(2);
    expect((await call("DELETE", `/oauth2/applications/${first.appId}`, owner)).status).toBe(200);
    expect((await call("POST", "/oauth2/applications", owner, { name: "Third", description: "" })).status).toBe(201);
  });
});

describe("group DMs per user", () => {
  test("at the cap creating or being added is 400 naming who is full, with no dm:group:created; leaving makes room", async () => {
    const { owner, members, serverId } = await community(server, { extraMembers: 3 });
    const [a, b, c, d] = members as [TestUser, TestUser, TestUser, TestUser];
    const group = (creator: TestUser, ids: string[]) => call("POST", "/dm/groups", creator, { member_ids: ids });
    const groups: string[] = [];
    for (let i = 0; i < CAPS.groupDmsPerUser; i++) {
      const res = await group(owner, [a.id, b.id]);
      expect(res.status).toBe(201);
      groups.push(res.body.id);
    }
    const socket = await server.connect(c.token);
    const created = recordEvents(socket, "dm:group:created");
    expectError(await group(owner, [c.id, d.id]), 400, `You have reached the limit of ${CAPS.groupDmsPerUser} group DMs; leave one first`);
    expectError(await group(c, [d.id, a.id]), 400, `${a.username} has reached the limit of ${CAPS.groupDmsPerUser} group DMs`);
    expect(created).toEqual([]); // and still none once c's own group is seen (in order on one socket)
    // c's group: a cannot be added while full.
    const own = (await group(c, [d.id, (await addedMember(serverId)).id])).body;
    await until(() => created.length > 0, "dm:group:created of c's group");
    expect(created).toHaveLength(1);
    expectError(await call("POST", `/dm/groups/${own.id}/members`, c, { user_id: a.id }), 400, `${a.username} has reached the limit of ${CAPS.groupDmsPerUser} group DMs`);
    expect((await call("POST", `/dm/groups/${groups[0]}/leave`, a)).status).toBe(200);
    expect((await call("POST", `/dm/groups/${own.id}/members`, c, { user_id: a.id })).status).toBe(200);
  });

  /** Another member of the server (group DMs need at least two others). */
  async function addedMember(serverId: string): Promise<TestUser> {
    const user = await server.register();
    await addMember(server, serverId, user);
    return user;
  }
});
