import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { addMember, createServer } from "../helpers/community.ts";
import { fileForm, NOT_AN_IMAGE, PNG_1X1, pngOfSize } from "../helpers/images.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const GROUP_KEYS = ["icon", "id", "last_message_at", "name", "owner_id", "recipients", "type"];

const call = (method: string, path: string, user: TestUser | null, body?: unknown) =>
  server.api(method, `/api/v1/dm/groups${path}`, { token: user?.token, body });

/** An owner and `n` users who share a server with them, plus a stranger. */
async function people(n = 3) {
  const owner = await server.register();
  const serverId = await createServer(server, owner);
  const users: TestUser[] = [];
  for (let i = 0; i < n; i++) {
    const u = await server.register();
    await addMember(server, serverId, u);
    users.push(u);
  }
  const stranger = await server.register();
  return { owner, users, stranger, serverId };
}

async function group(owner: TestUser, members: TestUser[], name?: string) {
  const res = await call("POST", "", owner, { name, member_ids: members.map((m) => m.id) });
  if (res.status !== 201) throw new Error(`create failed ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe("creating and listing", () => {
  test("POST / creates the group (201) and tells every member (dm:group:created)", async () => {
    const { owner, users: [b, c] } = await people(2);
    const sb = await server.connect(b!.token);
    const got = waitForEvent(sb, "dm:group:created");
    const res = await call("POST", "", owner, { name: "  Trip  ", member_ids: [b!.id, c!.id, owner.id, b!.id] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(GROUP_KEYS);
    expect(res.body).toMatchObject({ type: "group", name: "Trip", icon: null, owner_id: owner.id, last_message_at: null });
    expect(ids(res.body.recipients).sort()).toEqual([b!.id, c!.id].sort());
    expect(res.body.recipients[0]).toEqual({ id: expect.any(String), username: expect.any(String), avatar: null, status: expect.any(String), is_bot: 0 });
    const pushed = await got;
    expect(pushed.id).toBe(res.body.id);
    expect(ids(pushed.recipients).sort()).toEqual([owner.id, c!.id].sort());
    expect((await call("GET", "", b!)).body.map((g: { id: string }) => g.id)).toEqual([res.body.id]);
  });

  test("name defaults to null; member count, bodies and strangers are checked", async () => {
    const { owner, users, stranger } = await people(11);
    expect((await call("POST", "", owner, { member_ids: [users[0]!.id, users[1]!.id] })).body.name).toBeNull();
    expect((await call("POST", "", owner, { member_ids: [users[0]!.id] })).status).toBe(400);
    expect((await call("POST", "", owner, { member_ids: ids(users) })).status).toBe(400);
    expect((await call("POST", "", owner, { member_ids: ids(users.slice(0, 10)) })).status).toBe(201);
    expect((await call("POST", "", owner, {})).body).toEqual({ error: "member_ids: is required" });
    expect((await call("POST", "", owner, { member_ids: ["x", "y"] })).status).toBe(400);
    expect((await call("POST", "", owner, { name: "x".repeat(101), member_ids: ids(users.slice(0, 2)) })).status).toBe(400);
    expect((await call("POST", "", owner, { member_ids: [users[0]!.id, UNKNOWN] })).status).toBe(404);
    expect(await call("POST", "", owner, { member_ids: [users[0]!.id, stranger.id] })).toMatchObject({
      status: 403, body: { error: "You can only message users who share a server with you or are your friends" },
    });
    expect((await call("POST", "", null, { member_ids: ids(users.slice(0, 2)) })).status).toBe(401);
    expect((await call("GET", "", null)).status).toBe(401);
  });
});

describe("managing", () => {
  test("PATCH renames (any member), dm:group:updated; non-members get 404", async () => {
    const { owner, users: [b, c], stranger } = await people(2);
    const g = await group(owner, [b!, c!]);
    const sc = await server.connect(c!.token);
    const got = waitForEvent(sc, "dm:group:updated");
    const res = await call("PATCH", `/${g.id}`, b!, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Renamed");
    expect((await got).name).toBe("Renamed");
    expect((await call("PATCH", `/${g.id}`, b!, { name: "" })).body.name).toBeNull();
    expect((await call("PATCH", `/${g.id}`, stranger, { name: "x" })).status).toBe(404);
    expect((await call("PATCH", `/${UNKNOWN}`, b!, { name: "x" })).status).toBe(404);
    expect((await call("PATCH", "/nope", b!, { name: "x" })).status).toBe(404);
    expect((await call("PATCH", `/${g.id}`, b!, { name: 5 })).status).toBe(400);
    expect((await call("PATCH", `/${g.id}`, null, { name: "x" })).status).toBe(401);
  });

  test("icon: set by magic bytes (8 MB), served, replaced file removed, cleared", async () => {
    const { owner, users: [b, c], stranger } = await people(2);
    const g = await group(owner, [b!, c!]);
    const up = (user: TestUser | null, form: FormData) => server.api("POST", `/api/v1/dm/groups/${g.id}/icon`, { token: user?.token, raw: form });
    const first = await up(b!, fileForm("icon", PNG_1X1, "i.png"));
    expect(first.status).toBe(200);
    expect(first.body.icon).toMatch(/^\/uploads\/group-icons\/[0-9a-f-]{36}\.png$/);
    expect((await fetch(server.url + first.body.icon)).status).toBe(200);
    const second = await up(owner, fileForm("icon", PNG_1X1, "j.png"));
    expect(existsSync(join(server.dataDir, first.body.icon))).toBe(false);
    expect((await up(owner, fileForm("icon", NOT_AN_IMAGE, "x.png"))).status).toBe(400);
    expect((await up(owner, fileForm("icon", pngOfSize(8 * 1024 * 1024 + 1), "big.png"))).status).toBe(413);
    expect((await up(stranger, fileForm("icon", PNG_1X1, "i.png"))).status).toBe(404);
    expect((await up(null, fileForm("icon", PNG_1X1, "i.png"))).status).toBe(401);
    const cleared = await call("DELETE", `/${g.id}/icon`, c!);
    expect(cleared.body.icon).toBeNull();
    expect(existsSync(join(server.dataDir, second.body.icon))).toBe(false);
    expect((await call("DELETE", `/${g.id}/icon`, stranger)).status).toBe(404);
  });

  test("members: any member adds (cap 11 total), owner removes, 409 on repeats", async () => {
    const { owner, users, stranger } = await people(11);
    const g = await group(owner, users.slice(0, 2));
    const sd = await server.connect(users[2]!.token);
    const got = waitForEvent(sd, "dm:group:updated");
    const added = await call("POST", `/${g.id}/members`, users[0]!, { user_id: users[2]!.id });
    expect(added.status).toBe(200);
    expect(added.body.recipients).toHaveLength(3);
    expect((await got).id).toBe(g.id);
    expect((await call("POST", `/${g.id}/members`, users[0]!, { user_id: users[2]!.id })).status).toBe(409);
    expect((await call("POST", `/${g.id}/members`, users[0]!, { user_id: stranger.id })).status).toBe(403);
    expect((await call("POST", `/${g.id}/members`, users[0]!, { user_id: UNKNOWN })).status).toBe(404);
    expect((await call("POST", `/${g.id}/members`, users[0]!, {})).status).toBe(400);
    expect((await call("POST", `/${g.id}/members`, stranger, { user_id: users[3]!.id })).status).toBe(404);
    for (const u of users.slice(3, 10)) expect((await call("POST", `/${g.id}/members`, owner, { user_id: u.id })).status).toBe(200);
    expect((await call("POST", `/${g.id}/members`, owner, { user_id: users[10]!.id })).status).toBe(400);

    expect((await call("DELETE", `/${g.id}/members/${users[2]!.id}`, users[0]!)).status).toBe(403);
    const removedEvents = recordEvents(sd, "dm:group:removed");
    expect((await call("DELETE", `/${g.id}/members/${users[2]!.id}`, owner)).status).toBe(200);
    await until(() => removedEvents.length > 0, "dm:group:removed");
    expect(removedEvents).toEqual([{ conversationId: g.id }]);
    expect((await call("GET", `/${g.id}/messages`, users[2]!)).status).toBe(404);
    expect((await call("DELETE", `/${g.id}/members/${users[2]!.id}`, owner)).status).toBe(404);
    expect((await call("DELETE", `/${g.id}/members/${users[1]!.id}`, users[1]!)).status).toBe(200);
    expect((await call("GET", "", users[1]!)).body).toEqual([]);
  });

  test("owner transfer, and the owner leaving hands the group to the longest-standing member", async () => {
    const { owner, users: [b, c, d] } = await people(3);
    const g = await group(owner, [b!, c!]);
    expect((await call("POST", `/${g.id}/owner`, b!, { user_id: c!.id })).status).toBe(403);
    expect((await call("POST", `/${g.id}/owner`, owner, { user_id: d!.id })).status).toBe(404);
    expect((await call("POST", `/${g.id}/owner`, owner, { user_id: "x" })).status).toBe(400);
    const moved = await call("POST", `/${g.id}/owner`, owner, { user_id: c!.id });
    expect(moved.status).toBe(200);
    expect(moved.body.owner_id).toBe(c!.id);
    expect((await call("DELETE", `/${g.id}`, owner)).status).toBe(403);
    // c leaves as owner: the longest-standing of owner and b takes over.
    expect((await call("POST", `/${g.id}/leave`, c!)).status).toBe(200);
    const after = (await call("GET", "", owner)).body[0];
    const expected = [owner.id, b!.id].sort()[0];
    expect([owner.id, b!.id]).toContain(after.owner_id);
    expect(after.owner_id).toBe(expected);
    expect((await call("POST", `/${g.id}/leave`, c!)).status).toBe(404);
  });

  test("the last member leaving deletes the group and its files", async () => {
    const { owner, users: [b, c] } = await people(2);
    const g = await group(owner, [b!, c!]);
    const form = new FormData();
    form.append("files", new File([PNG_1X1], "p.png"));
    const msg = await server.api("POST", `/api/v1/dm/groups/${g.id}/upload`, { token: b!.token, raw: form });
    expect(msg.status).toBe(201);
    const file = join(server.dataDir, msg.body.attachments[0].filename);
    expect(existsSync(file)).toBe(true);
    for (const u of [owner, b!, c!]) expect((await call("POST", `/${g.id}/leave`, u)).status).toBe(200);
    expect(existsSync(file)).toBe(false);
    expect(await server.app.store.dms.findById(g.id)).toBeNull();
  });

  test("DELETE /:groupId: owner only, removes files, emits dm:group:deleted", async () => {
    const { owner, users: [b, c], stranger } = await people(2);
    const g = await group(owner, [b!, c!]);
    const form = new FormData();
    form.append("files", new File([new TextEncoder().encode("doc")], "doc.txt"));
    const msg = await server.api("POST", `/api/v1/dm/groups/${g.id}/upload`, { token: c!.token, raw: form });
    const file = join(server.dataDir, msg.body.attachments[0].filename);
    expect((await call("DELETE", `/${g.id}`, b!)).status).toBe(403);
    expect((await call("DELETE", `/${g.id}`, stranger)).status).toBe(404);
    expect((await call("DELETE", `/${g.id}`, null)).status).toBe(401);
    const sb = await server.connect(b!.token);
    const got = waitForEvent(sb, "dm:group:deleted");
    expect((await call("DELETE", `/${g.id}`, owner)).body).toEqual({ success: true });
    expect(await got).toEqual({ conversationId: g.id });
    expect(existsSync(file)).toBe(false);
    expect((await call("GET", `/${g.id}/messages`, owner)).status).toBe(404);
  });
});

describe("group messages", () => {
  test("send, page, edit, delete, with events to every member", async () => {
    const { owner, users: [b, c], stranger } = await people(2);
    const g = await group(owner, [b!, c!]);
    const [so, sc] = await Promise.all([server.connect(owner.token), server.connect(c!.token)]);
    const gotO = waitForEvent(so, "dm:new");
    const gotC = waitForEvent(sc, "dm:new");
    const sent = await call("POST", `/${g.id}/messages`, b!, { content: "hello group" });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ conversation_id: g.id, channel_id: g.id, user_id: b!.id, content: "hello group" });
    expect(await gotO).toEqual(sent.body);
    expect(await gotC).toEqual(sent.body);
    expect((await call("GET", `/${g.id}/messages`, c!)).body.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
    expect((await call("GET", `/${g.id}/messages?limit=0`, c!)).status).toBe(400);
    expect((await call("POST", `/${g.id}/messages`, stranger, { content: "x" })).status).toBe(404);
    expect((await call("POST", `/${g.id}/messages`, b!, {})).status).toBe(400);
    expect((await call("POST", `/${g.id}/messages`, null, { content: "x" })).status).toBe(401);

    const upd = waitForEvent(sc, "dm:update");
    expect((await call("PUT", `/${g.id}/messages/${sent.body.id}`, b!, { content: "edited" })).body.content).toBe("edited");
    expect((await upd).content).toBe("edited");
    expect((await call("PUT", `/${g.id}/messages/${sent.body.id}`, owner, { content: "no" })).status).toBe(403);
    expect((await call("DELETE", `/${g.id}/messages/${sent.body.id}`, owner)).status).toBe(403);
    const del = waitForEvent(sc, "dm:deleted");
    expect((await call("DELETE", `/${g.id}/messages/${sent.body.id}`, b!)).status).toBe(200);
    expect(await del).toEqual({ conversationId: g.id, messageId: sent.body.id });
    expect((await call("DELETE", `/${g.id}/messages/${sent.body.id}`, b!)).status).toBe(404);
  });

  test("a muted sender's group message reaches the muter without dm:new", async () => {
    const { owner, users: [b, c] } = await people(2);
    const g = await group(owner, [b!, c!]);
    await server.api("POST", `/api/v1/users/me/muted-users/${b!.id}`, { token: c!.token });
    const [so, sc] = await Promise.all([server.connect(owner.token), server.connect(c!.token)]);
    const seenByC = recordEvents(sc, "dm:new");
    const gotO = waitForEvent(so, "dm:new");
    await call("POST", `/${g.id}/messages`, b!, { content: "muted" });
    await gotO;
    await quietWindow(); // c's socket: nothing later on it to wait for
    expect(seenByC).toEqual([]);
    expect((await call("GET", `/${g.id}/messages`, c!)).body).toHaveLength(1);
  });

  test("gif, upload, search, read, pins and typing in a group", async () => {
    const { owner, users: [b, c] } = await people(2);
    const g = await group(owner, [b!, c!]);
    const gif = await call("POST", `/${g.id}/gif`, owner, { url: "http://gifs.example/dance.gif" });
    expect(gif.status).toBe(201);
    expect(gif.body.content).toBe("http://gifs.example/dance.gif");
    expect((await call("POST", `/${g.id}/gif`, owner, { url: "ftp://x/y.gif" })).status).toBe(400);
    await call("POST", `/${g.id}/messages`, b!, { content: "pizza tonight?" });
    const found = await call("GET", `/${g.id}/search?q=pizza`, c!);
    expect(found.body.map((m: { content: string }) => m.content)).toEqual(["pizza tonight?"]);
    expect((await call("GET", `/${g.id}/search?q=${encodeURIComponent('NEAR("pizza" *')}`, c!)).status).toBe(200);
    expect((await call("GET", `/${g.id}/search?q=sushi`, c!)).body).toEqual([]);
    expect((await call("GET", `/${g.id}/search?q=x&limit=101`, c!)).status).toBe(400);
    const read = await call("POST", `/${g.id}/read`, c!);
    expect(read.body).toEqual({ conversation_id: g.id, last_read_message_id: expect.any(String) });
    expect((await call("POST", `/${g.id}/pins/${gif.body.id}`, c!)).body.pinned).toBe(true);
    expect(ids((await call("GET", `/${g.id}/pins`, b!)).body)).toEqual([gif.body.id]);
    const [sb, so] = await Promise.all([server.connect(b!.token), server.connect(owner.token)]);
    const got = waitForEvent(so, "dm:typing:start");
    expect((await sb.emitWithAck("dm:typing:start", { conversationId: g.id })).ok).toBe(true);
    expect(await got).toEqual({ userId: b!.id, username: b!.username, conversationId: g.id });
    const form = new FormData();
    form.append("content", "see file");
    const noFiles = await server.api("POST", `/api/v1/dm/groups/${g.id}/upload`, { token: b!.token, raw: form });
    expect(noFiles.status).toBe(400);
  });
});
