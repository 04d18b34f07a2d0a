/**
 * `Cache-Control: no-store` on every answer under /api whose route sets none (issue 39, point
 * 10; docs/operations.md#caching): what a token reads is never kept by a browser or a proxy.
 * Every route gets it, errors included. Routes with a policy of their own keep it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

const PNG_1X1 = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

let server: TestServer;
let owner: TestUser;
let channelId: string;
beforeAll(async () => {
  server = await startServer();
  const c = await community(server);
  owner = c.owner;
  channelId = c.channelId;
});
afterAll(() => server.stop());

const cacheOf = async (path: string, init: RequestInit = {}) => (await fetch(server.url + path, init)).headers.get("cache-control");
const withToken = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

test("authenticated answers are no-store: reads, writes and errors", async () => {
  for (const path of ["/api/v1/users/me/info", `/api/v1/messages/${channelId}?limit=2`, "/api/v1/servers", "/api/v1/friends", `/api/v1/users/${owner.id}`]) {
    expect({ path, cache: await cacheOf(path, withToken(owner.token)) }).toEqual({ path, cache: "no-store" });
  }
  const sent = await fetch(`${server.url}/api/v1/messages/${channelId}`, withToken(owner.token, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: "hi" }) }));
  expect(sent.status).toBe(201);
  expect(sent.headers.get("cache-control")).toBe("no-store");
  // A refusal and an unknown route under /api.
  expect(await cacheOf("/api/v1/users/me/info")).toBe("no-store");
  expect(await cacheOf("/api/v1/messages/not-a-channel", withToken(owner.token))).toBe("no-store");
  expect(await cacheOf("/api/v1/no-such-route", withToken(owner.token))).toBe("no-store");
});

test("public answers under /api that change are no-store too", async () => {
  for (const path of ["/api/v1", "/api/v1/stats", "/api/v1/platform/config"]) expect({ path, cache: await cacheOf(path) }).toEqual({ path, cache: "no-store" });
});

test("routes with a policy of their own keep it: uploaded files, the web app, the reference documents", async () => {
  const form = new FormData();
  form.append("avatar", new File([PNG_1X1], "me.png", { type: "image/png" }));
  const me = await fetch(`${server.url}/api/v1/users/me/avatar`, withToken(owner.token, { method: "POST", body: form }));
  expect(me.status).toBe(200);
  expect(me.headers.get("cache-control")).toBe("no-store");
  const avatar = ((await me.json()) as { avatar: string }).avatar;
  expect(await cacheOf(avatar)).toBe("public, max-age=31536000, immutable");
  expect(await cacheOf("/")).toBe("no-cache");
  expect(await cacheOf("/api/v1/openapi.json")).toBe("no-cache");
});
