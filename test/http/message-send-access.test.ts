import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, joinChannel } from "../helpers/community.ts";
import { addBot } from "../helpers/bots.ts";
import { expectError, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

/**
 * The send's access decisions are cached on SQLite like the message page's
 * (Access.requireChannel, under the database's access version): every change of what a
 * member may do counts from the very next send, and what depends on the time (a timeout that
 * runs out, slowmode) is judged at every send. Each test sends first (the decision is then
 * cached), changes one thing, and sends again at once.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const as = (user: TestUser, method: string, path: string, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user.token, body });
const send = (channelId: string, user: TestUser, content = "hello") => as(user, "POST", `/messages/${channelId}`, { content });
const sent = async (channelId: string, user: TestUser, content = "hello") => {
  const res = await send(channelId, user, content);
  if (res.status !== 201) throw new Error(`send: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ channel_id: channelId, user_id: user.id, content });
  return res.body as { id: string };
};
const ok = async (res: Promise<{ status: number; body: unknown }>) => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string };
};
/** The database's access version (null on PostgreSQL): unchanged means no write a decision reads. */
const accessVersion = () => server.app.store.access.version();

async function setup() {
  const c = await community(server);
  await sent(c.channelId, c.member);
  return c;
}

describe("send access takes effect on the next send", () => {
  test("SEND_MESSAGES denied by a channel override, then allowed back", async () => {
    const { owner, member, channelId, everyone } = await setup();
    await ok(as(owner, "PUT", `/channels/${channelId}/permissions/${everyone}`, { allow: 0, deny: P.SEND_MESSAGES }));
    expectError(await send(channelId, member), 403, "Missing permission: SEND_MESSAGES");
    await ok(as(owner, "DELETE", `/channels/${channelId}/permissions/${everyone}`));
    await sent(channelId, member);
    await ok(as(owner, "PUT", `/channels/${channelId}/permissions/${everyone}`, { allow: 0, deny: P.VIEW_CHANNEL }));
    expectError(await send(channelId, member), 403, "Missing permission: VIEW_CHANNEL");
  });

  test("a role granting SEND_MESSAGES: removed, given back, its permissions edited", async () => {
    const { owner, member, channelId, serverId, everyone } = await setup();
    const role = await ok(as(owner, "POST", `/roles/${serverId}`, { name: "speakers", permissions: P.SEND_MESSAGES }));
    await ok(as(owner, "POST", `/roles/${serverId}/assign`, { targetUserId: member.id, roleId: role.id }));
    const before = await as(owner, "GET", `/roles/${serverId}/role/${everyone}`);
    const bits = before.body.permissions as number;
    await ok(as(owner, "PUT", `/roles/${serverId}/${everyone}`, { permissions: bits & ~P.SEND_MESSAGES }));
    await sent(channelId, member);
    await ok(as(owner, "DELETE", `/roles/${serverId}/assign/${member.id}/${role.id}`));
    expectError(await send(channelId, member), 403, "Missing permission: SEND_MESSAGES");
    await ok(as(owner, "POST", `/roles/${serverId}/assign`, { targetUserId: member.id, roleId: role.id }));
    await sent(channelId, member);
    await ok(as(owner, "PUT", `/roles/${serverId}/${role.id}`, { permissions: 0 }));
    expectError(await send(channelId, member), 403, "Missing permission: SEND_MESSAGES");
    await ok(as(owner, "PUT", `/roles/${serverId}/${role.id}`, { permissions: P.SEND_MESSAGES }));
    await sent(channelId, member);
    await ok(as(owner, "PUT", `/roles/${serverId}/${everyone}`, { permissions: bits }));
    await ok(as(owner, "DELETE", `/roles/${serverId}/${role.id}`));
    await sent(channelId, member);
    await ok(as(owner, "PUT", `/roles/${serverId}/${everyone}`, { permissions: bits & ~P.SEND_MESSAGES }));
    expectError(await send(channelId, member), 403, "Missing permission: SEND_MESSAGES");
  });

  test("kick, ban: 403 at once; joining again: 201; the channel deleted: 404", async () => {
    const { owner, member, channelId, serverId } = await setup();
    await ok(as(owner, "DELETE", `/servers/${serverId}/members/${member.id}`));
    expectError(await send(channelId, member), 403, "You are not a member of this server");
    await addMember(server, serverId, member);
    await sent(channelId, member);
    await ok(as(owner, "POST", `/servers/${serverId}/bans`, { targetUserId: member.id }));
    expectError(await send(channelId, member), 403, "You are not a member of this server");
    await ok(as(owner, "DELETE", `/servers/${serverId}/bans/${member.id}`));
    await addMember(server, serverId, member);
    await sent(channelId, member);
    await ok(as(owner, "DELETE", `/channels/${channelId}`));
    expectError(await send(channelId, member), 404);
  });

  test("a timeout set refuses the next send; removed, the next is accepted", async () => {
    const { owner, member, channelId, serverId } = await setup();
    await ok(as(owner, "POST", `/servers/${serverId}/timeouts`, { targetUserId: member.id, duration: 60 }));
    expectError(await send(channelId, member), 403, "You are timed out in this server");
    await ok(as(owner, "DELETE", `/servers/${serverId}/timeouts/${member.id}`));
    await sent(channelId, member);
  });

  // The spec's shortest timeout is 60 s: the member's row is given one ending in 2 s through the
  // store (a real write, as the route's), then the clock runs it out with no write at all.
  test("a timeout that runs out with no write: the next send is accepted", async () => {
    const { member, channelId, serverId } = await setup();
    const until = Math.floor(Date.now() / 1000) + 2;
    expect(await server.app.store.moderation.setTimeout(serverId, member.id, until)).toBe(true);
    expectError(await send(channelId, member), 403, "You are timed out in this server");
    const version = await accessVersion();
    expectError(await send(channelId, member), 403, "You are timed out in this server");
    // A timeout ends on a whole second: the clock passing it is what lets the send through.
    await eventually(() => Math.floor(Date.now() / 1000) > until, "the timeout's second to pass", { timeoutMs: 3000, intervalMs: 50 });
    await sent(channelId, member);
    // Nothing a decision reads was written meanwhile: the accepted send used the kept decision.
    expect(await accessVersion()).toBe(version);
  });

  test("slowmode applies at every send, and its window runs out with no write", async () => {
    // No send before: slowmode counts from the member's last message, whenever it was set.
    const { owner, member, channelId } = await community(server);
    await ok(as(owner, "PUT", `/channels/${channelId}`, { slowmode: 1 }));
    await sent(channelId, member, "one");
    const version = await accessVersion();
    const second = await send(channelId, member, "two");
    expect(second.status).toBe(429);
    expect(second.body.error).toMatch(/^Slowmode is on: wait \d+ seconds$/);
    // Sending until the window has run out (whole seconds): a refused send writes nothing.
    await eventually(async () => (await send(channelId, member, "three")).status === 201, "the slowmode window to run out", { timeoutMs: 4000, intervalMs: 50 });
    expect((await send(channelId, member, "four")).status).toBe(429);
    expect(await accessVersion()).toBe(version);
    await ok(as(owner, "PUT", `/channels/${channelId}`, { slowmode: 0 }));
    await sent(channelId, member, "five");
    await sent(channelId, member, "six");
  });

  test("chat in a voice channel turned off: refused at the next send", async () => {
    const { owner, member, serverId } = await setup();
    const voice = await ok(as(owner, "POST", `/channels/${serverId}`, { name: "Lounge", type: "voice" }));
    await ok(as(owner, "PUT", `/channels/${voice.id}`, { chat_enabled: true }));
    await sent(voice.id, member);
    await ok(as(owner, "PUT", `/channels/${voice.id}`, { chat_enabled: false }));
    expectError(await send(voice.id, member), 403, "Text chat is disabled for this voice channel");
  });

  test("message:new still reaches a socket in the channel, from a user's and a bot's send", async () => {
    const { owner, member, channelId, serverId } = await setup();
    const socket = await joinChannel(server, owner, channelId);
    const arrived = waitForEvent(socket, "message:new");
    const message = await sent(channelId, member, "to the room");
    expect(await arrived).toEqual(message);
    const bot = await addBot(server, owner, serverId);
    const botSocket = await server.connect(bot.token);
    const fromBot = waitForEvent(socket, "message:new");
    const ack = await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: "beep" });
    expect(ack).toMatchObject({ ok: true });
    expect(await fromBot).toEqual(ack.message);
    // The bot kicked: its very next send is refused.
    await ok(as(owner, "DELETE", `/servers/${serverId}/members/${bot.botUserId}`));
    expect(await botSocket.emitWithAck("bot:send_message", { channel_id: channelId, content: "beep" })).toMatchObject({ ok: false });
  });
});
