import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { addBot } from "../helpers/bots.ts";
import { addMember, auditLog, community, createVoiceChannel, joinChannel } from "../helpers/community.ts";
import { expectError, recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";

/**
 * A timeout as Discord's (docs/moderation.md, "Timeouts"): the timed-out member reads, and
 * nothing else, whatever their roles say: the permission computation leaves them only the read
 * bits, so every route and gateway event refuses them with "You are timed out in this server".
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const TIMED_OUT = "You are timed out in this server";
const nowSeconds = () => Math.floor(Date.now() / 1000);

const api = (method: string, path: string, user: TestUser | null, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user?.token, body });

async function send(user: TestUser, channelId: string, content: string) {
  const res = await api("POST", `/messages/${channelId}`, user, { content });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function timeOut(actor: TestUser, serverId: string, target: TestUser, duration = 600) {
  expect((await api("POST", `/servers/${serverId}/timeouts`, actor, { targetUserId: target.id, duration })).status).toBe(200);
}

describe("a timed-out moderator (issue 39, row 3)", () => {
  test("cannot delete others' messages, time out, kick, ban, lift a timeout, create a webhook or a channel, pin; still reads", async () => {
    const { owner, member, members, moderator, serverId, channelId } = await community(server, { moderator: true, extraMembers: 1 });
    const member2 = members[1]!;
    const other = await send(member, channelId, "someone else's");
    await timeOut(owner, serverId, member2);
    await timeOut(owner, serverId, moderator);
    // The owner watches the server and the channel: none of the refused actions emits anything.
    const watcher = await joinChannel(server, owner, channelId);
    expect((await watcher.emitWithAck("server:join", serverId)).ok).toBe(true);
    const WATCHED = ["message:deleted", "message:new", "message:pin", "member:left", "member:banned", "member:timeout", "channel:created"];
    const seen = WATCHED.map((event) => recordEvents(watcher, event));

    const refusals: [string, string, unknown?][] = [
      ["DELETE", `/messages/${other}`],
      ["POST", `/servers/${serverId}/timeouts`, { targetUserId: member.id, duration: 60 }],
      ["DELETE", `/servers/${serverId}/members/${member.id}`],
      ["POST", `/servers/${serverId}/bans`, { targetUserId: member.id }],
      ["DELETE", `/servers/${serverId}/timeouts/${member2.id}`],
      ["POST", `/channels/${channelId}/webhooks`, { name: "Sneaky" }],
      ["POST", `/channels/${serverId}`, { name: "mine", type: "text" }],
      ["POST", `/messages/${channelId}/pins/${other}`],
      ["POST", `/messages/${channelId}`, { content: "hello" }],
    ];
    for (const [method, path, body] of refusals) expectError(await api(method, path, moderator, body), 403, TIMED_OUT);

    // Nothing happened: the message, the member and the other timeout are all still there.
    expect((await api("GET", `/messages/id/${other}`, owner)).status).toBe(200);
    expect(await server.app.store.members.userIds(serverId)).toContain(member.id);
    expect((await server.app.domain.access.member(serverId, member2.id)).timedOut).toBe(true);
    expect((await api("GET", `/channels/${channelId}/webhooks`, owner)).body).toEqual([]);
    const log = await auditLog(server, serverId, owner);
    expect(log.filter((e) => e.actor_id === moderator.id)).toEqual([]);
    await quietWindow(50);
    expect(seen.flat()).toEqual([]);

    // Reading still works.
    expect((await api("GET", `/messages/${channelId}`, moderator)).status).toBe(200);
    expect((await api("GET", `/messages/id/${other}`, moderator)).status).toBe(200);
    expect((await api("GET", `/servers/${serverId}/members`, moderator)).status).toBe(200);

    // The watcher does hear them when they happen (the owner is not bound).
    const deleted = waitForEvent(watcher, "message:deleted");
    expect((await api("DELETE", `/messages/${other}`, owner)).status).toBe(200);
    expect(await deleted).toMatchObject({ messageId: other });
    watcher.close();
  });

  test("a moderator who is not timed out still moderates; the timed-out one moderates again once it is lifted", async () => {
    const { owner, member, members, moderator, serverId, channelId } = await community(server, { moderator: true, extraMembers: 2 });
    const other = await send(member, channelId, "to delete");
    const second = await server.register();
    await addMember(server, serverId, second, "moderator");
    await timeOut(owner, serverId, moderator);

    expect((await api("DELETE", `/messages/${other}`, second)).status).toBe(200);
    await timeOut(second, serverId, members[1]!);
    expect((await api("DELETE", `/servers/${serverId}/members/${members[2]!.id}`, second)).status).toBe(200);
    expect((await auditLog(server, serverId, owner, "MEMBER_KICK"))[0]).toMatchObject({ actor_id: second.id, target_id: members[2]!.id });

    expect((await api("DELETE", `/servers/${serverId}/timeouts/${moderator.id}`, owner)).status).toBe(200);
    expect((await api("DELETE", `/servers/${serverId}/timeouts/${members[1]!.id}`, moderator)).status).toBe(200);
    expect((await auditLog(server, serverId, owner, "MEMBER_TIMEOUT_REMOVE"))[0]).toMatchObject({ actor_id: moderator.id, target_id: members[1]!.id });
  });

  test("the owner and ADMINISTRATOR are not bound by timeouts, so they cannot be timed out", async () => {
    const { owner, admin, member, moderator, serverId } = await community(server, { admin: true, moderator: true });
    expectError(await api("POST", `/servers/${serverId}/timeouts`, owner, { targetUserId: admin.id, duration: 60 }), 403, "Members with ADMINISTRATOR cannot be timed out");
    expectError(await api("POST", `/servers/${serverId}/timeouts`, admin, { targetUserId: owner.id, duration: 60 }), 403);
    // A custom role with ADMINISTRATOR counts too.
    const role = await api("POST", `/roles/${serverId}`, owner, { name: "Root", permissions: PERMISSIONS.ADMINISTRATOR });
    expect(role.status).toBe(201);
    expect((await api("POST", `/roles/${serverId}/assign`, owner, { targetUserId: member.id, roleId: role.body.id })).status).toBe(200);
    expectError(await api("POST", `/servers/${serverId}/timeouts`, owner, { targetUserId: member.id, duration: 60 }), 403, "Members with ADMINISTRATOR cannot be timed out");
    expect((await auditLog(server, serverId, owner, "MEMBER_TIMEOUT")).length).toBe(0);
    // An ordinary timeout still works.
    await timeOut(owner, serverId, moderator);
  });
});

describe("a timed-out member (issue 39, row 6)", () => {
  test("cannot edit their messages, react, type, press components, create invites or join voice; reads", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const voiceId = await createVoiceChannel(server, owner, serverId);
    const bot = await addBot(server, owner, serverId, "Panel");
    const botSocket = await joinChannel(server, bot, channelId);
    const sent = await botSocket.emitWithAck("bot:send_message", {
      channel_id: channelId,
      content: "Pick",
      embeds: [{ title: "Panel", components: [{ type: "button", label: "Go", custom_id: "go" }] }],
    });
    expect(sent.ok).toBe(true);
    const mine = await send(member, channelId, "mine");
    const owners = await send(owner, channelId, "owner's");
    expect((await api("PUT", `/messages/${channelId}/reactions/${owners}`, owner, { emoji: "👍" })).status).toBe(200);
    await timeOut(owner, serverId, member);

    expectError(await api("PUT", `/messages/${mine}`, member, { content: "edited" }), 403, TIMED_OUT);
    expectError(await api("PUT", `/messages/${channelId}/reactions/${owners}`, member, { emoji: "👍" }), 403, TIMED_OUT);
    expectError(await api("PUT", `/messages/${channelId}/reactions/${owners}`, member, { emoji: "🎉" }), 403, TIMED_OUT);
    expectError(await api("POST", `/servers/${serverId}/invites`, member, {}), 403, TIMED_OUT);

    const socket = await joinChannel(server, member, channelId);
    const watcher = await joinChannel(server, owner, channelId);
    const typing = recordEvents(watcher, "typing:start");
    const interactions = recordEvents(botSocket, "interaction:create");
    expect(await socket.emitWithAck("typing:start", channelId)).toEqual({ ok: false, error: TIMED_OUT });
    expect(await socket.emitWithAck("message:component", { message_id: sent.message_id, custom_id: "go" })).toEqual({ ok: false, error: TIMED_OUT });
    expect(await socket.emitWithAck("voice:join", { channelId: voiceId })).toEqual({ ok: false, error: TIMED_OUT });
    await quietWindow(50);
    expect(typing).toEqual([]);
    expect(interactions).toEqual([]);
    expect(server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
    expect((await api("GET", `/messages/id/${mine}`, owner)).body.content).toBe("mine");

    // Reading and removing one's own reaction are not what a timeout stops.
    expect((await api("GET", `/messages/${channelId}`, member)).status).toBe(200);
    expect((await api("GET", `/messages/${channelId}/reactions/${owners}`, member)).status).toBe(200);

    // Lifted: all of it works again.
    expect((await api("DELETE", `/servers/${serverId}/timeouts/${member.id}`, owner)).status).toBe(200);
    expect((await api("PUT", `/messages/${mine}`, member, { content: "edited" })).status).toBe(200);
    expect((await api("POST", `/servers/${serverId}/invites`, member, {})).status).toBe(201);
    expect((await socket.emitWithAck("typing:start", channelId)).ok).toBe(true);
    expect((await socket.emitWithAck("message:component", { message_id: sent.message_id, custom_id: "go" })).ok).toBe(true);
    expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
    for (const s of [socket, watcher, botSocket]) s.close();
  });

  test("a timeout that runs out stops counting at once, and one that starts counts at once (kept access decisions)", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    await send(member, channelId, "before"); // the send's access decision is kept now
    await timeOut(owner, serverId, member);
    expectError(await api("POST", `/messages/${channelId}`, member, { content: "during" }), 403, TIMED_OUT);

    // A timeout ending in a moment (written straight to the store: the API's shortest is 60 s).
    await server.app.store.moderation.setTimeout(serverId, member.id, nowSeconds() + 1);
    expectError(await api("POST", `/messages/${channelId}`, member, { content: "still" }), 403, TIMED_OUT);
    // Sending until it is let through: a refused send writes nothing.
    await eventually(async () => (await api("POST", `/messages/${channelId}`, member, { content: "after" })).status === 201, "the timeout to end", { timeoutMs: 3000, intervalMs: 50 });
  });
});

describe("bots and components (issue 39, row 7)", () => {
  test("a bot socket cannot press a component, its own or another bot's", async () => {
    const { owner, serverId, channelId } = await community(server);
    const author = await addBot(server, owner, serverId, "Author");
    const other = await addBot(server, owner, serverId, "Other");
    const authorSocket = await joinChannel(server, author, channelId);
    const otherSocket = await joinChannel(server, other, channelId);
    const sent = await authorSocket.emitWithAck("bot:send_message", {
      channel_id: channelId,
      content: "Pick",
      embeds: [{ title: "Panel", components: [{ type: "button", label: "Go", custom_id: "go" }] }],
    });
    const got = recordEvents(authorSocket, "interaction:create");
    const refused = { ok: false, error: "Bots cannot press components" };
    expect(await authorSocket.emitWithAck("message:component", { message_id: sent.message_id, custom_id: "go" })).toEqual(refused);
    expect(await otherSocket.emitWithAck("message:component", { message_id: sent.message_id, custom_id: "go" })).toEqual(refused);
    await quietWindow(50);
    expect(got).toEqual([]);
    for (const s of [authorSocket, otherSocket]) s.close();
  });
});
