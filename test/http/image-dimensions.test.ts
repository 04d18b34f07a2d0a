import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { expectError, startServer, type TestServer } from "../helpers/server.ts";
import { fileForm, gifDeclaring, jpegDeclaring, pngDeclaring, webpDeclaring } from "../helpers/images.ts";

let server: TestServer;
let c: Community;
/** `gifOnly`: the route takes GIFs alone (a server GIF: its other formats are refused before the dimensions are read). */
let routes: { name: string; path: string; field: string; gifOnly?: true; fields?: Record<string, string> }[];
beforeAll(async () => {
  server = await startServer();
  c = await community(server, { extraMembers: 1 });
  const bot = await createBot(server, c.owner);
  // The first account is the platform's administrator: it switches the AI assistant on.
  expect((await server.api("PATCH", "/api/v1/admin/ai/settings", { token: c.owner.token, body: { enabled: true } })).status).toBe(200);
  const group = await server.api("POST", "/api/v1/dm/groups", { token: c.owner.token, body: { member_ids: c.members.map((m) => m.id) } });
  routes = [
    { name: "user avatar", path: "/api/v1/users/me/avatar", field: "avatar" },
    { name: "user banner", path: "/api/v1/users/me/banner", field: "banner" },
    { name: "server icon", path: `/api/v1/servers/${c.serverId}/icon`, field: "icon" },
    { name: "server banner", path: `/api/v1/servers/${c.serverId}/banner`, field: "banner" },
    { name: "emoji", path: `/api/v1/servers/${c.serverId}/emojis`, field: "emoji" },
    { name: "server GIF", path: `/api/v1/servers/${c.serverId}/gifs`, field: "file", gifOnly: true },
    { name: "server sticker", path: `/api/v1/servers/${c.serverId}/gifs`, field: "file", fields: { kind: "sticker" } },
    { name: "application avatar", path: `/api/v1/oauth2/applications/${bot.appId}/avatar`, field: "avatar" },
    { name: "application banner", path: `/api/v1/oauth2/applications/${bot.appId}/banner`, field: "banner" },
    { name: "group DM icon", path: `/api/v1/dm/groups/${group.body.id}/icon`, field: "icon" },
    { name: "channel attachment", path: `/api/v1/messages/${c.channelId}/upload`, field: "files" },
    { name: "DM attachment", path: `/api/v1/dm/${c.member.id}/upload`, field: "files" },
    { name: "AI assistant file", path: "/api/v1/ai/uploads", field: "file" },
  ];
});
afterAll(() => server.stop());

let uploads = 0;
const upload = (route: (typeof routes)[number], bytes: Uint8Array, filename: string, type: string) => {
  const form = fileForm(route.field, bytes, filename, type);
  for (const [key, value] of Object.entries(route.fields ?? {})) form.append(key, value);
  // Emoji and GIF names are unique per server.
  if (route.path.endsWith("/emojis") || route.path.endsWith("/gifs")) form.append("name", `image_${++uploads}`);
  return server.api("POST", route.path, { token: c.owner.token, raw: form });
};

const HUGE: [string, Uint8Array, string, string][] = [
  ["PNG", pngDeclaring(50_000, 50_000), "huge.png", "image/png"],
  ["JPEG", jpegDeclaring(50_000, 50_000), "huge.jpg", "image/jpeg"],
  ["GIF", gifDeclaring(50_000, 50_000), "huge.gif", "image/gif"],
  ["WebP", webpDeclaring(50_000, 50_000), "huge.webp", "image/webp"],
];
const TOO_LARGE = "The image is too large: 50000x50000 pixels; the limit is 8192 pixels per side and 40 megapixels";

describe("images are refused by their declared dimensions, on every upload route", () => {
  test("a tiny file declaring 50000x50000 is 400, in each format, and nothing is stored", async () => {
    for (const route of routes) {
      for (const [format, bytes, filename, type] of HUGE.filter(([format]) => !route.gifOnly || format === "GIF")) {
        const res = await upload(route, bytes, filename, type);
        if (res.status !== 400) throw new Error(`${route.name}, ${format}: ${res.status} ${JSON.stringify(res.body)}`);
        expectError(res, 400, TOO_LARGE);
      }
    }
    expect((await server.api("GET", `/api/v1/messages/${c.channelId}`, { token: c.owner.token })).body).toEqual([]);
    expect(await server.app.store.emojis.list(c.serverId)).toEqual([]);
    const uploadsDir = join(server.dataDir, "uploads");
    const stored = existsSync(uploadsDir) ? readdirSync(uploadsDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()) : [];
    expect(stored).toEqual([]);
  });

  test("a header cut short is 400; an image within the limits is accepted", async () => {
    for (const route of routes) {
      const [cut, format] = route.gifOnly ? [gifDeclaring(64, 64).subarray(0, 8), "GIF"] : [jpegDeclaring(64, 64).subarray(0, 25), "JPEG"];
      expectError(await upload(route, cut, "cut", "image/jpeg"), 400, `The image is not a valid ${format} file: its header is truncated or corrupt`);
      const ok = await upload(route, route.gifOnly ? gifDeclaring(64, 64) : pngDeclaring(64, 64), "ok", "image/png");
      if (ok.status !== 200 && ok.status !== 201) throw new Error(`${route.name}: ${ok.status} ${JSON.stringify(ok.body)}`);
    }
  });

  test("the limits are configuration (MAX_IMAGE_SIDE, MAX_IMAGE_MEGAPIXELS)", async () => {
    const strict = await startServer({ imageLimits: { maxSide: 100, maxPixels: 5000 } });
    try {
      const user = await strict.register();
      const avatar = (bytes: Uint8Array) => strict.api("POST", "/api/v1/users/me/avatar", { token: user.token, raw: fileForm("avatar", bytes, "a.png") });
      expectError(await avatar(pngDeclaring(101, 1)), 400, "The image is too large: 101x1 pixels; the limit is 100 pixels per side and 0.01 megapixels");
      expectError(await avatar(pngDeclaring(80, 80)), 400, /80x80 pixels/);
      expect((await avatar(pngDeclaring(70, 70))).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});
