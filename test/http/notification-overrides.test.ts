import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createServer } from "../helpers/community.ts";
import { expectError, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow } from "../helpers/wait.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

// Notification settings per server, channel and DM (docs/users.md).
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const KEYS = ["level", "muted", "muted_until", "target_id", "target_type"];
const api = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/users/me/notifications${path}`, { token: user?.token, body });
const soon = () => Math.floor(Date.now() / 1000) + 3600;

describe("channel settings: GET/PUT /api/v1/users/me/notifications/channels/:channelId", () => {
  test("default until set; a change is answered, kept, and reaches the user's other sockets", async () => {
    const { member, channelId } = await community(server);
    const res = await api("GET", `/channels/${channelId}`, member);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(KEYS);
    expect(res.body).toEqual({ target_type: "channel", target_id: channelId, level: "default", muted: false, muted_until: null });

    const other = await server.connect(member.token);
    const heard = waitForEvent(other, "notifications:update");
    const until = soon();
    const put = await api("PUT", `/channels/${channelId}`, member, { level: "mentions", muted_until: until });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ target_type: "channel", target_id: channelId, level: "mentions", muted: true, muted_until: until });
    expect(await heard).toEqual(put.body);
    other.close();
    expect((await api("GET", `/channels/${channelId}`, member)).body).toEqual(put.body);

    // Fields left out keep their value; muted: true without a time mutes until unmuted.
    expect((await api("PUT", `/channels/${channelId}`, member, { muted: true })).body).toMatchObject({ level: "mentions", muted: true, muted_until: null });
    expect((await api("PUT", `/channels/${channelId}`, member, { level: "none" })).body).toMatchObject({ level: "none", muted: true, muted_until: null });
    expect((await api("PUT", `/channels/${channelId}`, member, { muted: false })).body).toMatchObject({ level: "none", muted: false, muted_until: null });
    // Back to the default: nothing is listed.
    expect((await api("PUT", `/channels/${channelId}`, member, { level: "default" })).body).toEqual({ ...res.body });
    expect((await api("GET", "/overrides", member)).body).toEqual([]);
  });

  test("a mute whose time has passed reads as no mute", async () => {
    const { member, channelId } = await community(server);
    const until = Math.floor(Date.now() / 1000) + 1;
    await server.app.store.notificationOverrides.set(member.id, "channel", channelId, "all", true, until - 10);
    expect((await api("GET", `/channels/${channelId}`, member)).body).toEqual({ target_type: "channel", target_id: channelId, level: "all", muted: false, muted_until: null });
  });

  test("400 on bad bodies, 401, 403 for a channel the user cannot view, 404 unknown", async () => {
    const { owner, member, outsider, channelId, everyone } = await community(server);
    expectError(await api("PUT", `/channels/${channelId}`, member, { level: "loud" }), 400, "level: must be one of default, all, mentions, none");
    expectError(await api("PUT", `/channels/${channelId}`, member, { muted: "yes" }), 400, "muted: must be a boolean");
    expectError(await api("PUT", `/channels/${channelId}`, member, { muted_until: 1.5 }), 400, "muted_until: must be unix seconds or null");
    expectError(await api("PUT", `/channels/${channelId}`, member, { muted_until: 1000 }), 400, "muted_until: must be in the future");
    expectError(await api("PUT", `/channels/${channelId}`, member, { muted: false, muted_until: soon() }), 400, "muted_until: must be null when muted is false");
    expectError(await api("PUT", `/channels/${channelId}`, member, []), 400);
    expect((await api("GET", `/channels/${channelId}`, null)).status).toBe(401);
    expect((await api("PUT", `/channels/${channelId}`, null, { level: "all" })).status).toBe(401);
    expect((await api("GET", `/channels/${channelId}`, outsider)).status).toBe(403);
    expect((await api("PUT", `/channels/${channelId}`, outsider, { level: "all" })).status).toBe(403);
    const hidden = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { token: owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
    expect(hidden.status).toBeLessThan(300);
    expect((await api("GET", `/channels/${channelId}`, member)).status).toBe(403);
    expect((await api("GET", `/channels/${UNKNOWN}`, member)).status).toBe(404);
    expect((await api("PUT", `/channels/${UNKNOWN}`, member, { level: "all" })).status).toBe(404);
  });
});

describe("server settings: GET/PUT /api/v1/users/me/notifications/servers/:serverId", () => {
  test("the level is kept; the mute is the server mute of POST/DELETE /servers/:id/mute, both ways", async () => {
    const { member, outsider, serverId } = await community(server);
    expect((await api("GET", `/servers/${serverId}`, member)).body).toEqual({ target_type: "server", target_id: serverId, level: "default", muted: false, muted_until: null });
    const socket = await server.connect(member.token);
    const heard = waitForEvent(socket, "notifications:update");
    const put = await api("PUT", `/servers/${serverId}`, member, { level: "mentions", muted: true });
    expect(put.body).toEqual({ target_type: "server", target_id: serverId, level: "mentions", muted: true, muted_until: null });
    expect(await heard).toEqual(put.body);
    socket.close();
    const listed = await server.api("GET", "/api/v1/servers/me/muted", { token: member.token });
    expect(listed.body.map((m: { server_id: string }) => m.server_id)).toEqual([serverId]);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/mute`, { token: member.token })).status).toBe(200);
    expect((await api("GET", `/servers/${serverId}`, member)).body).toMatchObject({ level: "mentions", muted: false });
    const mute = await server.api("POST", `/api/v1/servers/${serverId}/mute`, { token: member.token, body: { duration: 60 } });
    expect((await api("GET", `/servers/${serverId}`, member)).body).toMatchObject({ muted: true, muted_until: mute.body.muted_until });
    expect((await api("GET", "/overrides", member)).body).toEqual([{ target_type: "server", target_id: serverId, level: "mentions", muted: true, muted_until: mute.body.muted_until }]);

    expect((await api("GET", `/servers/${serverId}`, null)).status).toBe(401);
    expect((await api("GET", `/servers/${serverId}`, outsider)).status).toBe(403);
    expect((await api("PUT", `/servers/${serverId}`, outsider, { level: "all" })).status).toBe(403);
    expect((await api("GET", `/servers/${UNKNOWN}`, member)).status).toBe(404);
    expectError(await api("PUT", `/servers/${serverId}`, member, { level: "nothing" }), 400, "level: must be one of default, all, mentions, none");
  });
});

describe("DM settings: GET/PUT /api/v1/users/me/notifications/dms/:dmId", () => {
  test("1:1 and group DMs; only members (404 for anyone else, as every DM route)", async () => {
    const a = await server.register();
    const b = await server.register();
    const c = await server.register();
    const serverId = await createServer(server, a);
    await addMember(server, serverId, b);
    await addMember(server, serverId, c);
    const dm = await server.api("POST", `/api/v1/dm/channels/${b.id}`, { token: a.token });
    expect(dm.status).toBe(201);
    const dmId = dm.body.id;
    const group = await server.api("POST", "/api/v1/dm/groups", { token: a.token, body: { member_ids: [b.id, c.id] } });
    expect((await api("GET", `/dms/${dmId}`, a)).body).toEqual({ target_type: "dm", target_id: dmId, level: "default", muted: false, muted_until: null });
    const until = soon();
    const put = await api("PUT", `/dms/${dmId}`, a, { muted_until: until });
    expect(put.body).toEqual({ target_type: "dm", target_id: dmId, level: "default", muted: true, muted_until: until });
    // b's own setting of the same DM is theirs alone, and b hears nothing of a's change.
    const bSocket = await server.connect(b.token);
    const bHeard: unknown[] = [];
    bSocket.on("notifications:update", (p: unknown) => bHeard.push(p));
    await api("PUT", `/dms/${group.body.id}`, a, { level: "mentions" });
    expect((await api("GET", `/dms/${dmId}`, b)).body).toMatchObject({ muted: false, level: "default" });
    await quietWindow();
    expect(bHeard).toEqual([]);
    bSocket.close();
    expect((await api("GET", "/overrides", a)).body).toEqual(
      [put.body, { target_type: "dm", target_id: group.body.id, level: "mentions", muted: false, muted_until: null }].sort((x, y) => (x.target_id < y.target_id ? -1 : 1)),
    );

    expect((await api("GET", `/dms/${dmId}`, c)).status).toBe(404);
    expect((await api("PUT", `/dms/${dmId}`, c, { level: "all" })).status).toBe(404);
    expect((await api("GET", `/dms/${UNKNOWN}`, a)).status).toBe(404);
    expect((await api("GET", `/dms/nope`, a)).status).toBe(404);
    expect((await api("GET", `/dms/${dmId}`, null)).status).toBe(401);
    expect((await api("GET", "/overrides", null)).status).toBe(401);
    expectError(await api("PUT", `/dms/${dmId}`, a, { muted_until: "soon" }), 400, "muted_until: must be unix seconds or null");
  });
});
