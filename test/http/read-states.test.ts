import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { community } from "../helpers/community.ts";
import { quietWindow } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const api = (method: string, path: string, user: { token: string } | null, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user?.token, body });
const readStates = async (user: TestUser) => {
  const res = await api("GET", "/users/me/read-states", user);
  expect(res.status).toBe(200);
  return res.body as { channel_id: string; last_read_message_id: string | null; last_message_id: string; mention_count: number }[];
};
const stateOf = async (user: TestUser, channelId: string) => (await readStates(user)).find((e) => e.channel_id === channelId);
async function send(channelId: string, user: { token: string }, body: Record<string, unknown>): Promise<string> {
  const res = await api("POST", `/messages/${channelId}`, user, body);
  expect(res.status).toBe(201);
  return res.body.id;
}

describe("GET /api/v1/users/me/read-states", () => {
  test("401 without a token; [] for a user with nothing unread", async () => {
    expectError(await api("GET", "/users/me/read-states", null), 401);
    const { member } = await community(server);
    expect(await readStates(member)).toEqual([]);
  });

  test("an unread channel: its exact entry; gone once read; own messages are read", async () => {
    const { owner, member, channelId } = await community(server);
    const first = await send(channelId, owner, { content: "one" });
    const last = await send(channelId, owner, { content: "two" });
    expect(await readStates(member)).toEqual([{ channel_id: channelId, last_read_message_id: null, last_message_id: last, mention_count: 0 }]);
    // The author has read what they wrote.
    expect(await readStates(owner)).toEqual([]);
    expect((await api("POST", `/messages/${channelId}/read`, member, { message_id: first })).body).toEqual({ channel_id: channelId, last_read_message_id: first });
    expect(await readStates(member)).toEqual([{ channel_id: channelId, last_read_message_id: first, last_message_id: last, mention_count: 0 }]);
    await api("POST", `/messages/${channelId}/read`, member, {});
    expect(await readStates(member)).toEqual([]);
  });

  test("a mark-read never moves backwards", async () => {
    const { owner, member, channelId } = await community(server);
    const first = await send(channelId, owner, { content: "one" });
    const second = await send(channelId, owner, { content: "two" });
    await api("POST", `/messages/${channelId}/read`, member, { message_id: second });
    const back = await api("POST", `/messages/${channelId}/read`, member, { message_id: first });
    expect(back.body).toEqual({ channel_id: channelId, last_read_message_id: second });
    expect(await readStates(member)).toEqual([]);
    expectError(await api("POST", `/messages/${channelId}/read`, member, { message_id: "x" }), 400);
  });

  test("a deleted last message: the channel is unread only up to the one before", async () => {
    const { owner, member, channelId } = await community(server);
    const first = await send(channelId, owner, { content: "one" });
    await api("POST", `/messages/${channelId}/read`, member, {});
    const second = await send(channelId, owner, { content: "two" });
    expect((await stateOf(member, channelId))?.last_message_id).toBe(second);
    expect((await api("DELETE", `/messages/${second}`, owner)).status).toBe(200);
    expect(await stateOf(member, channelId)).toBeUndefined();
    expect(first).toBeDefined();
  });
});

describe("mentions", () => {
  test("the rules, as a table of cases", async () => {
    const c = await community(server, { extraMembers: 1, bot: true });
    const other = c.members[1]!;
    const role = (await api("POST", `/roles/${c.serverId}`, c.owner, { name: "pingable" })).body;
    const unheld = (await api("POST", `/roles/${c.serverId}`, c.owner, { name: "nobody" })).body;
    expect((await api("POST", `/roles/${c.serverId}/assign`, c.owner, { targetUserId: c.member.id, roleId: role.id })).status).toBe(200);
    const mine = await send(c.channelId, c.member, { content: "mine" });
    const theirs = await send(c.channelId, other, { content: "theirs" });
    const hook = (await api("POST", `/channels/${c.channelId}/webhooks`, c.owner, { name: "Hook" })).body;
    const cases: [string, (channelId: string) => Promise<unknown>, number][] = [
      ["plain text", (ch) => send(ch, c.owner, { content: "hello" }), 0],
      ["<@member>", (ch) => send(ch, c.owner, { content: `hi <@${c.member.id}>` }), 1],
      ["<@someone else>", (ch) => send(ch, c.owner, { content: `hi <@${other.id}>` }), 0],
      ["<@member> twice in one message", (ch) => send(ch, c.owner, { content: `<@${c.member.id}> <@${c.member.id}>` }), 1],
      ["<@&role they hold>", (ch) => send(ch, c.owner, { content: `<@&${role.id}>` }), 1],
      ["<@&role they do not hold>", (ch) => send(ch, c.owner, { content: `<@&${unheld.id}>` }), 0],
      ["role and user in one message", (ch) => send(ch, c.owner, { content: `<@&${role.id}> <@${c.member.id}>` }), 1],
      ["@everyone by the owner", (ch) => send(ch, c.owner, { content: "@everyone look" }), 1],
      ["@here by the owner", (ch) => send(ch, c.owner, { content: "@here look" }), 1],
      ["a reply to their message", (ch) => send(ch, c.owner, { content: "answer", reply_to: mine }), 1],
      ["a reply to someone else's", (ch) => send(ch, c.owner, { content: "answer", reply_to: theirs }), 0],
      ["a bot's <@member>", (ch) => server.api("POST", `/api/v1/oauth2/bot/channels/${ch}/messages`, { token: c.bot.token, body: { content: `<@${c.member.id}>` } }), 1],
      ["a webhook's <@member>", () => server.api("POST", `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: `<@${c.member.id}>` } }), 1],
      ["a webhook's @everyone", () => server.api("POST", `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: "@everyone" } }), 1],
    ];
    for (const [name, write, expected] of cases) {
      await api("POST", `/messages/${c.channelId}/read`, c.member, {});
      await write(c.channelId);
      const entry = await stateOf(c.member, c.channelId);
      expect({ name, mentions: entry?.mention_count }).toEqual({ name, mentions: expected });
    }
    // A webhook's message is nobody's own: it mentions its creator too.
    await api("POST", `/messages/${c.channelId}/read`, c.owner, {});
    await server.api("POST", `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: `<@${c.owner.id}>` } });
    expect((await stateOf(c.owner, c.channelId))?.mention_count).toBe(1);
    // The author never mentions themself (and has read their own message).
    await api("POST", `/messages/${c.channelId}/read`, c.member, {});
    await send(c.channelId, c.member, { content: `<@${c.member.id}> @everyone <@&${role.id}>`.replace("@everyone", "") });
    expect(await stateOf(c.member, c.channelId)).toBeUndefined();
  });

  test("counts add up until read; a mark-read resets them", async () => {
    const { owner, member, channelId } = await community(server);
    for (let i = 0; i < 3; i++) await send(channelId, owner, { content: `<@${member.id}> ${i}` });
    expect((await stateOf(member, channelId))?.mention_count).toBe(3);
    await api("POST", `/messages/${channelId}/read`, member, {});
    await send(channelId, owner, { content: "quiet" });
    expect((await stateOf(member, channelId))?.mention_count).toBe(0);
  });

  test("an edit that adds or removes a mention; a deleted message stops counting", async () => {
    const { owner, member, channelId } = await community(server);
    const id = await send(channelId, owner, { content: "nothing" });
    expect((await stateOf(member, channelId))?.mention_count).toBe(0);
    expect((await api("PUT", `/messages/${id}`, owner, { content: `now <@${member.id}>` })).status).toBe(200);
    expect((await stateOf(member, channelId))?.mention_count).toBe(1);
    await api("PUT", `/messages/${id}`, owner, { content: "gone again" });
    expect((await stateOf(member, channelId))?.mention_count).toBe(0);
    await api("PUT", `/messages/${id}`, owner, { content: `<@${member.id}>` });
    const later = await send(channelId, owner, { content: `<@${member.id}> again` });
    expect((await stateOf(member, channelId))?.mention_count).toBe(2);
    await api("DELETE", `/messages/${later}`, owner);
    expect((await stateOf(member, channelId))?.mention_count).toBe(1);
    // An edit of a message before the read point adds nothing.
    await api("POST", `/messages/${channelId}/read`, member, {});
    await api("PUT", `/messages/${id}`, owner, { content: `<@${member.id}> edited` });
    expect(await stateOf(member, channelId)).toBeUndefined();
  });

  test("hidden channels never count, nor show; a mention of a non-member counts for nobody", async () => {
    const { owner, member, outsider, serverId, everyone } = await community(server);
    const hidden = (await api("POST", `/channels/${serverId}`, owner, { name: "staff", type: "text" })).body.id;
    expect((await api("PUT", `/channels/${hidden}/permissions/${everyone}`, owner, { allow: 0, deny: P.VIEW_CHANNEL })).status).toBe(200);
    await send(hidden, owner, { content: `<@${member.id}> @everyone` });
    expect(await stateOf(member, hidden)).toBeUndefined();
    expect(await readStates(outsider)).toEqual([]);
    // Shown again once they may view it, with its mentions.
    await api("PUT", `/channels/${hidden}/permissions/${everyone}`, owner, { allow: 0, deny: 0 });
    expect((await stateOf(member, hidden))?.mention_count).toBe(1);
  });
});

describe("read-state:update", () => {
  test("reaches the reader's other sockets and nobody else's, with the count left", async () => {
    const { owner, member, channelId } = await community(server);
    const first = await send(channelId, owner, { content: `<@${member.id}>` });
    await send(channelId, owner, { content: `<@${member.id}> again` });
    const [phone, laptop, others] = await Promise.all([server.connect(member.token), server.connect(member.token), server.connect(owner.token)]);
    const seenByOwner = recordEvents(others, "read-state:update");
    const onLaptop = waitForEvent(laptop, "read-state:update");
    const onPhone = waitForEvent(phone, "read-state:update");
    await api("POST", `/messages/${channelId}/read`, member, { message_id: first });
    expect(await onLaptop).toEqual({ channel_id: channelId, last_read_message_id: first, mention_count: 1 });
    expect(await onPhone).toEqual({ channel_id: channelId, last_read_message_id: first, mention_count: 1 });
    await quietWindow();
    expect(seenByOwner).toEqual([]);
  });

  test("a server's mark-read reads each visible channel, one event each", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const second = (await api("POST", `/channels/${serverId}`, owner, { name: "second", type: "text" })).body.id;
    await send(channelId, owner, { content: `<@${member.id}>` });
    const last = await send(second, owner, { content: "x" });
    const socket = await server.connect(member.token);
    const events = recordEvents(socket, "read-state:update");
    expect((await api("POST", `/servers/${serverId}/read`, member)).status).toBe(200);
    expect(await readStates(member)).toEqual([]);
    await quietWindow();
    expect(events.map((e) => e.channel_id).sort()).toEqual([channelId, second].sort());
    expect(events.find((e) => e.channel_id === second)).toEqual({ channel_id: second, last_read_message_id: last, mention_count: 0 });
  });
});

describe("DMs", () => {
  test("a 1:1 DM and a group DM: entries by the DM's id, read by their routes, never backwards", async () => {
    const { owner: a, member: b, members } = await community(server, { extraMembers: 1 });
    const c = members[1]!;
    const dm = (await api("POST", `/dm/${a.id}/messages`, b, { content: "hi" })).body;
    expect(dm.conversation_id).toBeDefined();
    const reply = (await api("POST", `/dm/${b.id}/messages`, a, { content: "hey" })).body;
    // b has read their own message; a's reply is unread for b.
    expect(await readStates(b)).toEqual([{ channel_id: dm.conversation_id, last_read_message_id: dm.id, last_message_id: reply.id, mention_count: 0 }]);
    expect(await readStates(a)).toEqual([]);
    const other = await server.connect(b.token);
    const update = waitForEvent(other, "read-state:update");
    expect((await api("POST", `/dm/${a.id}/read`, b)).body).toEqual({ conversation_id: dm.conversation_id, last_read_message_id: reply.id });
    expect(await update).toEqual({ channel_id: dm.conversation_id, last_read_message_id: reply.id, mention_count: 0 });
    expect((await api("POST", `/dm/${a.id}/read`, b, { message_id: dm.id })).body.last_read_message_id).toBe(reply.id);
    expect(await readStates(b)).toEqual([]);

    const group = (await api("POST", "/dm/groups", a, { member_ids: [b.id, c.id] })).body;
    const said = (await api("POST", `/dm/groups/${group.id}/messages`, a, { content: "all" })).body;
    expect(await stateOf(c, group.id)).toEqual({ channel_id: group.id, last_read_message_id: null, last_message_id: said.id, mention_count: 0 });
    expect((await api("POST", `/dm/groups/${group.id}/read`, c)).status).toBe(200);
    expect(await stateOf(c, group.id)).toBeUndefined();
  });
});
