import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createServer, joinChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { isUnicodeEmoji } from "../../src/domain/messaging/reactions.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const INVALID = { error: "emoji: must be a Unicode emoji or a custom emoji <:name:id>" };

const api = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/messages${path}`, { token: user?.token, body });
const react = (channelId: string, messageId: string, user: TestUser | null, emoji: unknown) =>
  api("PUT", `/${channelId}/reactions/${messageId}`, user, { emoji });
const unreact = (channelId: string, messageId: string, user: TestUser | null, emoji: string) =>
  api("DELETE", `/${channelId}/reactions/${messageId}/${encodeURIComponent(emoji)}`, user);
const reactions = (channelId: string, messageId: string, user: TestUser | null) => api("GET", `/${channelId}/reactions/${messageId}`, user);

/** The shared community, with a message of the owner's to react to. */
async function withMessage() {
  const c = await community(server);
  const message = await api("POST", `/${c.channelId}`, c.owner, { content: "react to me" });
  expect(message.status).toBe(201);
  return { ...c, messageId: message.body.id as string };
}

const override = (owner: TestUser, channelId: string, roleId: string, allow: number, deny: number) =>
  server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow, deny } });

const emoji = (serverId: string, name: string, uploadedBy: string) =>
  server.app.store.emojis.create(
    { serverId, name, filePath: `${name}.png`, originalName: `${name}.png`, mimeType: "image/png", size: 10, uploadedBy },
    50,
  );

describe("isUnicodeEmoji", () => {
  test.each([
    ["👍", true],
    ["👍🏽", true],
    ["❤️", true],
    ["❤", true],
    ["🇫🇷", true],
    ["1️⃣", true],
    ["#⃣", true],
    ["👨‍👩‍👧‍👦", true],
    ["🏳️‍🌈", true],
    ["🏴󠁧󠁢󠁳󠁣󠁴󠁿", true],
    ["🧑🏽‍🚀", true],
    ["", false],
    ["abc", false],
    ["a", false],
    ["1", false],
    ["👍👍", false],
    ["👍 ", false],
    [" 👍", false],
    ["x👍", false],
    ["👍".repeat(50), false],
    ["\u200D", false],
  ])("%p -> %p", (text, expected) => {
    expect(isUnicodeEmoji(text)).toBe(expected);
  });
});

describe("PUT /api/v1/messages/:channelId/reactions/:messageId", () => {
  test("toggles: added then removed, with the count, and emits message:reaction each time", async () => {
    const { owner, member, channelId, messageId } = await withMessage();
    const socket = await joinChannel(server, owner, channelId);
    const added = waitForEvent(socket, "message:reaction");
    const first = await react(channelId, messageId, member, "👍");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ emoji: "👍", action: "added", count: 1 });
    expect(await added).toEqual({ channelId, messageId, emoji: "👍", userId: member.id, action: "added" });

    expect((await react(channelId, messageId, owner, "👍")).body).toEqual({ emoji: "👍", action: "added", count: 2 });
    const removed = waitForEvent(socket, "message:reaction", { filter: (e) => e.action === "removed" });
    expect((await react(channelId, messageId, member, "👍")).body).toEqual({ emoji: "👍", action: "removed", count: 1 });
    expect(await removed).toEqual({ channelId, messageId, emoji: "👍", userId: member.id, action: "removed" });
    socket.close();
  });

  test("custom emojis: this server's, another server's (USE_EXTERNAL_EMOJIS), unknown and deleted ones", async () => {
    const { owner, member, serverId, channelId, everyone, messageId } = await withMessage();
    const own = (await emoji(serverId, "blob", owner.id))!;
    const otherServer = await createServer(server, owner, "Other");
    const foreign = (await emoji(otherServer, "party", owner.id))!;

    expect((await react(channelId, messageId, member, `<:blob:${own.id}>`)).body).toEqual({ emoji: `<:blob:${own.id}>`, action: "added", count: 1 });
    // The animated form and an upper-case id are the same emoji type.
    expect((await react(channelId, messageId, owner, `<a:blob:${own.id.toUpperCase()}>`)).body).toEqual({
      emoji: `<:blob:${own.id}>`, action: "added", count: 2,
    });
    expect((await react(channelId, messageId, member, `<:party:${foreign.id}>`)).body).toEqual({ emoji: `<:party:${foreign.id}>`, action: "added", count: 1 });

    await override(owner, channelId, everyone, 0, P.USE_EXTERNAL_EMOJIS);
    const external = await react(channelId, messageId, member, `<:party:${foreign.id}>`);
    expect(external.status).toBe(403);
    expect(external.body).toEqual({ error: "Missing permission: USE_EXTERNAL_EMOJIS" });

    expect((await react(channelId, messageId, member, `<:wrongname:${own.id}>`)).body).toEqual({ error: `emoji: unknown custom emoji <:wrongname:${own.id}>` });
    const unknown = await react(channelId, messageId, member, `<:blob:${UNKNOWN}>`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: `emoji: unknown custom emoji <:blob:${UNKNOWN}>` });

    await server.app.store.emojis.delete(own.id);
    expect((await react(channelId, messageId, owner, `<:blob:${own.id}>`)).status).toBe(400);
    // A reaction with a deleted emoji can still be taken back through DELETE.
    expect((await unreact(channelId, messageId, member, `<:blob:${own.id}>`)).body).toEqual({ emoji: `<:blob:${own.id}>`, action: "removed", count: 1 });
  });

  test("ADD_REACTIONS is needed for a new emoji type only", async () => {
    const { owner, member, channelId, everyone, messageId } = await withMessage();
    expect((await react(channelId, messageId, owner, "🔥")).status).toBe(200);
    await override(owner, channelId, everyone, 0, P.ADD_REACTIONS);
    const refused = await react(channelId, messageId, member, "🎉");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Missing permission: ADD_REACTIONS" });
    expect((await react(channelId, messageId, member, "🔥")).body).toEqual({ emoji: "🔥", action: "added", count: 2 });
    // Taking it back is a toggle too, and needs nothing more.
    expect((await react(channelId, messageId, member, "🔥")).body).toEqual({ emoji: "🔥", action: "removed", count: 1 });
    expect((await reactions(channelId, messageId, member)).body.map((r: { emoji: string }) => r.emoji)).toEqual(["🔥"]);
  });

  test("VIEW_CHANNEL and READ_MESSAGE_HISTORY are needed", async () => {
    const { owner, member, channelId, everyone, messageId } = await withMessage();
    await override(owner, channelId, everyone, 0, P.READ_MESSAGE_HISTORY);
    expect((await react(channelId, messageId, member, "👍")).body).toEqual({ error: "Missing permission: READ_MESSAGE_HISTORY" });
    expect((await reactions(channelId, messageId, member)).status).toBe(403);
    await override(owner, channelId, everyone, 0, P.VIEW_CHANNEL);
    const hidden = await react(channelId, messageId, member, "👍");
    expect(hidden.status).toBe(403);
    expect(hidden.body).toEqual({ error: "Missing permission: VIEW_CHANNEL" });
  });

  test("a timed-out member cannot react until the timeout is removed", async () => {
    const { owner, member, serverId, channelId, messageId } = await withMessage();
    expect((await react(channelId, messageId, member, "👀")).status).toBe(200);
    const timeout = await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: member.id, duration: 60 } });
    expect(timeout.status).toBe(200);
    const refused = await react(channelId, messageId, member, "👍");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "You are timed out in this server" });
    expect((await react(channelId, messageId, member, "👀")).status).toBe(403);
    // Taking a reaction back through DELETE stays open.
    expect((await unreact(channelId, messageId, member, "👀")).body).toEqual({ emoji: "👀", action: "removed", count: 0 });
    await server.api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`, { token: owner.token });
    expect((await react(channelId, messageId, member, "👍")).status).toBe(200);
  });

  test("401, non-member 403, and 404 for unknown channels and messages", async () => {
    const { owner, member, outsider, serverId, channelId, messageId } = await withMessage();
    expect((await react(channelId, messageId, null, "👍")).status).toBe(401);
    const nonMember = await react(channelId, messageId, outsider, "👍");
    expect(nonMember.status).toBe(403);
    expect(nonMember.body).toEqual({ error: "You are not a member of this server" });
    expect((await react(UNKNOWN, messageId, member, "👍")).body).toEqual({ error: "Channel not found" });
    expect((await react("nope", messageId, member, "👍")).status).toBe(404);
    expect((await react(channelId, UNKNOWN, member, "👍")).body).toEqual({ error: "Message not found" });
    expect((await react(channelId, "nope", member, "👍")).body).toEqual({ error: "Message not found" });
    // A message of another channel is not found through this one.
    const other = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "other", type: "text" } });
    expect(other.status).toBe(201);
    expect((await react(other.body.id, messageId, member, "👍")).body).toEqual({ error: "Message not found" });
  });

  test("bad emoji strings are 400", async () => {
    const { member, channelId, messageId } = await withMessage();
    for (const bad of ["abc", "", "x".repeat(100), "👍".repeat(50), "<:x:not-a-uuid>", "👍👎", ":thumbsup:"]) {
      const res = await react(channelId, messageId, member, bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID);
    }
    expect((await react(channelId, messageId, member, 5)).body).toEqual({ error: "emoji: must be a string" });
    expect((await api("PUT", `/${channelId}/reactions/${messageId}`, member, {})).body).toEqual({ error: "emoji: is required" });
    expect((await reactions(channelId, messageId, member)).body).toEqual([]);
  });

  test("10 concurrent toggles by one user end consistent: alternating, never duplicated", async () => {
    const { owner, member, channelId, messageId } = await withMessage();
    const socket = await joinChannel(server, owner, channelId);
    const events = recordEvents(socket, "message:reaction");
    const results = await Promise.all(Array.from({ length: 10 }, () => react(channelId, messageId, member, "🚀")));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const actions = results.map((r) => r.body.action);
    expect(actions.filter((a) => a === "added").length).toBe(5);
    expect(actions.filter((a) => a === "removed").length).toBe(5);
    for (const r of results) expect(r.body.count).toBe(r.body.action === "added" ? 1 : 0);
    expect((await reactions(channelId, messageId, member)).body).toEqual([]);

    // An odd number leaves exactly one reaction.
    await Promise.all(Array.from({ length: 11 }, () => react(channelId, messageId, member, "🚀")));
    const listed = await reactions(channelId, messageId, member);
    expect(listed.body).toEqual([{ emoji: "🚀", count: 1, users: [{ id: member.id, username: member.username, avatar: null }] }]);
    await until(() => events.length >= 21, "an event for each of the 21 toggles");
    expect(events.length).toBe(21);
    socket.close();
  });
});

describe("DELETE /api/v1/messages/:channelId/reactions/:messageId/:emoji", () => {
  test("removes the caller's own reaction, emits removed, 404 when there is none", async () => {
    const { owner, member, channelId, messageId } = await withMessage();
    await react(channelId, messageId, member, "👨‍👩‍👧‍👦");
    await react(channelId, messageId, owner, "👨‍👩‍👧‍👦");
    const socket = await joinChannel(server, owner, channelId);
    const removed = waitForEvent(socket, "message:reaction");
    const res = await unreact(channelId, messageId, member, "👨‍👩‍👧‍👦");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ emoji: "👨‍👩‍👧‍👦", action: "removed", count: 1 });
    expect(await removed).toEqual({ channelId, messageId, emoji: "👨‍👩‍👧‍👦", userId: member.id, action: "removed" });
    const again = await unreact(channelId, messageId, member, "👨‍👩‍👧‍👦");
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "Reaction not found" });
    // Only one's own: the owner's reaction is untouched.
    expect((await reactions(channelId, messageId, owner)).body[0].users.map((u: { id: string }) => u.id)).toEqual([owner.id]);
    socket.close();
  });

  test("401, 403 and 404", async () => {
    const { member, outsider, channelId, messageId } = await withMessage();
    await react(channelId, messageId, member, "👍");
    expect((await unreact(channelId, messageId, null, "👍")).status).toBe(401);
    expect((await unreact(channelId, messageId, outsider, "👍")).status).toBe(403);
    expect((await unreact(UNKNOWN, messageId, member, "👍")).status).toBe(404);
    expect((await unreact(channelId, UNKNOWN, member, "👍")).body).toEqual({ error: "Message not found" });
    expect((await unreact(channelId, "nope", member, "👍")).status).toBe(404);
    expect((await unreact(channelId, messageId, member, "abc")).status).toBe(404);
  });
});

describe("GET /api/v1/messages/:channelId/reactions/:messageId", () => {
  test("emoji types in order of first use, users in reaction order", async () => {
    const { owner, member, serverId, channelId, messageId } = await withMessage();
    const third = await server.register();
    await addMember(server, serverId, third);
    const blob = (await emoji(serverId, "blob", owner.id))!;
    await react(channelId, messageId, member, "🎉");
    await react(channelId, messageId, owner, `<:blob:${blob.id}>`);
    await react(channelId, messageId, third, "🇫🇷");
    await react(channelId, messageId, owner, "🎉");
    await react(channelId, messageId, third, "🎉");
    await react(channelId, messageId, member, `<:blob:${blob.id}>`);
    const res = await reactions(channelId, messageId, member);
    expect(res.status).toBe(200);
    const user = (u: TestUser) => ({ id: u.id, username: u.username, avatar: null });
    expect(res.body).toEqual([
      { emoji: "🎉", count: 3, users: [user(member), user(owner), user(third)] },
      { emoji: `<:blob:${blob.id}>`, count: 2, users: [user(owner), user(member)] },
      { emoji: "🇫🇷", count: 1, users: [user(third)] },
    ]);
    // Order is by the earliest reaction still present: when the first user of 🎉 takes it
    // back, 🎉 counts from the owner's reaction, which came after the first blob.
    await react(channelId, messageId, member, "🎉");
    expect((await reactions(channelId, messageId, member)).body.map((r: { emoji: string }) => r.emoji)).toEqual([`<:blob:${blob.id}>`, "🇫🇷", "🎉"]);
  });

  test("401, 403 and 404; deleting the message drops its reactions", async () => {
    const { owner, member, outsider, channelId, messageId } = await withMessage();
    await react(channelId, messageId, member, "👍");
    expect((await reactions(channelId, messageId, null)).status).toBe(401);
    expect((await reactions(channelId, messageId, outsider)).status).toBe(403);
    expect((await reactions(UNKNOWN, messageId, member)).status).toBe(404);
    expect((await reactions(channelId, UNKNOWN, member)).status).toBe(404);
    expect((await reactions(channelId, "nope", member)).status).toBe(404);
    expect((await api("DELETE", `/${messageId}`, owner)).status).toBe(200);
    expect((await reactions(channelId, messageId, member)).status).toBe(404);
    expect(await server.app.store.reactions.list(messageId)).toEqual([]);
  });
});
