/**
 * Three Hearth nodes on one PostgreSQL and one Redis (npm run test:cluster): what one node does
 * alone holds across nodes (docs/operations.md, "Running several nodes").
 */
import { describe, expect, test } from "bun:test";
import {
  api,
  connect,
  emitAck,
  eventually,
  joinChannel,
  promote,
  record,
  register,
  serverWith,
  useThreeNodes,
  type HearthNode,
} from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

/** A quiet window long enough for a stray duplicate (or a delivery that should not be) to arrive across nodes. */
const settle = () => quietWindow(400);

describe("messages", () => {
  test("a message sent through node 1 reaches sockets on nodes 2 and 3 (websocket and polling) once each", async () => {
    const owner = await register(n1);
    const a = await register(n2);
    const b = await register(n3);
    const { channelId } = await serverWith(n1, owner, [a, b]);
    const onOwner = record(await joinChannel(n1, owner, channelId), "message:new");
    const onA = record(await joinChannel(n2, a, channelId), "message:new");
    const onB = record(await joinChannel(n3, b, channelId), "message:new");
    const onBPolling = record(await joinChannel(n3, b, channelId, ["polling"]), "message:new");

    const sent = await api(n1, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "hello, cluster" } });
    expect(sent.status).toBe(201);
    await eventually(() => [onOwner, onA, onB, onBPolling].every((seen) => seen.length >= 1), "message:new on every node");
    await settle();
    for (const seen of [onOwner, onA, onB, onBPolling]) {
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: sent.body.id, content: "hello, cluster", channel_id: channelId });
    }
  });

  test("a hundred messages from nodes 2 and 3 arrive on node 1 in each sender's order, none twice", async () => {
    const owner = await register(n1);
    const a = await register(n2);
    const { channelId } = await serverWith(n1, owner, [a]);
    const seen = record<{ content: string }>(await joinChannel(n1, owner, channelId), "message:new");
    const sendAll = async (node: HearthNode, user: typeof owner, tag: string) => {
      for (let i = 0; i < 50; i++) {
        const res = await api(node, "POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content: `${tag}${i}` } });
        expect(res.status).toBe(201);
      }
    };
    await Promise.all([sendAll(n2, a, "a"), sendAll(n3, owner, "o")]);
    await eventually(() => seen.length >= 100, "100 messages on node 1");
    await settle();
    const contents = seen.map((m) => m.content);
    expect(new Set(contents).size).toBe(100);
    expect(contents.filter((c) => c.startsWith("a"))).toEqual(Array.from({ length: 50 }, (_, i) => `a${i}`));
    expect(contents.filter((c) => c.startsWith("o"))).toEqual(Array.from({ length: 50 }, (_, i) => `o${i}`));
  });
});

describe("presence", () => {
  test("a user with sockets on two nodes stays online until the last one closes", async () => {
    const watcher = await register(n1);
    const user = await register(n2);
    const { serverId } = await serverWith(n1, watcher, [user]);
    const watching = await connect(n1, watcher.token);
    expect((await emitAck(watching, "server:join", serverId)).ok).toBe(true);
    const statuses = record<{ userId: string; status: string }>(watching, "user:status");
    const of = () => statuses.filter((s) => s.userId === user.id).map((s) => s.status);

    const first = await connect(n2, user.token);
    await eventually(() => of().includes("online"), "online");
    const second = await connect(n3, user.token);
    first.close();
    await settle();
    // Connected on node 3 still: not offline, and not announced online a second time.
    expect(of()).toEqual(["online"]);
    const shown = await api(n3, "GET", `/api/v1/users/${user.id}`, { token: watcher.token });
    expect(shown.body.status).toBe("online");

    second.close();
    await eventually(() => of().includes("offline"), "offline after the last socket");
    expect(of()).toEqual(["online", "offline"]);
  });

  test("status:set on one node is shown by the others", async () => {
    const watcher = await register(n3);
    const user = await register(n1);
    const { serverId } = await serverWith(n3, watcher, [user]);
    const watching = await connect(n3, watcher.token);
    expect((await emitAck(watching, "server:join", serverId)).ok).toBe(true);
    const statuses = record<{ userId: string; status: string }>(watching, "user:status");
    const socket = await connect(n1, user.token);
    await eventually(() => statuses.some((s) => s.userId === user.id && s.status === "online"), "online");
    await connect(n2, user.token);
    expect(await emitAck(socket, "status:set", { status: "dnd" })).toMatchObject({ ok: true });
    await eventually(() => statuses.some((s) => s.userId === user.id && s.status === "dnd"), "dnd");
  });
});

describe("moderation and revocation reach every node", () => {
  test("a kick through node 1 takes the member's sockets on nodes 2 and 3 out of the server's rooms", async () => {
    const owner = await register(n1);
    const member = await register(n2);
    const { serverId, channelId } = await serverWith(n1, owner, [member]);
    const onN2 = await joinChannel(n2, member, channelId);
    const onN3 = await joinChannel(n3, member, channelId);
    const left = [record(onN2, "member:left"), record(onN3, "member:left")];
    const messages = [record(onN2, "message:new"), record(onN3, "message:new")];

    const kicked = await api(n1, "DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token });
    expect(kicked.status).toBe(200);
    await eventually(() => left.every((seen) => seen.length === 1), "member:left on both nodes");
    expect(left[0]![0]).toEqual({ serverId, userId: member.id });

    const after = await api(n3, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "after the kick" } });
    expect(after.status).toBe(201);
    await settle();
    expect(messages.map((seen) => seen.length)).toEqual([0, 0]);
  });

  test("a ban through node 3 reaches node 1 and 2's sockets; the banned user cannot rejoin through any node", async () => {
    const owner = await register(n3);
    const member = await register(n1);
    const { serverId, channelId } = await serverWith(n3, owner, [member]);
    const onN1 = await joinChannel(n1, member, channelId);
    const onN2 = await joinChannel(n2, member, channelId);
    const banned = [record(onN1, "member:banned"), record(onN2, "member:banned")];
    const messages = [record(onN1, "message:new"), record(onN2, "message:new")];

    const ban = await api(n3, "POST", `/api/v1/servers/${serverId}/bans`, { token: owner.token, body: { targetUserId: member.id } });
    expect(ban.status).toBe(201);
    await eventually(() => banned.every((seen) => seen.length === 1), "member:banned on both nodes");
    await api(n2, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "after the ban" } });
    await settle();
    expect(messages.map((seen) => seen.length)).toEqual([0, 0]);
    const again = await emitAck(onN1, "channel:join", channelId);
    expect(again.ok).toBe(false);
  });

  test("a password change through node 1 closes the account's sockets on nodes 2 and 3; the old token is refused everywhere", async () => {
    const user = await register(n1);
    const sockets = [await connect(n2, user.token), await connect(n3, user.token)];
    const closed = sockets.map(() => false);
    sockets.forEach((socket, i) => socket.on("disconnect", () => (closed[i] = true)));

    const changed = await api(n1, "PUT", "/api/v1/users/me/password", {
      token: user.token,
      body: { currentPassword: user.password, newPassword: `${user.password}-new` },
    });
    expect(changed.status).toBe(200);
    await eventually(() => closed.every(Boolean), "both sockets closed");
    for (const node of [n1, n2, n3]) {
      await expect(connect(node, user.token)).rejects.toThrow("Unauthorized");
      expect((await api(node, "GET", "/api/v1/users/me", { token: user.token })).status).toBe(401);
    }
    const fresh = await connect(n3, changed.body.token);
    expect(fresh.connected).toBe(true);
  });

  test("a bot token reset through node 2 closes the bot's socket on node 3", async () => {
    const owner = await register(n2);
    const app = await api(n2, "POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name: `app${Date.now().toString(36)}`, description: "a bot on node 3" } });
    expect(app.status).toBe(201);
    const botToken: string = app.body.bot_token;
    const bot = await connect(n3, botToken);
    let closed = false;
    bot.on("disconnect", () => (closed = true));
    const reset = await api(n2, "POST", `/api/v1/oauth2/applications/${app.body.application.id}/token`, { token: owner.token });
    expect(reset.status).toBe(200);
    await eventually(() => closed, "the bot's socket closed");
    await expect(connect(n1, botToken)).rejects.toThrow("Unauthorized");
  });

  test("an application deleted through a node: its bot's socket there gets its own member:left before it is closed, as on one node", async () => {
    // The node's own broadcast (member:left) and its own disconnect both go through the stream:
    // the disconnect must not overtake the broadcast. Several bots, so a race would show.
    const owner = await register(n1);
    const { serverId, channelId } = await serverWith(n1, owner, []);
    for (let i = 0; i < 8; i++) {
      const app = await api(n1, "POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name: `order${i}${Date.now().toString(36)}`, description: "deleted at once" } });
      expect(app.status).toBe(201);
      const botUserId: string = app.body.application.bot_user_id;
      const added = await api(n1, "POST", `/api/v1/oauth2/invite/${botUserId}/add/${serverId}`, { token: owner.token, body: { permissions: 0 } });
      expect(added.status).toBe(200);
      const bot = await connect(n1, app.body.bot_token);
      await emitAck(bot, "server:join", serverId);
      const seen: string[] = [];
      bot.on("member:left", (event: { userId: string }) => seen.push(`left ${event.userId === botUserId ? "self" : "other"}`));
      bot.on("disconnect", () => seen.push("disconnect"));
      // Other broadcasts in flight, so this node's stream reader is behind its own writes.
      const busy = Array.from({ length: 40 }, (_, k) => api(n1, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `busy ${k}` } }));
      expect((await api(n1, "DELETE", `/api/v1/oauth2/applications/${app.body.application.id}`, { token: owner.token })).status).toBe(200);
      await Promise.all(busy);
      await eventually(() => seen.includes("disconnect"), "the bot's socket closed");
      expect(seen).toEqual(["left self", "disconnect"]);
    }
  });

  test("an administrator disabling an account through node 3 closes its sockets on nodes 1 and 2", async () => {
    const admin = await register(n3);
    promote(admin);
    const user = await register(n1);
    const sockets = [await connect(n1, user.token), await connect(n2, user.token)];
    const closed = sockets.map(() => false);
    sockets.forEach((socket, i) => socket.on("disconnect", () => (closed[i] = true)));
    const disabled = await api(n3, "PATCH", `/api/v1/admin/users/${user.id}`, { token: admin.token, body: { disabled: true } });
    expect(disabled.status).toBe(200);
    await eventually(() => closed.every(Boolean), "both sockets closed");
    await expect(connect(n2, user.token)).rejects.toThrow();
  });
});

describe("shared limits and caches", () => {
  test("failed logins are counted in one window over all nodes", async () => {
    const user = await register(n1);
    // LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE=4 on every node (test/cluster/nodes.ts).
    const statuses: number[] = [];
    for (const node of [n1, n2, n3, n1, n2, n3]) {
      statuses.push((await api(node, "POST", "/api/v1/auth/login", { body: { login: user.username, password: "wrong-password" } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    // The right password is refused too while the window lasts, on any node.
    expect((await api(n3, "POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } })).status).toBe(429);
  });

  test("a platform setting changed through node 1 holds on nodes 2 and 3 at once (their caches are dropped)", async () => {
    const admin = await register(n2);
    promote(admin);
    // Each node reads (and caches) the setting first.
    for (const node of [n1, n2, n3]) expect((await api(node, "GET", "/api/v1/admin/settings", { token: admin.token })).body.registration_open).toBe(true);
    try {
      const closed = await api(n1, "PATCH", "/api/v1/admin/settings", { token: admin.token, body: { registration_open: false } });
      expect(closed.status).toBe(200);
      await eventually(async () => (await api(n2, "GET", "/api/v1/admin/settings", { token: admin.token })).body.registration_open === false, "node 2 sees it");
      for (const node of [n2, n3]) {
        const res = await api(node, "POST", "/api/v1/auth/register", { body: { username: `late${Date.now().toString(36)}${node.name}`, email: `late${node.name}${Date.now()}@example.test`, password: "late-password-1" } });
        expect(res.status).toBe(403);
      }
    } finally {
      await api(n1, "PATCH", "/api/v1/admin/settings", { token: admin.token, body: { registration_open: true } });
    }
  });

  test("usersIn-style lookups see sockets on every node: a channel's watchers on other nodes lose it when its permissions change", async () => {
    const owner = await register(n1);
    const member = await register(n2);
    const { serverId, channelId } = await serverWith(n1, owner, [member]);
    const onN2 = await joinChannel(n2, member, channelId);
    const onN3 = await joinChannel(n3, member, channelId);
    const messages = [record(onN2, "message:new"), record(onN3, "message:new")];
    // Deny VIEW_CHANNEL to @everyone in the channel: the member's sockets on every node leave its room.
    const roles = await api(n1, "GET", `/api/v1/roles/${serverId}`, { token: owner.token });
    const everyone = (roles.body as { id: string; name: string }[]).find((r) => r.name === "@everyone");
    expect(everyone).toBeDefined();
    const denied = await api(n1, "PUT", `/api/v1/channels/${channelId}/permissions/${everyone!.id}`, { token: owner.token, body: { allow: 0, deny: 2048 } }); // VIEW_CHANNEL
    expect(denied.status).toBe(200);
    await settle();
    await api(n1, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "hidden now" } });
    await settle();
    expect(messages.map((seen) => seen.length)).toEqual([0, 0]);
  });
});
