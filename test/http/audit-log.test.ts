import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser, expectError } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const ENTRY_KEYS = [
  "action", "actor_avatar", "actor_id", "actor_username", "changes", "created_at", "id", "server_id", "target_id", "target_type", "target_username",
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/servers${path}`, { token: user?.token, body });


describe("GET /api/v1/servers/:id/audit-log", () => {
  test("answers {entries, hasMore}, newest first, every field of an audit entry", async () => {
    const { owner, member, serverId } = await community(server, { admin: true, moderator: true });
    await call("POST", `/${serverId}/timeouts`, owner, { targetUserId: member.id, duration: 60 });
    const res = await call("GET", `/${serverId}/audit-log`, owner);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["entries", "hasMore"]);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.entries.map((e: any) => e.action)).toEqual(["MEMBER_TIMEOUT", "SERVER_CREATE"]);
    for (const entry of res.body.entries) {
      expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
      expect(entry.id).toMatch(UUID);
      expect(entry.server_id).toBe(serverId);
      expect(entry).toMatchObject({ actor_id: owner.id, actor_username: owner.username, actor_avatar: null });
      expect(typeof entry.changes).toBe("object");
      expect(Number.isInteger(entry.created_at)).toBe(true);
    }
    const [timeout, created] = res.body.entries;
    expect(timeout).toMatchObject({ target_type: "member", target_id: member.id, target_username: member.username });
    expect(created).toMatchObject({ target_type: "server", target_id: serverId, target_username: null });
  });

  test("target_username is resolved at read time, so a renamed member shows their current name", async () => {
    const { owner, member, serverId } = await community(server, { admin: true, moderator: true });
    await call("DELETE", `/${serverId}/members/${member.id}`, owner);
    const renamed = `${member.username}x`.slice(0, 32);
    const profile = await server.api("PUT", "/api/v1/users/me/profile", { token: member.token, body: { username: renamed } });
    expect(profile.status).toBe(200);
    const entry = (await call("GET", `/${serverId}/audit-log`, owner)).body.entries.find((e: any) => e.action === "MEMBER_KICK");
    expect(entry.target_username).toBe(renamed);
    expect(entry.changes.username).toBe(member.username);
  });

  test("limit pages the log and hasMore says whether older entries exist; before is unix seconds", async () => {
    const { owner, member, serverId } = await community(server, { admin: true, moderator: true });
    for (const duration of [60, 120, 180]) await call("POST", `/${serverId}/timeouts`, owner, { targetUserId: member.id, duration });
    const first = await call("GET", `/${serverId}/audit-log?limit=2`, owner);
    expect(first.status).toBe(200);
    expect(first.body.entries).toHaveLength(2);
    expect(first.body.hasMore).toBe(true);
    const all = await call("GET", `/${serverId}/audit-log?limit=100`, owner);
    expect(all.body.entries).toHaveLength(4);
    expect(all.body.hasMore).toBe(false);

    const future = Math.floor(Date.now() / 1000) + 10;
    expect((await call("GET", `/${serverId}/audit-log?before=${future}`, owner)).body.entries).toHaveLength(4);
    const past = await call("GET", `/${serverId}/audit-log?before=1`, owner);
    expect(past.body).toEqual({ entries: [], hasMore: false });
  });

  test("before may be an entry id: pages follow each other exactly, even within one second; another server's or an unknown id is 404", async () => {
    const { owner, member, serverId } = await community(server, { admin: true, moderator: true });
    // 12 entries in (most likely) the same second: unix-seconds paging could not split them.
    for (let i = 0; i < 11; i++) await call("POST", `/${serverId}/timeouts`, owner, { targetUserId: member.id, duration: 60 + i });
    const all = (await call("GET", `/${serverId}/audit-log?limit=100`, owner)).body.entries.map((e: any) => e.id);
    expect(all).toHaveLength(12);
    const paged: string[] = [];
    let before = "";
    for (let page = 0; page < 10; page++) {
      const res = await call("GET", `/${serverId}/audit-log?limit=5${before}`, owner);
      expect(res.status).toBe(200);
      paged.push(...res.body.entries.map((e: any) => e.id));
      if (!res.body.hasMore) break;
      before = `&before=${res.body.entries.at(-1).id}`;
    }
    expect(paged).toEqual(all);
    expect((await call("GET", `/${serverId}/audit-log?before=${all.at(-1)}`, owner)).body).toEqual({ entries: [], hasMore: false });
    expect((await call("GET", `/${serverId}/audit-log?limit=2&before=${all[0]!.toUpperCase()}`, owner)).body.entries.map((e: any) => e.id)).toEqual(all.slice(1, 3));

    const other = await community(server, { admin: true, moderator: true });
    const foreign = (await call("GET", `/${other.serverId}/audit-log`, other.owner)).body.entries[0].id;
    expectError(await call("GET", `/${serverId}/audit-log?before=${foreign}`, owner), 404, "Audit log entry not found");
    expectError(await call("GET", `/${serverId}/audit-log?before=${UNKNOWN}`, owner), 404, "Audit log entry not found");
    // The permission is checked first: a member without MANAGE_SERVER learns nothing about ids.
    expectError(await call("GET", `/${serverId}/audit-log?before=${UNKNOWN}`, member), 403);
  });

  test("action and actor_id filter the log (Hearth's addition), page by entry id and by seconds within the filter", async () => {
    const { owner, moderator, member, serverId } = await community(server, { admin: true, moderator: true });
    // Interleaved: owner and moderator time the member out, the owner also creates invites.
    for (let i = 0; i < 3; i++) {
      await call("POST", `/${serverId}/timeouts`, owner, { targetUserId: member.id, duration: 60 + i });
      await call("POST", `/${serverId}/timeouts`, moderator, { targetUserId: member.id, duration: 120 + i });
      await call("POST", `/${serverId}/invites`, owner, {});
    }
    const all = (await call("GET", `/${serverId}/audit-log?limit=100`, owner)).body.entries;
    const get = async (query: string) => {
      const res = await call("GET", `/${serverId}/audit-log?${query}`, owner);
      expect(res.status).toBe(200);
      return res.body as { entries: { id: string; action: string; actor_id: string; changes: Record<string, unknown> }[]; hasMore: boolean };
    };
    const ids = (entries: { id: string }[]) => entries.map((e) => e.id);

    const timeouts = await get("action=MEMBER_TIMEOUT");
    expect(ids(timeouts.entries)).toEqual(ids(all.filter((e: any) => e.action === "MEMBER_TIMEOUT")));
    expect(timeouts.entries).toHaveLength(6);
    expect(timeouts.hasMore).toBe(false);

    const byModerator = await get(`actor_id=${moderator.id}`);
    expect(byModerator.entries.map((e) => [e.action, e.actor_id, e.changes.duration])).toEqual([
      ["MEMBER_TIMEOUT", moderator.id, 122],
      ["MEMBER_TIMEOUT", moderator.id, 121],
      ["MEMBER_TIMEOUT", moderator.id, 120],
    ]);
    const ownerTimeouts = await get(`action=MEMBER_TIMEOUT&actor_id=${owner.id.toUpperCase()}`);
    expect(ownerTimeouts.entries.map((e) => e.changes.duration)).toEqual([62, 61, 60]);

    // Paging by entry id stays inside the filter; hasMore counts only matching entries.
    const first = await get("action=INVITE_CREATE&limit=2");
    expect(first.entries.map((e) => e.action)).toEqual(["INVITE_CREATE", "INVITE_CREATE"]);
    expect(first.hasMore).toBe(true);
    const second = await get(`action=INVITE_CREATE&limit=2&before=${first.entries[1]!.id}`);
    expect(second.entries).toHaveLength(1);
    expect(second.hasMore).toBe(false);
    expect([...ids(first.entries), ...ids(second.entries)]).toEqual(ids(all.filter((e: any) => e.action === "INVITE_CREATE")));
    // The anchor need not match the filter: after the newest entry (an invite), the moderator's three.
    expect(ids((await get(`actor_id=${moderator.id}&before=${all[0].id}`)).entries)).toEqual(ids(byModerator.entries));
    // Seconds paging filters too.
    const future = Math.floor(Date.now() / 1000) + 10;
    expect(ids((await get(`action=SERVER_CREATE&before=${future}`)).entries)).toEqual([all.at(-1).id]);
    expect(await get("action=SERVER_CREATE&before=1")).toEqual({ entries: [], hasMore: false });
    // Nothing matches: an action never recorded here, someone who never acted.
    expect(await get("action=VOICE_MOVE")).toEqual({ entries: [], hasMore: false });
    expect(await get(`actor_id=${member.id}`)).toEqual({ entries: [], hasMore: false });
    expect(await get(`actor_id=${UNKNOWN}`)).toEqual({ entries: [], hasMore: false });
  });

  test("an action that is not one of the log's, or an actor_id that is not a user id, is 400; the filters need MANAGE_SERVER", async () => {
    const { owner, moderator, serverId } = await community(server, { admin: true, moderator: true });
    const get = (query: string, user: TestUser = owner) => call("GET", `/${serverId}/audit-log?${query}`, user);
    expectError(await get("action=NOPE"), 400, "action: must be one of the audit log's actions");
    expectError(await get("action=member_kick"), 400, /^action: /);
    expectError(await get("action="), 400, /^action: /);
    expectError(await get("actor_id=someone"), 400, "actor_id: must be a user id");
    expectError(await get("actor_id="), 400, /^actor_id: /);
    expectError(await get(`action=MEMBER_KICK&actor_id=${owner.id}`, moderator), 403, /MANAGE_SERVER/);
    expectError(await call("GET", `/${serverId}/audit-log?action=MEMBER_KICK`, null), 401);
    expectError(await call("GET", `/${UNKNOWN}/audit-log?action=MEMBER_KICK`, owner), 404, "Server not found");
  });

  test("limit outside 1..100 and a non-integer before are 400", async () => {
    const { owner, serverId } = await community(server, { admin: true, moderator: true });
    const get = (query: string) => call("GET", `/${serverId}/audit-log?${query}`, owner);
    expectError(await get("limit=0"), 400, /^limit: /);
    expectError(await get("limit=101"), 400, /^limit: /);
    expectError(await get("limit=-1"), 400, /^limit: /);
    expectError(await get("limit=abc"), 400, /^limit: /);
    expectError(await get("limit=1.5"), 400, /^limit: /);
    expectError(await get("limit="), 400, /^limit: /);
    expectError(await get("before=abc"), 400, /^before: /);
    expectError(await get("before=-5"), 400, /^before: /);
    expectError(await get("before=2024-01-01"), 400, /^before: /);
    expect((await get("limit=1")).status).toBe(200);
    expect((await get("limit=100")).status).toBe(200);
  });

  test("ADMINISTRATOR or MANAGE_SERVER: admins yes; moderators, members and outsiders 403; 401; 404", async () => {
    const { admin, moderator, member, outsider, serverId } = await community(server, { admin: true, moderator: true });
    expect((await call("GET", `/${serverId}/audit-log`, admin)).status).toBe(200);
    expectError(await call("GET", `/${serverId}/audit-log`, moderator), 403, /MANAGE_SERVER/);
    expectError(await call("GET", `/${serverId}/audit-log`, member), 403);
    expectError(await call("GET", `/${serverId}/audit-log`, outsider), 403);
    expectError(await call("GET", `/${serverId}/audit-log`, null), 401);
    expectError(await call("GET", `/${UNKNOWN}/audit-log`, admin), 404, "Server not found");
    expectError(await call("GET", `/nope/audit-log`, admin), 404);
  });
});
