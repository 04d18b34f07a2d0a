import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { restRateFamilyOf, scopeParamOf } from "../../src/http/rate-limit-families.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * Which REST rate-limit family each route counts in (src/http/rate-limit-families.ts), over the
 * routes the app really registers: a new route that posts a message, edits one or reacts must
 * land in its family, not silently in `writes`.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe("restRateFamilyOf", () => {
  test("a table of cases", () => {
    const cases: [string, string, string | null, string | null][] = [
      ["POST", "/api/v1/messages/:id", "sends", "id"],
      ["POST", "/api/v1/messages/:id/upload", "sends", "id"],
      ["POST", "/api/v1/dm/:targetUserId/messages", "sends", "targetUserId"],
      ["POST", "/api/v1/dm/groups/:groupId/gif", "sends", "groupId"],
      ["POST", "/api/v1/oauth2/bot/channels/:channelId/messages", "sends", "channelId"],
      ["POST", "/api/v1/oauth2/bot/dm/:targetUserId", "sends", "targetUserId"],
      ["PUT", "/api/v1/messages/:id", "message-writes", null],
      ["DELETE", "/api/v1/messages/:id", "message-writes", null],
      ["POST", "/api/v1/oauth2/bot/channels/:channelId/messages/bulk-delete", "message-writes", null],
      ["DELETE", "/api/v1/dm/groups/:groupId/messages/:messageId", "message-writes", null],
      ["POST", "/api/v1/messages/:id/pins/:messageId", "message-writes", null],
      ["PUT", "/api/v1/messages/:id/reactions/:messageId", "reactions", null],
      ["DELETE", "/api/v1/messages/:id/reactions/:messageId/:emoji", "reactions", null],
      ["GET", "/api/v1/messages/:id", "reads", null],
      ["HEAD", "/api/v1/users/me/info", "reads", null],
      ["POST", "/api/v1/messages/:id/read", "writes", null],
      ["POST", "/api/v1/servers", "writes", null],
      ["POST", "/api/v1/auth/login", null, null],
      ["POST", "/api/v1/auth/2fa/disable", null, null],
    ];
    for (const [method, pattern, family, scope] of cases) {
      expect([method, pattern, restRateFamilyOf(method, pattern)]).toEqual([method, pattern, family]);
      if (family) expect(scopeParamOf(family as "sends", pattern)).toBe(scope);
    }
  });

  test("every registered route that posts a message is a send; every one that edits, deletes or pins one is a message write", () => {
    const routes = server.app.routes.filter((route) => route.path.startsWith("/api/v1/") && !route.path.startsWith("/api/v1/ai/") && route.method !== "GET");
    const posting = routes.filter((route) => route.method === "POST" && /\/(messages|gif|upload)$|^\/api\/v1\/messages\/:id$|^\/api\/v1\/oauth2\/bot\/dm\/:[^/]+$/.test(route.path));
    expect(posting.length).toBeGreaterThanOrEqual(11);
    for (const route of posting) expect([route.path, restRateFamilyOf(route.method, route.path)]).toEqual([route.path, "sends"]);
    const changing = routes.filter((route) => /\/messages\/:messageId$|bulk-delete$|\/pins\/:messageId$/.test(route.path));
    expect(changing.length).toBeGreaterThanOrEqual(8);
    for (const route of changing) expect([route.method, route.path, restRateFamilyOf(route.method, route.path)]).toEqual([route.method, route.path, "message-writes"]);
  });
});
