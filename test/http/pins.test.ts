import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditEntries, community, joinChannel } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { LIMITS } from "../../src/domain/shared/limits.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];

const api = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/messages${path}`, { token: user?.token, body });
const pin = (channelId: string, messageId: string, user: TestUser | null) => api("POST", `/${channelId}/pins/${messageId}`, user);
const unpin = (channelId: string, messageId: string, user: TestUser | null) => api("DELETE", `/${channelId}/pins/${messageId}`, user);
const pins = (channelId: string, user: TestUser | null) => api("GET", `/${channelId}/pins`, user);
const send = async (channelId: string, user: TestUser, content: string): Promise<string> => {
  const res = await api("POST", `/${channelId}`, user, { content });
  expect(res.status).toBe(201);
  return res.body.id;
};

/** The shared community, with a message of `member`'s to pin. */
async function withMessage() {
  const c = await community(server);
  return { ...c, messageId: await send(c.channelId, c.member, "pin me") };
}

const override = (owner: TestUser, channelId: string, roleId: string, allow: number, deny: number) =>
  server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow, deny } });

describe("POST /api/v1/messages/:channelId/pins/:messageId", () => {
  test("pins: 200 with the state, message:pin, MESSAGE_PIN on the author; again is a quiet no-op", async () => {
    const { owner, member, serverId, channelId, messageId } = await withMessage();
    const socket = await joinChannel(server, member, channelId);
    const events = recordEvents(socket, "message:pin");
    const received = waitForEvent(socket, "message:pin");
    const res = await pin(channelId, messageId, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channelId, messageId, pinned: true });
    expect(await received).toEqual({ channelId, messageId, pinned: true });
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({
      action: "MESSAGE_PIN", actor_id: owner.id, target_type: "member", target_id: member.id,
    });
    expect(entry!.changes).toEqual({ messageId, channelId });

    const again = await pin(channelId, messageId, owner);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ channelId, messageId, pinned: true });
    await quietWindow(); // no second event for the repeated pin
    expect(events.length).toBe(1);
    expect((await auditEntries(server, serverId)).filter((e) => e.action === "MESSAGE_PIN").length).toBe(1);
    socket.close();
  });

  test("MANAGE_MESSAGES is needed; 401, non-member 403, 404s", async () => {
    const { owner, member, outsider, serverId, channelId, messageId } = await withMessage();
    expect((await pin(channelId, messageId, null)).status).toBe(401);
    const refused = await pin(channelId, messageId, member);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Missing permission: MANAGE_MESSAGES" });
    expect((await pin(channelId, messageId, outsider)).body).toEqual({ error: "You are not a member of this server" });
    expect((await pin(UNKNOWN, messageId, owner)).body).toEqual({ error: "Channel not found" });
    expect((await pin("nope", messageId, owner)).status).toBe(404);
    expect((await pin(channelId, UNKNOWN, owner)).body).toEqual({ error: "Message not found" });
    expect((await pin(channelId, "nope", owner)).body).toEqual({ error: "Message not found" });
    const other = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "other", type: "text" } });
    expect((await pin(other.body.id, messageId, owner)).body).toEqual({ error: "Message not found" });
    // A moderator holds MANAGE_MESSAGES.
    const moderator = await server.register();
    await addMember(server, serverId, moderator, "moderator");
    expect((await pin(channelId, messageId, moderator)).status).toBe(200);
  });

  test(`a channel holds at most ${LIMITS.message.pinsPerChannel} pins`, async () => {
    const { owner, channelId, messageId } = await withMessage();
    const ids: string[] = [];
    for (let i = 0; i < LIMITS.message.pinsPerChannel; i++) {
      const id = await send(channelId, owner, `m${i}`);
      ids.push(id);
      expect((await pin(channelId, id, owner)).status).toBe(200);
    }
    const full = await pin(channelId, messageId, owner);
    expect(full.status).toBe(400);
    expect(full.body).toEqual({ error: `This channel already has the maximum of ${LIMITS.message.pinsPerChannel} pinned messages` });
    // Re-pinning a pinned message is still fine, and unpinning makes room.
    expect((await pin(channelId, ids[0]!, owner)).status).toBe(200);
    expect((await unpin(channelId, ids[0]!, owner)).status).toBe(200);
    expect((await pin(channelId, messageId, owner)).status).toBe(200);
    expect((await pins(channelId, owner)).body.length).toBe(LIMITS.message.pinsPerChannel);
  });
});

describe("DELETE /api/v1/messages/:channelId/pins/:messageId", () => {
  test("unpins: 200, message:pin false, MESSAGE_UNPIN; 404 when not pinned", async () => {
    const { owner, member, serverId, channelId, messageId } = await withMessage();
    await pin(channelId, messageId, owner);
    const socket = await joinChannel(server, member, channelId);
    const received = waitForEvent(socket, "message:pin");
    const res = await unpin(channelId, messageId, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channelId, messageId, pinned: false });
    expect(await received).toEqual({ channelId, messageId, pinned: false });
    const [entry] = await auditEntries(server, serverId);
    expect(entry).toMatchObject({ action: "MESSAGE_UNPIN", actor_id: owner.id, target_type: "member", target_id: member.id });
    expect(entry!.changes).toEqual({ messageId, channelId });
    const again = await unpin(channelId, messageId, owner);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "Pin not found" });
    socket.close();
  });

  test("401, 403 and 404", async () => {
    const { owner, member, outsider, channelId, messageId } = await withMessage();
    await pin(channelId, messageId, owner);
    expect((await unpin(channelId, messageId, null)).status).toBe(401);
    expect((await unpin(channelId, messageId, member)).body).toEqual({ error: "Missing permission: MANAGE_MESSAGES" });
    expect((await unpin(channelId, messageId, outsider)).status).toBe(403);
    expect((await unpin(UNKNOWN, messageId, owner)).status).toBe(404);
    expect((await unpin(channelId, UNKNOWN, owner)).body).toEqual({ error: "Message not found" });
    expect((await unpin(channelId, "nope", owner)).status).toBe(404);
    expect((await pins(channelId, owner)).body.length).toBe(1);
  });
});

describe("GET /api/v1/messages/:channelId/pins", () => {
  test("message objects, newest pin first; a deleted message leaves the list", async () => {
    const { owner, member, channelId, messageId } = await withMessage();
    const later = await send(channelId, owner, "later message");
    const third = await send(channelId, member, "third");
    // Pin order differs from message order: the newest pin comes first.
    await pin(channelId, later, owner);
    await pin(channelId, messageId, owner);
    await pin(channelId, third, owner);
    const res = await pins(channelId, member);
    expect(res.status).toBe(200);
    expect(res.body.map((m: { id: string }) => m.id)).toEqual([third, messageId, later]);
    for (const message of res.body) expect(Object.keys(message).sort()).toEqual(MESSAGE_KEYS);
    const single = await api("GET", `/id/${messageId}`, member);
    expect(res.body[1]).toEqual(single.body);

    expect((await api("DELETE", `/${messageId}`, member)).status).toBe(200);
    expect((await pins(channelId, member)).body.map((m: { id: string }) => m.id)).toEqual([third, later]);
  });

  test("READ_MESSAGE_HISTORY is needed; 401, 403, 404", async () => {
    const { owner, member, outsider, channelId, everyone } = await withMessage();
    expect((await pins(channelId, null)).status).toBe(401);
    expect((await pins(channelId, outsider)).status).toBe(403);
    expect((await pins(UNKNOWN, member)).status).toBe(404);
    expect((await pins("nope", member)).status).toBe(404);
    expect((await pins(channelId, member)).body).toEqual([]);
    await override(owner, channelId, everyone, 0, P.READ_MESSAGE_HISTORY);
    const refused = await pins(channelId, member);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Missing permission: READ_MESSAGE_HISTORY" });
  });
});
