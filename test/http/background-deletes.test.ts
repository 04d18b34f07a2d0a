/**
 * Server and channel deletes answer at once and finish in the background in batches
 * (docs/servers.md, "Deleting a server"; docs/channels.md, "Delete"): the answer comes while the
 * rows are still there, nothing of them can be read from then on, other requests are served
 * while the job runs, a restart resumes it, and at its end every row and file is gone and the
 * platform's message count is exact.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, auditEntries, community } from "../helpers/community.ts";
import { addBulkMessages, countRows } from "../helpers/bulk-messages.ts";
import { addBulkMembers } from "../helpers/seed.ts";
import { freshDatabase, onPostgres } from "../helpers/database.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { expectError, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { openDatabase } from "../../src/store/store.ts";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { createBot } from "../helpers/bots.ts";
import type { Config } from "../../src/config.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ deleteBatchRows: 500 });
});
afterAll(async () => {
  await server.stop();
});

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const api = (target: TestServer, method: string, path: string, user: TestUser | null, body?: unknown) =>
  target.api(method, path, { token: user?.token ?? null, body });
const messageCount = async (target: TestServer) => (await target.api("GET", "/api/v1/stats")).body.messages as number;

/** Tables holding a server's rows by `server_id`, and a channel's by `channel_id`. */
const SERVER_TABLES = ["server_members", "member_roles", "roles", "categories", "channels", "invites", "bans", "audit_log", "messages", "emojis", "server_gifs", "soundboard_sounds", "commands", "interactions", "webhooks"];
const CHANNEL_TABLES = ["messages", "pins", "channel_read_states", "channel_overrides", "webhooks", "interactions", "channel_last_messages", "channel_mentions"];

async function leftOf(target: TestServer, tables: string[], column: string, id: string): Promise<Record<string, number>> {
  const left: Record<string, number> = {};
  for (const table of tables) {
    const n = await countRows(target, table, column, id);
    if (n > 0) left[table] = n;
  }
  return left;
}

/** A message with a real attachment file, uploaded over REST; answers the message and the file's URL path. */
async function uploadImage(target: TestServer, channelId: string, user: TestUser): Promise<{ id: string; file: string }> {
  const form = new FormData();
  form.append("files", new File([PNG_1X1], "dot.png", { type: "image/png" }));
  const res = await target.api("POST", `/api/v1/messages/${channelId}/upload`, { token: user.token, raw: form });
  expect(res.status).toBe(201);
  return { id: res.body.id, file: res.body.attachments[0].filename };
}

const served = async (target: TestServer, path: string) => (await fetch(target.url + path)).status;

describe("DELETE /api/v1/servers/:id in the background", () => {
  test("answers before its 20,000 messages are gone; other requests are served meanwhile; then every row and file is gone, the count exact", async () => {
    const { owner, member, serverId, channelId } = await community(server);
    const second = await api(server, "POST", `/api/v1/channels/${serverId}`, owner, { name: "second", type: "text" });
    expect(second.status).toBe(201);
    await addBulkMembers(server.app.store, serverId, 2_000, `bg${process.pid % 1000}_`);
    const first = await addBulkMessages(server, { serverId, channelId, userId: member.id }, 10_000);
    await addBulkMessages(server, { serverId, channelId: second.body.id, userId: owner.id }, 10_000);
    const image = await uploadImage(server, channelId, member);
    expect(await api(server, "POST", `/api/v1/messages/${channelId}`, owner, { content: `hi <@${member.id}>` })).toMatchObject({ status: 201 });
    expect(await served(server, image.file)).toBe(200);
    // Another community, whose reads go on while the delete runs.
    const other = await community(server);
    const otherMessage = await api(server, "POST", `/api/v1/messages/${other.channelId}`, other.owner, { content: "still here" });
    const before = await messageCount(server);
    const batchesBefore = server.app.domain.deletions.batches;

    const socket = await server.connect(member.token);
    expect(await socket.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    const res = await api(server, "DELETE", `/api/v1/servers/${serverId}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    // Answered while the rows are still there, and nothing of the server can be read.
    expect(await countRows(server, "messages", "server_id", serverId)).toBeGreaterThan(10_000);
    expect(await api(server, "GET", `/api/v1/servers/${serverId}`, owner)).toMatchObject({ status: 404 });
    expectError(await api(server, "GET", `/api/v1/messages/${channelId}`, member), 404);
    expectError(await api(server, "GET", `/api/v1/messages/id/${first.idOf(5)}`, member), 404);
    expectError(await api(server, "GET", `/api/v1/servers/${serverId}/members`, owner), 404);
    expectError(await api(server, "GET", `/api/v1/channels/${serverId}`, owner), 404);
    expect((await api(server, "GET", "/api/v1/servers", member)).body).toEqual([]);
    expect((await api(server, "GET", "/api/v1/servers", owner)).body).toEqual([]);
    expect(await socket.emitWithAck("server:join", serverId)).toMatchObject({ ok: false });
    expect(await socket.emitWithAck("channel:join", channelId)).toMatchObject({ ok: false });
    expectError(await api(server, "POST", `/api/v1/messages/${channelId}`, owner, { content: "late" }), 404);
    expectError(await api(server, "DELETE", `/api/v1/servers/${serverId}`, owner), 404);
    // The other server is served while the job still has rows to delete.
    const page = await api(server, "GET", `/api/v1/messages/${other.channelId}`, other.owner);
    expect(page.status).toBe(200);
    expect(page.body.map((m: { id: string }) => m.id)).toEqual([otherMessage.body.id]);
    expect(await api(server, "POST", `/api/v1/messages/${other.channelId}`, other.member, { content: "meanwhile" })).toMatchObject({ status: 201 });
    expect(await countRows(server, "messages", "server_id", serverId)).toBeGreaterThan(0);

    await server.app.domain.deletions.idle();
    expect(await leftOf(server, SERVER_TABLES, "server_id", serverId)).toEqual({});
    expect(await countRows(server, "servers", "id", serverId)).toBe(0);
    expect(await server.app.store.deletions.pending()).toEqual([]);
    expect(await served(server, image.file)).toBe(404);
    // In batches of at most 500 rows: 20,000 messages take 40 or more.
    expect(server.app.domain.deletions.batches - batchesBefore).toBeGreaterThanOrEqual(40);
    // 20,002 messages gone, the one sent meanwhile in the other server counted.
    expect(await messageCount(server)).toBe(before - 20_002 + 1);
    socket.close();
  });

  test("401, 403 for a member, 404 for an unknown server", async () => {
    const { member, serverId } = await community(server);
    expectError(await api(server, "DELETE", `/api/v1/servers/${serverId}`, null), 401);
    expectError(await api(server, "DELETE", `/api/v1/servers/${serverId}`, member), 403);
    expectError(await api(server, "DELETE", `/api/v1/servers/${UNKNOWN}`, member), 404);
    expect(await server.app.store.deletions.pending()).toEqual([]);
  });

  test("a restart in the middle of the job resumes it", async () => {
    const database = await freshDatabase({ file: true });
    const on: Partial<Config> = onPostgres ? { databaseUrl: database.location } : { databaseUrl: undefined, databaseFile: database.location };
    const key = { secretsKey: "ab".repeat(32) };
    const first = await startServer({ ...on, ...key, deleteBatchRows: 100 });
    const { owner, member, serverId, channelId } = await community(first);
    await addBulkMessages(first, { serverId, channelId, userId: member.id }, 3_000);
    const total = await messageCount(first);
    expect((await api(first, "DELETE", `/api/v1/servers/${serverId}`, owner)).status).toBe(200);
    while (first.app.domain.deletions.batches < 3) await Bun.sleep(1);
    await first.stop();
    // As a crash would leave it: SQLite's one process held the lease (given back at start); on
    // PostgreSQL a node that died held it, and the next start takes it when the lease runs out.
    const db = await openDatabase(database.location);
    const lease = Math.floor(Date.now() / 1000) + (onPostgres ? 2 : 3_600);
    await db.run(db.prepare<unknown, [number]>("UPDATE deletion_jobs SET lease_until = ?"), lease);
    await db.close();

    const second = await startServer({ ...on, ...key, deleteBatchRows: 100 });
    const remaining = await countRows(second, "messages", "server_id", serverId);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(3_000);
    await second.app.domain.deletions.idle();
    while ((await second.app.store.deletions.pending()).length > 0) await Bun.sleep(5);
    expect(await leftOf(second, SERVER_TABLES, "server_id", serverId)).toEqual({});
    expect(await countRows(second, "servers", "id", serverId)).toBe(0);
    expect(await messageCount(second)).toBe(total - 3_000);
    await second.stop();
    await database.drop();
  });
});

describe("DELETE /api/v1/channels/:id in the background", () => {
  test("answers at once with channel:deleted and the audit entry; the channel's rows and files go in batches", async () => {
    const { owner, member, outsider, serverId, channelId } = await community(server);
    const created = await api(server, "POST", `/api/v1/channels/${serverId}`, owner, { name: "doomed", type: "text" });
    const doomed = created.body.id as string;
    const bulk = await addBulkMessages(server, { serverId, channelId: doomed, userId: member.id }, 3_000);
    const image = await uploadImage(server, doomed, member);
    expect(await api(server, "POST", `/api/v1/messages/${doomed}/pins/${bulk.idOf(1)}`, owner)).toMatchObject({ status: 200 });
    await api(server, "POST", `/api/v1/messages/${doomed}/read`, member, {});
    const before = await messageCount(server);
    const watcher = await server.connect(member.token);
    expect(await watcher.emitWithAck("server:join", serverId)).toEqual({ ok: true, serverId });
    const deleted = waitForEvent(watcher, "channel:deleted");

    expectError(await api(server, "DELETE", `/api/v1/channels/${doomed}`, null), 401);
    expectError(await api(server, "DELETE", `/api/v1/channels/${doomed}`, member), 403);
    expectError(await api(server, "DELETE", `/api/v1/channels/${doomed}`, outsider), 403);
    expectError(await api(server, "DELETE", `/api/v1/channels/${UNKNOWN}`, owner), 404);
    const res = await api(server, "DELETE", `/api/v1/channels/${doomed}`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await deleted).toEqual({ id: doomed, server_id: serverId });
    expect((await auditEntries(server, serverId, "CHANNEL_DELETE"))[0]).toMatchObject({ actor_id: owner.id, target_id: doomed, changes: { name: "doomed", type: "text" } });
    expect(await countRows(server, "messages", "channel_id", doomed)).toBeGreaterThan(0);
    expectError(await api(server, "GET", `/api/v1/channels/${doomed}`, owner), 404);
    expectError(await api(server, "GET", `/api/v1/messages/${doomed}`, owner), 404);
    expectError(await api(server, "GET", `/api/v1/messages/id/${bulk.idOf(10)}`, owner), 404);
    expectError(await api(server, "GET", `/api/v1/messages/id/${image.id}`, owner), 404);
    expectError(await api(server, "GET", `/api/v1/messages/${doomed}/pins`, owner), 404);
    expectError(await api(server, "DELETE", `/api/v1/channels/${doomed}`, owner), 404);
    const list = await api(server, "GET", `/api/v1/channels/${serverId}`, owner);
    expect(list.body.channels.map((c: { id: string }) => c.id)).toEqual([channelId]);
    expect((await api(server, "GET", "/api/v1/users/me/read-states", member)).body.map((r: { channel_id: string }) => r.channel_id)).not.toContain(doomed);
    // The rest of the server goes on.
    expect(await api(server, "POST", `/api/v1/messages/${channelId}`, member, { content: "meanwhile" })).toMatchObject({ status: 201 });

    await server.app.domain.deletions.idle();
    expect(await leftOf(server, CHANNEL_TABLES, "channel_id", doomed)).toEqual({});
    expect(await countRows(server, "channels", "id", doomed)).toBe(0);
    expect(await served(server, image.file)).toBe(404);
    expect(await messageCount(server)).toBe(before - 3_001 + 1);
    watcher.close();
  });
});

describe("bans with delete_message_seconds", () => {
  /** A member with messages from 8 days ago and from the last hour in two channels, and another member's recent ones. */
  async function spammer() {
    const c = await community(server, { moderator: true });
    const other = await api(server, "POST", `/api/v1/channels/${c.serverId}`, c.owner, { name: "other", type: "text" });
    const channels = [c.channelId, other.body.id as string];
    const old = await addBulkMessages(server, { serverId: c.serverId, channelId: c.channelId, userId: c.member.id }, 20, 8 * 86_400);
    const recent = [
      await addBulkMessages(server, { serverId: c.serverId, channelId: channels[0]!, userId: c.member.id }, 700, 1_800),
      await addBulkMessages(server, { serverId: c.serverId, channelId: channels[1]!, userId: c.member.id }, 600, 1_800),
    ];
    const bystander = await addBulkMessages(server, { serverId: c.serverId, channelId: channels[0]!, userId: c.moderator.id }, 30, 60);
    const recentIds = [...Array.from({ length: 700 }, (_, i) => recent[0]!.idOf(i + 1)), ...Array.from({ length: 600 }, (_, i) => recent[1]!.idOf(i + 1))];
    const watcher = await server.connect(c.owner.token);
    expect(await watcher.emitWithAck("server:join", c.serverId)).toEqual({ ok: true, serverId: c.serverId });
    for (const channelId of channels) expect(await watcher.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const seen: { channelId: string; messageId: string }[] = [];
    watcher.on("message:deleted", (payload) => seen.push(payload));
    return { ...c, channels, old, recentIds, bystander, watcher, seen };
  }

  async function expectRecentDeleted(s: Awaited<ReturnType<typeof spammer>>) {
    await server.app.domain.deletions.idle();
    const left = await server.app.store.db.all(
      server.app.store.db.prepare<{ id: string; user_id: string }, [string]>("SELECT id, user_id FROM messages WHERE server_id = ? ORDER BY id"),
      s.serverId,
    );
    expect(left.filter((m) => m.user_id === s.member.id).map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, i) => s.old.idOf(i + 1)));
    expect(left.filter((m) => m.user_id === s.moderator.id)).toHaveLength(30);
    await Bun.sleep(0);
    const deadline = Date.now() + 3000;
    while (s.seen.length < s.recentIds.length && Date.now() < deadline) await Bun.sleep(10);
    expect(s.seen.map((e) => e.messageId).sort()).toEqual([...s.recentIds].sort());
    const where = new Map(s.seen.map((e) => [e.messageId, e.channelId]));
    expect(where.get(s.recentIds[0]!)).toBe(s.channels[0]);
    expect(where.get(s.recentIds.at(-1)!)).toBe(s.channels[1]);
    s.watcher.close();
  }

  test("POST /servers/:id/bans: the member's messages of the last delete_message_seconds go, with message:deleted each; audited", async () => {
    const s = await spammer();
    const banned = waitForEvent(s.watcher, "member:banned");
    const res = await api(server, "POST", `/api/v1/servers/${s.serverId}/bans`, s.owner, { targetUserId: s.member.id, reason: "spam", delete_message_seconds: 3_600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: s.member.id, reason: "spam", banned_by: s.owner.id });
    expect(await banned).toEqual({ serverId: s.serverId, userId: s.member.id });
    const [entry] = await auditEntries(server, s.serverId, "MEMBER_BAN");
    expect(entry).toMatchObject({ actor_id: s.owner.id, target_id: s.member.id, changes: { reason: "spam", delete_message_seconds: 3_600 } });
    await expectRecentDeleted(s);
  });

  test("POST /servers/:id/bans: without it nothing is deleted; bad values are 400; 401, 403, 404", async () => {
    const c = await community(server);
    const target = await server.register();
    await addMember(server, c.serverId, target);
    await addBulkMessages(server, { serverId: c.serverId, channelId: c.channelId, userId: target.id }, 5, 60);
    const path = `/api/v1/servers/${c.serverId}/bans`;
    for (const bad of [-1, 604_801, 1.5, "60", null]) {
      expectError(await api(server, "POST", path, c.owner, { targetUserId: target.id, delete_message_seconds: bad }), 400, /^delete_message_seconds: /);
    }
    expectError(await api(server, "POST", path, null, { targetUserId: target.id, delete_message_seconds: 60 }), 401);
    expectError(await api(server, "POST", path, c.member, { targetUserId: target.id, delete_message_seconds: 60 }), 403);
    expectError(await api(server, "POST", `/api/v1/servers/${UNKNOWN}/bans`, c.owner, { targetUserId: target.id, delete_message_seconds: 60 }), 404);
    expect(await api(server, "POST", path, c.owner, { targetUserId: target.id })).toMatchObject({ status: 201 });
    expect((await auditEntries(server, c.serverId, "MEMBER_BAN"))[0]!.changes.delete_message_seconds).toBe(0);
    expect(await server.app.store.deletions.pending()).toEqual([]);
    expect(await countRows(server, "messages", "user_id", target.id)).toBe(5);
  });

  test("POST /oauth2/bot/servers/:serverId/bans takes delete_message_seconds too", async () => {
    const s = await spammer();
    const added = await createBot(server, s.owner);
    const authorized = await server.api("POST", `/api/v1/oauth2/applications/${added.appId}/servers/${s.serverId}`, {
      token: s.owner.token,
      body: { permissions: PERMISSIONS.BAN_MEMBERS },
    });
    expect(authorized.status).toBeLessThan(300);
    const path = `/api/v1/oauth2/bot/servers/${s.serverId}/bans`;
    expectError(await server.api("POST", path, { token: added.token, body: { user_id: s.member.id, delete_message_seconds: 604_801 } }), 400, /^delete_message_seconds: /);
    expectError(await server.api("POST", path, { token: null, body: { user_id: s.member.id } }), 401);
    const res = await server.api("POST", path, { token: added.token, body: { user_id: s.member.id, delete_message_seconds: 604_800 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: s.member.id, banned_by: added.botUserId });
    const [entry] = await auditEntries(server, s.serverId, "MEMBER_BAN");
    expect(entry).toMatchObject({ actor_id: added.botUserId, changes: { delete_message_seconds: 604_800 } });
    await expectRecentDeleted(s);
  });
});
