import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { addMember, auditLog, community, createServer } from "../helpers/community.ts";
import { GIF_1X1, JPEG_HEADER, NOT_AN_IMAGE, PNG_1X1, WEBP_HEADER, pngOfSize } from "../helpers/images.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const EMOJI_KEYS = [
  "created_at", "file_path", "id", "mime_type", "name", "original_name", "server_id", "size", "uploaded_by", "uploaded_by_username",
];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

function form(bytes: Uint8Array, filename: string, fields: Record<string, string> = {}, field = "emoji") {
  const data = new FormData();
  data.append(field, new File([bytes], filename));
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  return data;
}
const upload = (serverId: string, user: TestUser | null, body: FormData) =>
  server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: user?.token, raw: body });
const list = (serverId: string, user: TestUser | null) => server.api("GET", `/api/v1/servers/${serverId}/emojis`, { token: user?.token });
const listPublic = (serverId: string, user: TestUser | null) =>
  server.api("GET", `/api/v1/servers/${serverId}/emojis/public`, { token: user?.token });
const rename = (serverId: string, emojiId: string, user: TestUser | null, body: unknown) =>
  server.api("PATCH", `/api/v1/servers/${serverId}/emojis/${emojiId}`, { token: user?.token, body });
const remove = (serverId: string, emojiId: string, user: TestUser | null) =>
  server.api("DELETE", `/api/v1/servers/${serverId}/emojis/${emojiId}`, { token: user?.token });
const sendMessage = (channelId: string, user: TestUser, content: string) =>
  server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
const react = (channelId: string, messageId: string, user: TestUser, emoji: string) =>
  server.api("PUT", `/api/v1/messages/${channelId}/reactions/${messageId}`, { token: user.token, body: { emoji } });
const emojiFiles = () => {
  try {
    return readdirSync(join(server.dataDir, "uploads", "emojis"));
  } catch {
    return [];
  }
};

describe("POST /api/v1/servers/:id/emojis", () => {
  test("uploads an image (MANAGE_SERVER), answers 201 {emoji}, audits SERVER_EMOJI_UPLOAD", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const res = await upload(serverId, owner, form(PNG_1X1, "party parrot!.png"));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["emoji"]);
    const emoji = res.body.emoji;
    expect(Object.keys(emoji).sort()).toEqual(EMOJI_KEYS);
    expect(emoji).toMatchObject({
      server_id: serverId, name: "party_parrot", original_name: "party parrot!.png", mime_type: "image/png",
      size: PNG_1X1.byteLength, uploaded_by: owner.id, uploaded_by_username: owner.username,
    });
    expect(emoji.file_path).toMatch(/^\/uploads\/emojis\/[0-9a-f-]{36}\.png$/);
    expect(typeof emoji.created_at).toBe("number");

    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_EMOJI_UPLOAD")!;
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "emoji", target_id: emoji.id, changes: { name: "party_parrot" } });
  });

  test("takes an explicit name and every image type by its bytes", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const cases: [Uint8Array, string, string][] = [
      [GIF_1X1, "image/gif", "gif"], [JPEG_HEADER, "image/jpeg", "jpg"], [WEBP_HEADER, "image/webp", "webp"], [PNG_1X1, "image/png", "png"],
    ];
    for (const [bytes, mime, ext] of cases) {
      // The file name's extension is ignored: the type comes from the bytes.
      const res = await upload(serverId, owner, form(bytes, "whatever.txt", { name: `Pic-${ext}_1` }));
      expect(res.status).toBe(201);
      expect(res.body.emoji).toMatchObject({ name: `Pic-${ext}_1`, mime_type: mime });
      expect(res.body.emoji.file_path.endsWith(`.${ext}`)).toBe(true);
    }
    // A blank name falls back to the file name; a file name with nothing usable to "emoji".
    expect((await upload(serverId, owner, form(PNG_1X1, "wave.png", { name: "  " }))).body.emoji.name).toBe("wave");
    expect((await upload(serverId, owner, form(PNG_1X1, "!!!.png"))).body.emoji.name).toBe("emoji");
    const long = await upload(serverId, owner, form(PNG_1X1, `${"a".repeat(40)}.png`));
    expect(long.body.emoji.name).toBe("a".repeat(32));
    // Names need not be unique within a server (the id tells them apart).
    expect((await upload(serverId, owner, form(PNG_1X1, "wave.png"))).status).toBe(201);
  });

  test("refusals: 401, 403, 404, bad names, not an image, 413, no file", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Emoji Land" });
    expect((await upload(serverId, null, form(PNG_1X1, "a.png"))).status).toBe(401);
    const denied = await upload(serverId, member, form(PNG_1X1, "a.png"));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: "Missing permission: MANAGE_SERVER" });
    expect((await upload(serverId, outsider, form(PNG_1X1, "a.png"))).status).toBe(403);
    expect((await upload(UNKNOWN, owner, form(PNG_1X1, "a.png"))).status).toBe(404);
    expect((await upload("not-a-uuid", owner, form(PNG_1X1, "a.png"))).status).toBe(404);

    for (const name of ["no spaces", "a".repeat(33), "smile:)", "ü-umlaut", "<:x:y>"]) {
      const res = await upload(serverId, owner, form(PNG_1X1, "a.png", { name }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "name: must be 1-32 letters, digits, _ or -" });
    }
    const notImage = await upload(serverId, owner, form(NOT_AN_IMAGE, "a.png"));
    expect(notImage.status).toBe(400);
    expect(notImage.body).toEqual({ error: "emoji must be a PNG, JPEG, WEBP or GIF image" });

    const justOver = await upload(serverId, owner, form(pngOfSize(256 * 1024 + 1), "big.png"));
    expect(justOver.status).toBe(413);
    expect(justOver.body.error).toContain("256 KB");
    expect((await upload(serverId, owner, form(pngOfSize(2 * 1024 * 1024), "huge.png"))).status).toBe(413);
    expect((await upload(serverId, owner, form(pngOfSize(256 * 1024), "max.png"))).status).toBe(201);

    expect((await upload(serverId, owner, form(PNG_1X1, "a.png", {}, "file"))).body).toEqual({ error: "emoji: a file is required" });
    const json = await server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: owner.token, body: { name: "x" } });
    expect(json.status).toBe(400);

    // Only the one accepted upload is stored; no file is left behind by a refusal.
    expect((await list(serverId, owner)).body.emojis).toHaveLength(1);
  });

  test("at most 50 per server, enforced atomically when the 50th and 51st race", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const before = emojiFiles().length;
    for (let i = 0; i < 49; i++) expect((await upload(serverId, owner, form(PNG_1X1, `e${i}.png`))).status).toBe(201);
    const raced = await Promise.all([upload(serverId, owner, form(PNG_1X1, "fifty.png")), upload(serverId, owner, form(PNG_1X1, "fiftyone.png"))]);
    expect(raced.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(raced.find((r) => r.status === 400)!.body).toEqual({ error: "A server can have at most 50 custom emojis" });
    expect((await list(serverId, owner)).body.emojis).toHaveLength(50);
    expect(emojiFiles().length - before).toBe(50);
    expect((await upload(serverId, owner, form(PNG_1X1, "more.png"))).status).toBe(400);

    // Deleting one makes room again.
    const first = (await list(serverId, owner)).body.emojis[0];
    expect((await remove(serverId, first.id, owner)).status).toBe(200);
    expect((await upload(serverId, owner, form(PNG_1X1, "again.png"))).status).toBe(201);
  });
});

describe("listing", () => {
  test("GET /:id/emojis: members, {emojis, canManage}; 401, 403, 404", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Emoji Land" });
    const a = (await upload(serverId, owner, form(PNG_1X1, "a.png"))).body.emoji;
    const b = (await upload(serverId, owner, form(GIF_1X1, "b.gif"))).body.emoji;

    const mine = await list(serverId, owner);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ emojis: [a, b], canManage: true });
    const theirs = await list(serverId, member);
    expect(theirs.body).toEqual({ emojis: [a, b], canManage: false });

    expect((await list(serverId, outsider)).status).toBe(403);
    expect((await list(serverId, null)).status).toBe(401);
    expect((await list(UNKNOWN, owner)).status).toBe(404);
    expect((await list("nope", owner)).status).toBe(404);
  });

  test("GET /:id/emojis/public: any signed-in user, bare array; 401 without a token, 404 unknown", async () => {
    const { owner, outsider, serverId } = await community(server, { name: "Emoji Land" });
    expect((await listPublic(serverId, outsider)).body).toEqual([]);
    const a = (await upload(serverId, owner, form(PNG_1X1, "a.png"))).body.emoji;
    const res = await listPublic(serverId, outsider);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([a]);
    expect((await listPublic(serverId, null)).status).toBe(401);
    expect((await listPublic(UNKNOWN, outsider)).status).toBe(404);
    expect((await listPublic("nope", outsider)).status).toBe(404);
  });

  test("GET /my-emojis: emojis of every server the caller belongs to, with server_name", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Emoji Land" });
    const other = await createServer(server, outsider, "Elsewhere");
    const joined = await createServer(server, owner, "Second Home");
    await addMember(server, joined, member);
    const a = (await upload(serverId, owner, form(PNG_1X1, "a.png"))).body.emoji;
    const b = (await upload(joined, owner, form(PNG_1X1, "b.png"))).body.emoji;
    await upload(other, outsider, form(PNG_1X1, "c.png"));

    const res = await server.api("GET", "/api/v1/servers/my-emojis", { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ ...a, server_name: "Emoji Land" }, { ...b, server_name: "Second Home" }]);
    const forOutsider = await server.api("GET", "/api/v1/servers/my-emojis", { token: outsider.token });
    expect(forOutsider.body.map((e: { server_name: string }) => e.server_name)).toEqual(["Elsewhere"]);
    expect((await server.api("GET", "/api/v1/servers/my-emojis", {})).status).toBe(401);
    const nobody = await server.register();
    expect((await server.api("GET", "/api/v1/servers/my-emojis", { token: nobody.token })).body).toEqual([]);
  });
});

describe("PATCH /api/v1/servers/:id/emojis/:emojiId", () => {
  test("renames (MANAGE_SERVER), audits {old, new}; the old markup stops validating", async () => {
    const { owner, member, outsider, serverId, channelId } = await community(server, { name: "Emoji Land" });
    const emoji = (await upload(serverId, owner, form(PNG_1X1, "old.png"))).body.emoji;
    expect((await sendMessage(channelId, member, `hi <:old:${emoji.id}>`)).status).toBe(201);

    const res = await rename(serverId, emoji.id, owner, { name: "  fresh-name_2 " });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ emoji: { ...emoji, name: "fresh-name_2" } });
    expect((await list(serverId, member)).body.emojis[0].name).toBe("fresh-name_2");
    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_EMOJI_RENAME")!;
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "emoji", target_id: emoji.id, changes: { old: "old", new: "fresh-name_2" } });

    const stale = await sendMessage(channelId, member, `hi <:old:${emoji.id}>`);
    expect(stale.status).toBe(400);
    expect(stale.body.error).toContain("unknown custom emoji");
    expect((await sendMessage(channelId, member, `hi <:fresh-name_2:${emoji.id}>`)).status).toBe(201);

    // Same name again: answered, nothing recorded.
    expect((await rename(serverId, emoji.id, owner, { name: "fresh-name_2" })).status).toBe(200);
    expect((await auditLog(server, serverId, owner)).filter((e) => e.action === "SERVER_EMOJI_RENAME")).toHaveLength(1);

    expect((await rename(serverId, emoji.id, null, { name: "x" })).status).toBe(401);
    expect((await rename(serverId, emoji.id, member, { name: "x" })).status).toBe(403);
    expect((await rename(serverId, emoji.id, outsider, { name: "x" })).status).toBe(403);
  });

  test("refusals: 404 unknown / other server's / non-UUID emoji, 404 server, 400 bad names", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const emoji = (await upload(serverId, owner, form(PNG_1X1, "a.png"))).body.emoji;
    const otherServer = await createServer(server, owner, "Other");
    const elsewhere = (await upload(otherServer, owner, form(PNG_1X1, "b.png"))).body.emoji;

    expect((await rename(serverId, UNKNOWN, owner, { name: "x" })).status).toBe(404);
    expect((await rename(serverId, elsewhere.id, owner, { name: "x" })).status).toBe(404);
    const bad = await rename(serverId, "nope", owner, { name: "x" });
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ error: "Emoji not found" });
    expect((await rename(UNKNOWN, emoji.id, owner, { name: "x" })).status).toBe(404);

    expect((await rename(serverId, emoji.id, owner, {})).body).toEqual({ error: "name: is required" });
    for (const name of ["", "two words", "a".repeat(33)]) {
      expect((await rename(serverId, emoji.id, owner, { name })).body).toEqual({ error: "name: must be 1-32 letters, digits, _ or -" });
    }
    expect((await rename(serverId, emoji.id, owner, { name: 5 })).body).toEqual({ error: "name: must be text" });
    expect((await list(serverId, owner)).body.emojis[0].name).toBe("a");
  });
});

describe("DELETE /api/v1/servers/:id/emojis/:emojiId", () => {
  test("deletes (MANAGE_SERVER), removes the file, audits; the emoji stops validating", async () => {
    const { owner, member, outsider, serverId, channelId } = await community(server, { name: "Emoji Land" });
    const emoji = (await upload(serverId, owner, form(PNG_1X1, "bye.png"))).body.emoji;
    const markup = `<:bye:${emoji.id}>`;
    const message = await sendMessage(channelId, member, `before ${markup}`);
    expect(message.status).toBe(201);
    expect((await react(channelId, message.body.id, member, markup)).status).toBe(200);
    expect((await fetch(server.url + emoji.file_path)).status).toBe(200);

    expect((await remove(serverId, emoji.id, null)).status).toBe(401);
    expect((await remove(serverId, emoji.id, member)).status).toBe(403);
    expect((await remove(serverId, emoji.id, outsider)).status).toBe(403);

    const res = await remove(serverId, emoji.id, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await fetch(server.url + emoji.file_path)).status).toBe(404);
    expect((await list(serverId, owner)).body.emojis).toEqual([]);
    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_EMOJI_DELETE")!;
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "emoji", target_id: emoji.id, changes: { name: "bye" } });

    const after = await sendMessage(channelId, member, `after ${markup}`);
    expect(after.status).toBe(400);
    expect(after.body.error).toContain("unknown custom emoji");
    expect((await react(channelId, message.body.id, owner, markup)).status).toBe(400);

    expect((await remove(serverId, emoji.id, owner)).status).toBe(404);
    expect((await remove(serverId, "not-a-uuid", owner)).status).toBe(404);
    expect((await remove(UNKNOWN, emoji.id, owner)).status).toBe(404);
  });

  test("another server's emoji cannot be deleted through this server", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const otherServer = await createServer(server, owner, "Other");
    const elsewhere = (await upload(otherServer, owner, form(PNG_1X1, "b.png"))).body.emoji;
    expect((await remove(serverId, elsewhere.id, owner)).status).toBe(404);
    expect((await list(otherServer, owner)).body.emojis).toHaveLength(1);
  });
});

describe("GET /api/v1/emojis/:id/file", () => {
  test("no auth: 302 to the stored image, which serves the uploaded bytes", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const emoji = (await upload(serverId, owner, form(GIF_1X1, "spin.gif"))).body.emoji;
    const res = await fetch(`${server.url}/api/v1/emojis/${emoji.id}/file`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(emoji.file_path);

    const followed = await fetch(`${server.url}/api/v1/emojis/${emoji.id}/file`);
    expect(followed.status).toBe(200);
    expect(followed.headers.get("content-type")).toBe("image/gif");
    expect(new Uint8Array(await followed.arrayBuffer())).toEqual(GIF_1X1);
    // Upper-case ids are the same emoji.
    expect((await fetch(`${server.url}/api/v1/emojis/${emoji.id.toUpperCase()}/file`, { redirect: "manual" })).status).toBe(302);
  });

  test("404 {error} for unknown, deleted and non-UUID ids", async () => {
    const { owner, serverId } = await community(server, { name: "Emoji Land" });
    const emoji = (await upload(serverId, owner, form(PNG_1X1, "x.png"))).body.emoji;
    await remove(serverId, emoji.id, owner);
    for (const id of [UNKNOWN, emoji.id, "not-a-uuid"]) {
      const res = await server.api("GET", `/api/v1/emojis/${id}/file`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Emoji not found" });
    }
  });
});

describe("custom emoji markup in messages and reactions", () => {
  test("own server's emoji works; another server's needs USE_EXTERNAL_EMOJIS", async () => {
    const { owner, member, serverId, channelId } = await community(server, { name: "Emoji Land" });
    const own = (await upload(serverId, owner, form(PNG_1X1, "home.png"))).body.emoji;
    const sent = await sendMessage(channelId, member, `<:home:${own.id}> hello`);
    expect(sent.status).toBe(201);
    expect(sent.body.content).toBe(`<:home:${own.id}> hello`);
    expect((await react(channelId, sent.body.id, member, `<:home:${own.id}>`)).status).toBe(200);

    // An emoji from a server the member also belongs to: allowed by @everyone's USE_EXTERNAL_EMOJIS.
    const otherOwner = await server.register();
    const otherServer = await createServer(server, otherOwner, "Far Away");
    await addMember(server, otherServer, member);
    const foreign = (await upload(otherServer, otherOwner, form(PNG_1X1, "far.png"))).body.emoji;
    const markup = `<:far:${foreign.id}>`;
    expect((await sendMessage(channelId, member, `look ${markup}`)).status).toBe(201);
    expect((await react(channelId, sent.body.id, member, markup)).status).toBe(200);

    // Deny USE_EXTERNAL_EMOJIS to @everyone in the channel.
    const everyoneRoleId = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
    const override = await server.api("PUT", `/api/v1/channels/${channelId}/permissions/${everyoneRoleId}`, {
      token: owner.token,
      body: { allow: 0, deny: PERMISSIONS.USE_EXTERNAL_EMOJIS },
    });
    expect(override.status).toBe(200);
    expect(PERMISSIONS.USE_EXTERNAL_EMOJIS).toBe(1048576);
    const refused = await sendMessage(channelId, member, `look ${markup}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Missing permission: USE_EXTERNAL_EMOJIS" });
    const second = await sendMessage(channelId, member, "plain");
    expect((await react(channelId, second.body.id, member, markup)).status).toBe(403);
    // The server's own emoji is unaffected.
    expect((await sendMessage(channelId, member, `<:home:${own.id}>`)).status).toBe(201);
  });
});

test("deleting the server removes its emoji files", async () => {
  const { owner, serverId } = await community(server, { name: "Emoji Land" });
  const a = (await upload(serverId, owner, form(PNG_1X1, "a.png"))).body.emoji;
  const b = (await upload(serverId, owner, form(GIF_1X1, "b.gif"))).body.emoji;
  for (const e of [a, b]) expect((await fetch(server.url + e.file_path)).status).toBe(200);
  expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
  // Removed by the background delete (docs/servers.md, "Deleting a server").
  await server.app.domain.deletions.idle();
  for (const e of [a, b]) {
    expect((await fetch(server.url + e.file_path)).status).toBe(404);
    expect(emojiFiles()).not.toContain(e.file_path.split("/").pop());
    expect((await server.api("GET", `/api/v1/emojis/${e.id}/file`)).status).toBe(404);
  }
});
