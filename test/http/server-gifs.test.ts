import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { GIF_1X1, NOT_AN_IMAGE, PNG_1X1, pngOfSize } from "../helpers/images.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const GIF_KEYS = ["created_at", "id", "kind", "mime_type", "name", "server_id", "size", "uploaded_by", "uploaded_by_username", "url"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

function form(bytes: Uint8Array, filename: string, fields: Record<string, string> = {}) {
  const data = new FormData();
  data.append("file", new File([bytes], filename));
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  return data;
}
const upload = (serverId: string, user: TestUser | null, body: FormData) =>
  server.api("POST", `/api/v1/servers/${serverId}/gifs`, { token: user?.token, raw: body });

describe("server GIFs and stickers", () => {
  test("upload (MANAGE_SERVER), list (members), serve, delete", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    const res = await upload(serverId, owner, form(GIF_1X1, "party parrot.gif"));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(GIF_KEYS);
    expect(res.body).toMatchObject({
      server_id: serverId, name: "party_parrot", kind: "gif", mime_type: "image/gif", size: GIF_1X1.byteLength,
      uploaded_by: owner.id, uploaded_by_username: owner.username,
    });
    expect(res.body.url).toMatch(/^\/uploads\/server-gifs\/[0-9a-f-]{36}\.gif$/);
    expect(new Uint8Array(await (await fetch(server.url + res.body.url)).arrayBuffer())).toEqual(GIF_1X1);

    const sticker = await upload(serverId, owner, form(PNG_1X1, "s.png", { name: "wave", kind: "sticker" }));
    expect(sticker.status).toBe(201);
    expect(sticker.body).toMatchObject({ name: "wave", kind: "sticker", mime_type: "image/png" });

    const list = await server.api("GET", `/api/v1/servers/${serverId}/gifs`, { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body.map((g: { id: string }) => g.id)).toEqual([res.body.id, sticker.body.id]);
    expect((await server.api("GET", `/api/v1/servers/${serverId}/gifs`, { token: outsider.token })).status).toBe(403);
    expect((await server.api("GET", `/api/v1/servers/${serverId}/gifs`, {})).status).toBe(401);

    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/gifs/${res.body.id}`, { token: member.token })).status).toBe(403);
    const removed = await server.api("DELETE", `/api/v1/servers/${serverId}/gifs/${res.body.id}`, { token: owner.token });
    expect(removed.body).toEqual({ success: true });
    expect((await fetch(server.url + res.body.url)).status).toBe(404);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/gifs/${res.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/gifs/not-a-uuid`, { token: owner.token })).status).toBe(404);
  });

  test("refusals: permission, type, size, bad fields", async () => {
    const { owner, member, outsider, serverId } = await community(server);
    expect((await upload(serverId, member, form(GIF_1X1, "a.gif"))).status).toBe(403);
    expect((await upload(serverId, outsider, form(GIF_1X1, "a.gif"))).status).toBe(403);
    expect((await upload(serverId, null, form(GIF_1X1, "a.gif"))).status).toBe(401);
    expect((await upload(UNKNOWN, owner, form(GIF_1X1, "a.gif"))).status).toBe(404);
    const notGif = await upload(serverId, owner, form(PNG_1X1, "a.gif"));
    expect(notGif.status).toBe(400);
    expect(notGif.body).toEqual({ error: "file: a GIF must be a GIF image" });
    expect((await upload(serverId, owner, form(NOT_AN_IMAGE, "a.gif", { kind: "sticker" }))).status).toBe(400);
    expect((await upload(serverId, owner, form(pngOfSize(512 * 1024 + 1), "big.png", { kind: "sticker" }))).status).toBe(413);
    expect((await upload(serverId, owner, form(GIF_1X1, "a.gif", { kind: "video" }))).body).toEqual({ error: "kind: must be gif or sticker" });
    expect((await upload(serverId, owner, form(GIF_1X1, "a.gif", { name: "no spaces allowed" }))).status).toBe(400);
    const noFile = new FormData();
    noFile.append("name", "x");
    expect((await upload(serverId, owner, noFile)).body).toEqual({ error: "file: a file is required" });
    expect((await server.api("GET", `/api/v1/servers/${serverId}/gifs`, { token: owner.token })).body).toEqual([]);
  });
});

test("deleting the server removes its GIF files", async () => {
  const { owner, serverId } = await community(server);
  const gif = await upload(serverId, owner, form(GIF_1X1, "bye.gif"));
  expect((await fetch(server.url + gif.body.url)).status).toBe(200);
  expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
  // Removed by the background delete (docs/servers.md, "Deleting a server").
  await server.app.domain.deletions.idle();
  expect((await fetch(server.url + gif.body.url)).status).toBe(404);
});
