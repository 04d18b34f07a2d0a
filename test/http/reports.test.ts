import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { createBot } from "../helpers/bots.ts";
import { auditLog, community } from "../helpers/community.ts";
import { expectError, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";

// /api/v1/reports and /api/v1/admin/reports (docs/reports.md).
let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.register();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const OWN_KEYS = ["created_at", "id", "reason", "resolved_at", "status", "target_id", "type"];
const ADMIN_KEYS = [...OWN_KEYS, "action", "message", "note", "reporter", "resolved_by", "target_user"].sort();

const report = (user: { token: string } | null, body: unknown) => server.api("POST", "/api/v1/reports", { token: user?.token ?? null, body });
const mine = (user: { token: string } | null, query = "") => server.api("GET", `/api/v1/reports${query}`, { token: user?.token ?? null });
const adminGet = (path: string, user: { token: string } = admin) => server.api("GET", `/api/v1/admin/reports${path}`, { token: user.token });
const resolve = (id: string, body: unknown, user: { token: string } = admin) =>
  server.api("POST", `/api/v1/admin/reports/${id}/resolve`, { token: user.token, body });
const latestLog = async () => (await server.api("GET", "/api/v1/admin/log?limit=1", { token: admin.token })).body.entries[0];

/** The shared community, with a message of the owner's to report. */
async function withMessage() {
  const c = await community(server);
  const sent = await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.owner.token, body: { content: "something rude" } });
  return { ...c, message: sent.body as Record<string, any> };
}

describe("POST /api/v1/reports", () => {
  test("a member reports a channel message: 201, the reporter's view; the admin's view keeps the message", async () => {
    const { owner, member, serverId, channelId, message } = await withMessage();
    const res = await report(member, { message_id: message.id, reason: "  spam and insults  " });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(OWN_KEYS);
    expect(res.body).toEqual({
      id: expect.any(String),
      type: "message",
      target_id: message.id,
      reason: "spam and insults",
      status: "open",
      created_at: expect.any(Number),
      resolved_at: null,
    });
    // The message is edited away; the report keeps what was reported.
    await server.api("PUT", `/api/v1/messages/${message.id}`, { token: owner.token, body: { content: "nothing to see" } });
    const seen = await adminGet(`/${res.body.id}`);
    expect(seen.status).toBe(200);
    expect(Object.keys(seen.body).sort()).toEqual(ADMIN_KEYS);
    expect(seen.body).toEqual({
      ...res.body,
      reporter: { id: member.id, username: member.username },
      target_user: { id: owner.id, username: owner.username },
      message: { id: message.id, server_id: serverId, channel_id: channelId, conversation_id: null, content: "something rude", created_at: message.created_at },
      action: null,
      note: null,
      resolved_by: null,
    });
  });

  test("a user report, and a DM message report by a member of the conversation", async () => {
    const { owner, member } = await withMessage();
    const byUser = await report(member, { user_id: owner.id, reason: "harassment" });
    expect(byUser.status).toBe(201);
    expect(byUser.body).toMatchObject({ type: "user", target_id: owner.id });
    expect((await adminGet(`/${byUser.body.id}`)).body).toMatchObject({ message: null, target_user: { id: owner.id } });

    const dm = await server.api("POST", `/api/v1/dm/${member.id}/messages`, { token: owner.token, body: { content: "dm words" } });
    expect(dm.status).toBe(201);
    const byDm = await report(member, { message_id: dm.body.id, reason: "creepy DM" });
    expect(byDm.status).toBe(201);
    expect((await adminGet(`/${byDm.body.id}`)).body.message).toMatchObject({
      id: dm.body.id,
      server_id: null,
      channel_id: null,
      conversation_id: dm.body.conversation_id,
      content: "dm words",
    });
    // Someone outside the conversation cannot see it, so cannot report it.
    const stranger = await server.register();
    expectError(await report(stranger, { message_id: dm.body.id, reason: "x" }), 404, "Message not found");
  });

  test("a message the caller cannot see is 404, as is an unknown one", async () => {
    const { owner, outsider, serverId, channelId, message, member } = await withMessage();
    expectError(await report(outsider, { message_id: message.id, reason: "x" }), 404, "Message not found");
    expectError(await report(member, { message_id: UNKNOWN, reason: "x" }), 404, "Message not found");
    expectError(await report(member, { user_id: UNKNOWN, reason: "x" }), 404, "User not found");
    // A hidden channel hides its messages too.
    const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: PERMISSIONS.VIEW_CHANNEL },
    });
    expectError(await report(member, { message_id: message.id, reason: "x" }), 404, "Message not found");
  });

  test("a duplicate while the first is open answers 200 with that report; after it is closed, a new one is filed", async () => {
    const { owner, member } = await withMessage();
    const first = await report(member, { user_id: owner.id, reason: "first" });
    const again = await report(member, { user_id: owner.id, reason: "second" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // Another reporter files their own.
    const third = await server.register();
    expect((await report(third, { user_id: owner.id, reason: "me too" })).status).toBe(201);
    await resolve(first.body.id, { status: "dismissed" });
    const later = await report(member, { user_id: owner.id, reason: "it happened again" });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  test("400 for bad input, naming the field", async () => {
    const { owner, member, message } = await withMessage();
    expectError(await report(member, { reason: "x" }), 400, "body: give exactly one of message_id or user_id");
    expectError(await report(member, { user_id: owner.id, message_id: message.id, reason: "x" }), 400, "body: give exactly one of message_id or user_id");
    expectError(await report(member, { user_id: owner.id }), 400, "reason: is required");
    expectError(await report(member, { user_id: owner.id, reason: "   " }), 400, "reason: must be 1-1000 characters");
    expectError(await report(member, { user_id: owner.id, reason: "x".repeat(1001) }), 400, "reason: must be 1-1000 characters");
    expectError(await report(member, { user_id: "nope", reason: "x" }), 400, "user_id: must be a user id");
    expectError(await report(member, { message_id: 5, reason: "x" }), 400, "message_id: must be a string");
    expectError(await report(member, { user_id: member.id, reason: "x" }), 400, "You cannot report yourself");
    expectError(await report(owner, { message_id: message.id, reason: "x" }), 400, "You cannot report your own message");
  });

  test("401 without a token; bots cannot report or list reports (403)", async () => {
    const { owner } = await withMessage();
    expectError(await report(null, { user_id: owner.id, reason: "x" }), 401, "Unauthorized");
    expectError(await mine(null), 401, "Unauthorized");
    const bot = await createBot(server, owner);
    expectError(await report({ token: bot.token }, { user_id: owner.id, reason: "x" }), 403, "Bots cannot file reports");
    expectError(await mine({ token: bot.token }), 403, "Bots cannot file reports");
  });
});

describe("GET /api/v1/reports", () => {
  test("the caller's own reports, newest first, paged; nobody else's", async () => {
    const { owner, member, message } = await withMessage();
    const a = await report(member, { user_id: owner.id, reason: "a" });
    const b = await report(member, { message_id: message.id, reason: "b" });
    await report(owner, { user_id: member.id, reason: "not mine" });
    const res = await mine(member);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([b.body, a.body]);
    expect((await mine(member, "?limit=1")).body).toEqual([b.body]);
    expect((await mine(member, `?before=${b.body.id}`)).body).toEqual([a.body]);
    expectError(await mine(member, "?limit=0"), 400, "limit: must be a whole number between 1 and 100");
    expectError(await mine(member, "?before=zz"), 400, "before: must be an id from a previous page");
  });
});

describe("/api/v1/admin/reports", () => {
  test("list filters by status and type, newest first; non-administrators get 403", async () => {
    const { owner, member, message } = await withMessage();
    const userReport = await report(member, { user_id: owner.id, reason: "u" });
    const messageReport = await report(member, { message_id: message.id, reason: "m" });
    const open = await adminGet("?limit=2");
    expect(open.status).toBe(200);
    expect(open.body.map((r: any) => r.id)).toEqual([messageReport.body.id, userReport.body.id]);
    for (const r of open.body) expect(Object.keys(r).sort()).toEqual(ADMIN_KEYS);
    expect((await adminGet("?type=user&limit=1")).body.map((r: any) => r.id)).toEqual([userReport.body.id]);
    await resolve(userReport.body.id, { note: "talked to them", action: "warned" });
    expect((await adminGet("?limit=100")).body.map((r: any) => r.id)).not.toContain(userReport.body.id);
    expect((await adminGet("?status=resolved&limit=100")).body.map((r: any) => r.id)).toContain(userReport.body.id);
    expect((await adminGet("?status=all&limit=100")).body.map((r: any) => r.id)).toContain(userReport.body.id);
    expect((await adminGet(`?status=all&before=${messageReport.body.id}&limit=1`)).body.map((r: any) => r.id)).toEqual([userReport.body.id]);
    expectError(await adminGet("?status=closed"), 400, "status: must be one of open, resolved, dismissed, all");
    expectError(await adminGet("?type=server"), 400, "type: must be message or user");
    expectError(await adminGet("", member), 403, "Platform administrators only (MANAGE_SETTINGS)");
    expectError(await adminGet(`/${UNKNOWN}`), 404, "Report not found");
    expectError(await adminGet("/nope"), 404, "Report not found");
  });

  test("resolve: the outcome is recorded, shown to the reporter, logged; a closed report cannot be closed again", async () => {
    const { owner, member } = await withMessage();
    const filed = await report(member, { user_id: owner.id, reason: "rude" });
    const res = await resolve(filed.body.id, { action: "warned", note: "  warned by email  " });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ADMIN_KEYS);
    expect(res.body).toMatchObject({
      status: "resolved",
      action: "warned",
      note: "warned by email",
      resolved_by: { id: admin.id, username: admin.username },
      resolved_at: expect.any(Number),
    });
    expect(await latestLog()).toMatchObject({
      action: "REPORT_RESOLVE",
      actor: { id: admin.id },
      target_type: "report",
      target_id: filed.body.id,
      changes: { action: "warned", note: "warned by email" },
    });
    // The reporter sees the outcome, not the note.
    expect((await mine(member)).body[0]).toEqual({ ...filed.body, status: "resolved", resolved_at: res.body.resolved_at });
    expectError(await resolve(filed.body.id, {}), 400, "This report is already resolved");
    expect((await server.api("GET", `/api/v1/admin/users/${owner.id}`, { token: admin.token })).body.open_reports).toBe(0);
  });

  test("dismiss takes no action; defaults are resolved / none", async () => {
    const { owner, member } = await withMessage();
    const one = await report(member, { user_id: owner.id, reason: "meh" });
    expectError(await resolve(one.body.id, { status: "dismissed", action: "warned" }), 400, "action: a dismissed report takes no action");
    const dismissed = await resolve(one.body.id, { status: "dismissed" });
    expect(dismissed.body).toMatchObject({ status: "dismissed", action: "none", note: null });
    expect(await latestLog()).toMatchObject({ action: "REPORT_DISMISS", target_id: one.body.id, changes: { action: "none" } });
    const third = await server.register();
    const two = await report(third, { user_id: owner.id, reason: "again" });
    expect((await resolve(two.body.id, undefined)).body).toMatchObject({ status: "resolved", action: "none" });
  });

  test("user_disabled disables the message's author through the same operation, and logs both", async () => {
    const { owner, member, message } = await withMessage();
    const filed = await report(member, { message_id: message.id, reason: "bad" });
    expect((await server.api("GET", `/api/v1/admin/users/${owner.id}`, { token: admin.token })).body.open_reports).toBe(1);
    const res = await resolve(filed.body.id, { action: "user_disabled" });
    expect(res.body).toMatchObject({ status: "resolved", action: "user_disabled" });
    expectError(await server.api("GET", "/api/v1/users/me/info", { token: owner.token }), 403, "This account has been disabled by an administrator");
    const entries = (await server.api("GET", "/api/v1/admin/log?limit=2", { token: admin.token })).body.entries;
    expect(entries.map((e: any) => e.action)).toEqual(["REPORT_RESOLVE", "USER_DISABLE"]);
    // Reporting an administrator and picking user_disabled is refused, and the report stays open.
    const aboutAdmin = await report(member, { user_id: admin.id, reason: "abuse" });
    expectError(await resolve(aboutAdmin.body.id, { action: "user_disabled" }), 400, "You cannot disable your own account");
    expect((await adminGet(`/${aboutAdmin.body.id}`)).body.status).toBe("open");
  });

  test("message_deleted removes a channel message: message:deleted to the channel, MESSAGE_DELETE by the administrator in the server's audit log", async () => {
    const { owner, member, serverId, channelId, message } = await withMessage();
    const filed = await report(member, { message_id: message.id, reason: "rude" });
    const socket = await server.connect(member.token);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const deleted = waitForEvent(socket, "message:deleted");
    const res = await resolve(filed.body.id, { action: "message_deleted", note: "removed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "resolved", action: "message_deleted", note: "removed", message: { id: message.id, content: "something rude" } });
    expect(await deleted).toEqual({ channelId, messageId: message.id });
    expect((await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token })).body.map((m: any) => m.id)).not.toContain(message.id);
    expect(await latestLog()).toMatchObject({ action: "REPORT_RESOLVE", target_id: filed.body.id, changes: { action: "message_deleted", note: "removed" } });
    expect((await auditLog(server, serverId, owner, "MESSAGE_DELETE"))[0]).toMatchObject({
      actor_id: admin.id,
      target_type: "member",
      target_id: owner.id,
      changes: { messageId: message.id, channelId, reportId: filed.body.id },
    });
    socket.disconnect();
  });

  test("message_deleted removes a DM message (dm:deleted to the conversation); refused for user reports and gone messages, the report staying open", async () => {
    const { owner, member } = await withMessage();
    const dm = await server.api("POST", `/api/v1/dm/${member.id}/messages`, { token: owner.token, body: { content: "dm words" } });
    const filed = await report(member, { message_id: dm.body.id, reason: "creepy" });
    const socket = await server.connect(member.token);
    const deleted = waitForEvent(socket, "dm:deleted");
    expect((await resolve(filed.body.id, { action: "message_deleted" })).body).toMatchObject({ status: "resolved", action: "message_deleted" });
    expect(await deleted).toEqual({ conversationId: dm.body.conversation_id, messageId: dm.body.id });
    expect((await server.api("GET", `/api/v1/dm/${owner.id}/messages`, { token: member.token })).body).toEqual([]);
    socket.disconnect();

    const aboutUser = await report(member, { user_id: owner.id, reason: "x" });
    expectError(await resolve(aboutUser.body.id, { action: "message_deleted" }), 400, "action: message_deleted is for message reports");
    const again = await server.api("POST", `/api/v1/dm/${member.id}/messages`, { token: owner.token, body: { content: "more" } });
    const late = await report(member, { message_id: again.body.id, reason: "x" });
    await server.api("DELETE", `/api/v1/dm/${member.id}/messages/${again.body.id}`, { token: owner.token });
    expectError(await resolve(late.body.id, { action: "message_deleted" }), 400, "action: the reported message no longer exists");
    expectError(await resolve(filed.body.id, { action: "message_deleted" }), 400, "This report is already resolved");
    expect((await adminGet(`/${aboutUser.body.id}`)).body.status).toBe("open");
    expect((await adminGet(`/${late.body.id}`)).body.status).toBe("open");
  });

  test("bad resolve bodies are 400 naming the field; unknown reports 404", async () => {
    const { owner, member } = await withMessage();
    const filed = await report(member, { user_id: owner.id, reason: "x" });
    expectError(await resolve(filed.body.id, { status: "closed" }), 400, "status: must be resolved or dismissed");
    expectError(await resolve(filed.body.id, { action: "ban" }), 400, "action: must be one of none, warned, user_disabled, message_deleted");
    expectError(await resolve(filed.body.id, { note: "x".repeat(1001) }), 400, "note: must be at most 1000 characters");
    expectError(await resolve(filed.body.id, { note: 3 }), 400, "note: must be a string");
    expectError(await resolve(UNKNOWN, {}), 404, "Report not found");
    expectError(await resolve(filed.body.id, {}, member), 403, "Platform administrators only (MANAGE_SETTINGS)");
    expect((await adminGet(`/${filed.body.id}`)).body.status).toBe("open");
  });
});
