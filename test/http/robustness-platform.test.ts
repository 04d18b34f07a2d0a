/**
 * Black-box robustness of the platform routes: administration (/api/v1/admin/*), reports, GIF
 * search and the AI assistant (both prefixes and /api/v1/admin/ai/*). The same harness as
 * robustness.test.ts (test/helpers/robustness.ts): malformed JSON, wrong types, missing fields,
 * 100 KB strings, non-object bodies, extra keys, bad query parameters, non-UUID ids and bad
 * credentials. Nothing may answer 5xx; every error is a JSON `{error: string}` with a 4xx status.
 *
 * `main` is the first account, so a platform administrator; it is never demoted or disabled,
 * and registration stays open. Admin changes target `other` or leave state as it was. The AI
 * key points at a closed local port and no turn ever reaches the stream: every chat body is
 * either refused or names a conversation that does not exist.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PNG_1X1, fileForm } from "../helpers/images.ts";
import {
  HUGE,
  KB,
  UNKNOWN_UUID,
  createHarness,
  describeBadAuthorizations,
  describeIdRoutes,
  describeJsonRoute,
  describeStrayBodies,
  expectError,
  Failures,
  opt,
  req,
  routeName,
  type Body,
  type IdRoute,
  type JsonRoute,
  type PlainRoute,
} from "../helpers/robustness.ts";
import { createBot } from "../helpers/bots.ts";
import { createServer } from "../helpers/community.ts";
import { startServer, uniqueName, type TestServer, type TestUser } from "../helpers/server.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

let server: TestServer;
/** The first account: a platform administrator. */
let main: TestUser;
/** An ordinary user: the target of admin user changes and reports, and the non-admin caller. */
let other: TestUser;
let serverId: string;
/** `general` of `serverId`. */
let channelId: string;
let categoryId: string;
/** Another server of `main`'s, with exactly one category. */
let spareServerId: string;
let spareCategoryId: string;
/** A custom role of `serverId`. */
let roleId: string;
/** `main`'s message in `general`. */
let messageId: string;
/** A report `other` filed on `main`'s message. */
let reportId: string;
let keyId: string;
/** `main`'s AI conversation (never sent a turn). */
let conversationId: string;

const h = createHarness({ server: () => server, token: () => main.token });
const { send } = h;

async function ok<T = Record<string, unknown>>(method: string, path: string, json: unknown, user = main, status = 201): Promise<T> {
  const answer = await send(method, path, { token: user.token, json });
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  return answer.body as T;
}

beforeAll(async () => {
  // The tables send hundreds of bad requests with one token: the REST rate limits are raised
  // (they are tested in test/http/rate-limits.test.ts).
  server = await startServer(raisedRestRateLimits());
  main = await server.register();
  other = await server.register();
  serverId = await createServer(server, main);
  channelId = (await server.app.store.channels.listByServer(serverId))[0]!.id;
  messageId = (await ok<{ id: string }>("POST", `/api/v1/messages/${channelId}`, { content: "something to report" })).id;
  categoryId = (await ok<{ id: string }>("POST", `/api/v1/channels/${serverId}/categories`, { name: "Robust" })).id;
  spareServerId = await createServer(server, main, "Spare");
  spareCategoryId = (await ok<{ id: string }>("POST", `/api/v1/channels/${spareServerId}/categories`, { name: "Only" })).id;
  roleId = (await ok<{ id: string }>("POST", `/api/v1/roles/${serverId}`, { name: "Robust" })).id;
  reportId = (await ok<{ id: string }>("POST", "/api/v1/reports", { user_id: main.id, reason: "robustness" }, other)).id;
  await ok("PATCH", "/api/v1/admin/ai/settings", { enabled: true }, main, 200);
  keyId = (await ok<{ id: string }>("POST", "/api/v1/admin/ai/keys", { name: "Closed port", base_url: "http://127.0.0.1:9/v1", models: ["robust-model"] })).id;
  conversationId = (await ok<{ id: string }>("POST", "/api/v1/ai/conversations", { title: "robust" })).id;
});
afterAll(() => server.stop());

// ---------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------

const AI_PREFIXES = ["/api/v1/ai", "/api/ai"] as const;

const REPORT_RESOLVE_BAD: [string, unknown][] = [["an unknown status", "open"]];

/** Every route that takes a JSON body. */
const JSON_ROUTES: JsonRoute[] = [
  // Platform administration
  {
    method: "PATCH",
    path: "/api/v1/admin/settings",
    auth: true,
    fields: [opt("registration_open", "boolean"), opt("require_2fa_for_applications", "boolean")],
    // Registration stays open: other tests register users.
    valid: () => ({ registration_open: true }),
  },
  {
    method: "POST",
    path: "/api/v1/admin/users",
    auth: true,
    fields: [
      req("username", "string", { bad: [["one character", "a"], ["a space", "a b"]] }),
      req("email", "string", { bad: [["not an email", "not-an-email"]] }),
      req("password", "string", { bad: [["7 characters", "1234567"]] }),
    ],
    valid: () => {
      const name = uniqueName("robust");
      return { username: name, email: `${name}@example.test`, password: "long enough password" };
    },
  },
  {
    method: "PATCH",
    path: "/api/v1/admin/users/:userId",
    auth: true,
    fields: [opt("premium", "boolean"), opt("platform_admin", "boolean"), opt("disabled", "boolean")],
    valid: () => ({ premium: false }),
  },
  {
    method: "PATCH",
    path: "/api/v1/admin/servers/:serverId",
    auth: true,
    fields: [opt("verified", "boolean")],
    valid: () => ({ verified: false }),
  },
  {
    method: "POST",
    path: "/api/v1/admin/reports/:reportId/resolve",
    auth: true,
    fields: [
      opt("status", "string", { bad: REPORT_RESOLVE_BAD }),
      opt("action", "string", { bad: [["an unknown action", "ban"]] }),
      opt("note", "string", { nullable: true, bad: [["1001 characters", "x".repeat(1001)]] }),
    ],
    // Dismisses the report once; later valid bodies are refused as already closed.
    valid: () => ({ status: "dismissed", action: "none" }),
  },
  // Reports
  {
    method: "POST",
    path: "/api/v1/reports",
    auth: true,
    fields: [
      opt("message_id", "string", { bad: [["not a UUID", "abc"]] }),
      opt("user_id", "string", { bad: [["not a UUID", "abc"]] }),
      req("reason", "string", { bad: [["blank", "   "], ["1001 characters", "x".repeat(1001)]] }),
    ],
    // Filed once, then answered 200 with the open report.
    valid: () => ({ message_id: messageId, reason: "robustness" }),
    token: () => other.token,
  },
  // AI administration
  {
    method: "PATCH",
    path: "/api/v1/admin/ai/settings",
    auth: true,
    fields: [
      opt("enabled", "boolean"),
      opt("plus_only", "boolean"),
      opt("daily_msg_limit", "number", { bad: [["negative", -1], ["a fraction", 1.5], ["over the maximum", 1_000_001]] }),
      opt("max_upload_mb", "number", { bad: [["zero", 0], ["over 100", 101], ["a fraction", 2.5]] }),
      opt("welcome", "string"),
      opt("default_model", "string", { nullable: true, bad: [["with a space", "a b"], ["empty", ""]] }),
    ],
    valid: () => ({ enabled: true }),
  },
  {
    method: "POST",
    path: "/api/v1/admin/ai/keys",
    auth: true,
    fields: [
      req("name", "string", { bad: [["blank", "  "]] }),
      req("base_url", "string", {
        bad: [
          ["not a URL", "not a url"],
          ["ftp", "ftp://127.0.0.1/v1"],
          ["with credentials", "http://user:pw@127.0.0.1:9/v1"],
          ["with a fragment", "http://127.0.0.1:9/v1#x"],
          ["javascript:", "javascript:alert(1)"],
        ],
      }),
      opt("api_key", "string"),
      req("models", "array", {
        bad: [
          ["empty", []],
          ["a model twice", ["a", "a"]],
          ["an empty id", [""]],
          ["an id with a space", ["a b"]],
          ["a 100 KB id", [HUGE]],
          ["a number", [5]],
          ["null", [null]],
          ["an object without id", [{}]],
          ["an object with a 100 KB name", [{ id: "a", name: HUGE }]],
          ["an object with an empty name", [{ id: "a", name: "" }]],
          ["an object with a name that is a number", [{ id: "a", name: 5 }]],
          ["an object with a bad flag", [{ id: "a", flags: ["Bad Flag"] }]],
          ["an object with flags that are not an array", [{ id: "a", flags: "vision" }]],
          ["an object with 11 flags", [{ id: "a", flags: Array.from({ length: 11 }, (_, i) => `f${i}`) }]],
          ["51 models", Array.from({ length: 51 }, (_, i) => `m${i}`)],
          ["models nested in arrays", [["a"]]],
        ],
      }),
      opt("enabled", "boolean"),
    ],
    // Disabled: the keys made here serve nothing.
    valid: () => ({ name: "Robust", base_url: "http://127.0.0.1:9/v1", models: ["robust-model"], enabled: false }),
  },
  {
    method: "PATCH",
    path: "/api/v1/admin/ai/keys/:keyId",
    auth: true,
    fields: [
      opt("name", "string"),
      opt("base_url", "string", { bad: [["not a URL", "not a url"]] }),
      opt("api_key", "string"),
      opt("models", "array", { bad: [["empty", []]] }),
      opt("enabled", "boolean"),
    ],
    valid: () => ({ name: "Closed port" }),
  },
  // The AI assistant, under both prefixes
  ...AI_PREFIXES.flatMap((prefix): JsonRoute[] => [
    {
      method: "POST",
      path: `${prefix}/conversations`,
      auth: true,
      fields: [opt("title", "string", { nullable: true }), opt("model_id", "string", { nullable: true, bad: [["empty", ""]] })],
      valid: () => ({ title: "robust" }),
      // Every field is optional: an empty body creates an untitled conversation.
      emptyStatus: 201,
    },
    {
      method: "PATCH",
      path: `${prefix}/conversations/:conversationId`,
      auth: true,
      fields: [opt("title", "string", { nullable: true }), opt("model_id", "string", { nullable: true, bad: [["empty", ""]] })],
      valid: () => ({ title: "robust" }),
    },
    {
      method: "POST",
      path: `${prefix}/chat`,
      auth: true,
      fields: [
        req("conversation_id"),
        opt("content", "string", { bad: [["16001 characters", "x".repeat(16_001)]] }),
        opt("model_id"),
        opt("attachments", "array", {
          bad: [
            ["11 files", Array.from({ length: 11 }, () => ({ url: "u" }))],
            ["a string", ["u"]],
            ["an object without url", [{}]],
            ["a url that is a number", [{ url: 5 }]],
            ["a 100 KB url", [{ url: HUGE }]],
          ],
        }),
      ],
      // Never a conversation that exists: nothing may start a stream.
      valid: () => ({ conversation_id: UNKNOWN_UUID, content: "hello" }),
    },
    {
      method: "POST",
      path: `${prefix}/chat/cancel`,
      auth: true,
      fields: [req("stream_id")],
      valid: () => ({ stream_id: UNKNOWN_UUID }),
    },
  ]),
  // Servers, channels, roles and messages (`main` owns `serverId`)
  { method: "POST", path: "/api/v1/servers", auth: true, fields: [req("name", "string", { bad: [["blank", "  "]] }), opt("description")], valid: () => ({ name: "Robust" }) },
  {
    method: "PUT",
    path: "/api/v1/servers/reorder",
    auth: true,
    fields: [req("order", "array", { bad: [["not ids", ["abc"]], ["numbers", [1]], ["501 ids", Array.from({ length: 501 }, () => UNKNOWN_UUID)]] })],
    valid: () => ({ order: [serverId] }),
  },
  { method: "PUT", path: "/api/v1/servers/:serverId", auth: true, fields: [opt("name", "string", { bad: [["empty", ""]] }), opt("description")], valid: () => ({ description: "robust" }) },
  {
    method: "PATCH",
    path: "/api/v1/servers/:serverId/settings",
    auth: true,
    fields: [
      opt("system_channel_id", "string", { nullable: true, bad: [["not a UUID", "abc"]] }),
      opt("default_notifications", "string", { bad: [["unknown", "none"]] }),
      opt("welcome_message"),
    ],
    valid: () => ({ default_notifications: "all" }),
  },
  {
    method: "PATCH",
    path: "/api/v1/servers/:serverId/banner-offset",
    auth: true,
    fields: [req("banner_offset", "number", { bad: [["negative", -1], ["over 100", 101], ["a fraction", 1.5], ["huge", 1e308]] })],
    valid: () => ({ banner_offset: 0 }),
  },
  {
    method: "POST",
    path: "/api/v1/servers/:serverId/vanity",
    auth: true,
    fields: [req("code", "string", { nullable: true, bad: [["two characters", "ab"], ["a space", "a b c"], ["33 characters", "a".repeat(33)]] })],
    valid: () => ({ code: null }),
  },
  {
    method: "POST",
    path: "/api/v1/servers/:serverId/mute",
    auth: true,
    fields: [opt("duration", "number", { bad: [["zero", 0], ["a fraction", 1.5], ["negative", -5]] })],
    valid: () => ({ duration: 60 }),
  },
  {
    method: "POST",
    path: "/api/v1/channels/:serverId",
    auth: true,
    fields: [
      req("name", "string", { bad: [["blank", " "]] }),
      req("type", "string", { bad: [["unknown", "stage"]] }),
      opt("category_id", "string", { nullable: true }),
      opt("is_meeting", "boolean", { bad: [["2", 2]] }),
      opt("chat_enabled", "boolean"),
    ],
    valid: () => ({ name: "robust", type: "text" }),
  },
  {
    method: "PUT",
    path: "/api/v1/channels/:channelId",
    auth: true,
    fields: [
      opt("name"),
      opt("category_id", "string", { nullable: true }),
      opt("topic", "string", { nullable: true }),
      opt("slowmode", "number", { bad: [["negative", -1], ["over 6 hours", 21_601], ["a fraction", 0.5]] }),
      opt("nsfw", "boolean"),
      opt("is_meeting", "boolean"),
      opt("chat_enabled", "boolean"),
    ],
    valid: () => ({ topic: "robust" }),
  },
  {
    method: "PUT",
    path: "/api/v1/channels/:serverId/reorder",
    auth: true,
    fields: [
      req("order", "array", {
        bad: [
          ["strings", ["a"]],
          ["an entry without position", [{ id: UNKNOWN_UUID }]],
          ["a 100 KB id", [{ id: HUGE, position: 0 }]],
          ["a negative position", [{ id: UNKNOWN_UUID, position: -1 }]],
          ["501 entries", Array.from({ length: 501 }, (_, i) => ({ id: UNKNOWN_UUID, position: i }))],
        ],
      }),
    ],
    valid: () => ({ order: [{ id: channelId, position: 0 }] }),
    // docs/channels.md: the bare array works too.
    arrayBody: true,
  },
  { method: "POST", path: "/api/v1/channels/:serverId/categories", auth: true, fields: [req("name", "string", { bad: [["blank", " "]] })], valid: () => ({ name: "robust" }) },
  {
    method: "PUT",
    // A server of its own, whose one category no other route here adds to.
    path: "/api/v1/channels/:spareServerId/categories/reorder",
    auth: true,
    fields: [req("order", "array", { bad: [["numbers", [1]], ["a 100 KB id", [HUGE]]] })],
    valid: () => ({ order: [spareCategoryId] }),
  },
  { method: "PUT", path: "/api/v1/channels/categories/:categoryId", auth: true, fields: [req("name")], valid: () => ({ name: "Robust" }) },
  ...["/api/v1/channels/categories/:categoryId/permissions/:roleId", "/api/v1/channels/:channelId/permissions/:roleId"].map(
    (path): JsonRoute => ({
      method: "PUT",
      path,
      auth: true,
      // Both required: an empty body must not set a 0/0 override (issue 14).
      fields: ["allow", "deny"].map((name) => req(name, "number", { bad: [["negative", -1], ["a fraction", 1.5], ["2^53", 2 ** 53]] })),
      valid: () => ({ allow: 0, deny: 0 }),
    }),
  ),
  ...["POST /api/v1/roles/:serverId", "PUT /api/v1/roles/:serverId/:roleId"].map((route): JsonRoute => {
    const [method, path] = route.split(" ") as [string, string];
    return {
      method,
      path,
      auth: true,
      fields: [
        method === "POST" ? req("name", "string", { bad: [["blank", " "]] }) : opt("name"),
        opt("color", "string", { bad: [["a name", "red"], ["short hex", "#fff"]] }),
        opt("permissions", "number", { bad: [["negative", -1], ["a fraction", 1.5], ["2^60", 2 ** 60]] }),
        opt("hoist", "boolean"),
      ],
      valid: () => ({ name: "Robust", color: "#336699" }),
    };
  }),
  {
    method: "POST",
    path: "/api/v1/roles/:serverId/assign",
    auth: true,
    fields: [req("targetUserId", "string", { bad: [["not a UUID", "abc"]] }), req("roleId", "string", { bad: [["not a UUID", "abc"]] })],
    valid: () => ({ targetUserId: main.id, roleId }),
  },
  {
    method: "POST",
    path: "/api/v1/messages/:channelId",
    auth: true,
    fields: [
      opt("content", "string", { bad: [["4001 characters", "x".repeat(4001)]] }),
      opt("embeds", "array", {
        nullable: true,
        bad: [
          ["a number", [5]],
          ["a string", ["embed"]],
          ["an embed with a 100 KB title", [{ title: HUGE }]],
          ["an embed with a 100 KB description", [{ description: HUGE }]],
          ["an embed whose title is an object", [{ title: { a: 1 } }]],
          ["an embed with 100 fields", [{ fields: Array.from({ length: 100 }, () => ({ name: "a", value: "b" })) }]],
          ["11 embeds", Array.from({ length: 11 }, () => ({ title: "a" }))],
        ],
      }),
      opt("reply_to", "string", { nullable: true, bad: [["not a UUID", "abc"]] }),
    ],
    valid: () => ({ content: "robust" }),
  },
  { method: "PUT", path: "/api/v1/messages/:messageId", auth: true, fields: [req("content", "string", { bad: [["4001 characters", "x".repeat(4001)]] })], valid: () => ({ content: "something to report" }) },
  { method: "POST", path: "/api/v1/messages/:channelId/read", auth: true, fields: [opt("message_id", "string", { bad: [["not a UUID", "abc"]] })], valid: () => ({ message_id: messageId }) },
];

/** A route's path with its `:name` placeholders filled in from the ids made in beforeAll (`:id` kept). */
const pathOf = (route: { path: string }): string =>
  route.path.replace(/:(\w+)/g, (match, name: string) => {
    if (name === "id") return match;
    const ids: Record<string, string> = {
      userId: other.id,
      serverId,
      channelId,
      categoryId,
      roleId,
      messageId,
      reportId,
      keyId,
      conversationId,
      spareServerId,
    };
    const id = ids[name];
    if (id === undefined) throw new Error(`no id for :${name} in ${route.path}`);
    return id;
  });

/** Routes without a body, as `main` (an administrator). */
const PLAIN_ROUTES: PlainRoute[] = [
  ...["settings", "users", "servers", "reports", "log", "ai/settings", "ai/keys"].map((p) => ({ method: "GET", path: `/api/v1/admin/${p}`, auth: true })),
  { method: "GET", path: "/api/v1/reports", auth: true },
  { method: "GET", path: "/api/v1/gifs/search", auth: true },
  ...AI_PREFIXES.flatMap((prefix) => [
    { method: "GET", path: `${prefix}/config`, auth: true },
    { method: "GET", path: `${prefix}/conversations`, auth: true },
  ]),
];

interface QueryParam {
  name: string;
  /** Values the route must refuse with a 400 naming the parameter. */
  bad: string[];
}

interface QueryRoute {
  path: string;
  params: QueryParam[];
}

const LIMIT_BAD = ["0", "-1", "abc", "1.5", "1e2", "", " 5", "0x10", "99999999999999999999999"];
const limit = (max: number): QueryParam => ({ name: "limit", bad: [...LIMIT_BAD, String(max + 1)] });
const before: QueryParam = { name: "before", bad: ["abc", `${UNKNOWN_UUID}x`, "' OR 1=1 --"] };
const flag = (name: string): QueryParam => ({ name, bad: ["yes", "1", "TRUE", ""] });

const QUERY_ROUTES: QueryRoute[] = [
  {
    path: "/api/v1/admin/users",
    params: [{ name: "q", bad: ["x".repeat(101)] }, flag("bot"), flag("premium"), flag("admin"), flag("disabled"), before, limit(100)],
  },
  { path: "/api/v1/admin/servers", params: [{ name: "q", bad: ["x".repeat(101)] }, flag("verified"), before, limit(100)] },
  {
    path: "/api/v1/admin/reports",
    params: [{ name: "status", bad: ["closed", "ALL", ""] }, { name: "type", bad: ["server", ""] }, before, limit(100)],
  },
  { path: "/api/v1/admin/log", params: [before, limit(100)] },
  { path: "/api/v1/reports", params: [before, limit(100)] },
  {
    path: "/api/v1/gifs/search",
    params: [{ name: "q", bad: ["x".repeat(101)] }, { name: "kind", bad: ["video", "GIF", ""] }, limit(50), { name: "cursor", bad: ["x".repeat(513)] }],
  },
  ...AI_PREFIXES.map((prefix) => ({ path: `${prefix}/conversations/:conversationId/messages`, params: [before, limit(100)] })),
  { path: "/api/v1/messages/:channelId", params: [before, limit(100)] },
];

const queryPath = pathOf;

const ID_ROUTES: IdRoute[] = [
  ...[
    ["GET", "/api/v1/admin/users/:id"],
    ["PATCH", "/api/v1/admin/users/:id"],
    ["GET", "/api/v1/admin/servers/:id"],
    ["PATCH", "/api/v1/admin/servers/:id"],
    ["GET", "/api/v1/admin/reports/:id"],
    ["POST", "/api/v1/admin/reports/:id/resolve"],
    ["GET", "/api/v1/admin/ai/keys/:id"],
    ["PATCH", "/api/v1/admin/ai/keys/:id"],
    ["DELETE", "/api/v1/admin/ai/keys/:id"],
    ...AI_PREFIXES.flatMap((prefix) => [
      ["PATCH", `${prefix}/conversations/:id`],
      ["DELETE", `${prefix}/conversations/:id`],
      ["GET", `${prefix}/conversations/:id/messages`],
    ]),
    ["GET", "/api/v1/servers/:id"],
    ["PUT", "/api/v1/servers/:id"],
    ["GET", "/api/v1/servers/:id/members"],
    ["PATCH", "/api/v1/servers/:id/settings"],
    ["POST", "/api/v1/servers/:id/mute"],
    ["DELETE", "/api/v1/servers/:id/mute"],
    ["POST", "/api/v1/servers/:id/read"],
    ["GET", "/api/v1/channels/id/:id"],
    ["GET", "/api/v1/channels/:id"],
    ["PUT", "/api/v1/channels/:id"],
    ["DELETE", "/api/v1/channels/:id"],
    ["POST", "/api/v1/channels/:id/duplicate"],
    ["GET", "/api/v1/channels/:id/permissions"],
    ["PUT", "/api/v1/channels/:channelId/permissions/:id", { allow: 0, deny: 0 }],
    ["DELETE", "/api/v1/channels/:channelId/permissions/:id"],
    ["DELETE", "/api/v1/channels/categories/:id"],
    ["GET", "/api/v1/roles/:id"],
    ["GET", "/api/v1/roles/:serverId/role/:id"],
    ["GET", "/api/v1/roles/:serverId/member/:id"],
    ["PUT", "/api/v1/roles/:serverId/:id"],
    ["DELETE", "/api/v1/roles/:serverId/:id"],
    ["GET", "/api/v1/messages/id/:id"],
    ["GET", "/api/v1/messages/:id"],
    ["POST", "/api/v1/messages/:id"],
    ["DELETE", "/api/v1/messages/:id"],
    ["POST", "/api/v1/messages/:id/read"],
  ].map(([method, label, body]) => ({
    method: method as string,
    label: label as string,
    path: (id: string) => pathOf({ path: label as string }).replace(":id", id),
    auth: true,
    body,
  })),
  { method: "GET", label: "/uploads/ai/:userId/:name (userId)", path: (id) => `/uploads/ai/${id}/${UNKNOWN_UUID}.png`, auth: true },
  { method: "GET", label: "/uploads/ai/:userId/:name (name)", path: (id) => `/uploads/ai/${main.id}/${id}`, auth: true },
];

/** Every route that needs a token, with its ids filled in. */
const authRoutes = (): { method: string; path: string }[] => [
  ...JSON_ROUTES.map((r) => ({ method: r.method, path: pathOf(r) })),
  ...PLAIN_ROUTES,
  ...ID_ROUTES.map((r) => ({ method: r.method, path: r.path(UNKNOWN_UUID) })),
  ...AI_PREFIXES.map((prefix) => ({ method: "POST", path: `${prefix}/uploads` })),
];

// ---------------------------------------------------------------------------------------------
// JSON bodies
// ---------------------------------------------------------------------------------------------

describe("the valid bodies", () => {
  // Run first, so every bad-body test below starts from a body the route accepts.
  test("pass validation: no 400 and no 5xx on any route", async () => {
    const failures: string[] = [];
    for (const route of JSON_ROUTES) {
      const answer = await send(route.method, pathOf(route), { token: (route.token ?? (() => main.token))(), json: route.valid() });
      if (answer.status === 400 || answer.status >= 500) failures.push(`${routeName(route)}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });
});

for (const route of JSON_ROUTES) describeJsonRoute(h, { ...route, url: () => pathOf(route) });

describe("what the bodies left behind", () => {
  test("main is still an enabled administrator and registration is open", async () => {
    const me = await send("GET", "/api/v1/users/me/info");
    expect(me.body).toMatchObject({ id: main.id, platform_admin: true });
    const settings = await send("GET", "/api/v1/admin/settings");
    expect(settings.body).toMatchObject({ registration_open: true });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  test("no chat body started a stream and the conversation holds no messages", async () => {
    const history = await send("GET", `/api/v1/ai/conversations/${conversationId}/messages`);
    expect(history.status).toBe(200);
    expect(history.body).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------------------------

describe("query parameters", () => {
  test("every route answers 200 with no query and with unknown parameters", async () => {
    const failures: string[] = [];
    for (const route of QUERY_ROUTES) {
      for (const query of ["", "?unknown=1&x[]=2&__proto__[admin]=1"]) {
        const answer = await send("GET", queryPath(route) + query);
        if (answer.status !== 200 || !answer.contentType.includes("application/json")) failures.push(`${route.path}${query}: ${answer.status} ${answer.text.slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("a bad value of every parameter is 400 naming it", async () => {
    const failures = new Failures();
    for (const route of QUERY_ROUTES) {
      for (const param of route.params) {
        for (const value of param.bad) {
          const answer = await send("GET", `${queryPath(route)}?${param.name}=${encodeURIComponent(value)}`);
          failures.error(`${route.path}?${param.name}=${JSON.stringify(value.slice(0, 20))}`, answer, 400, param.name);
        }
      }
    }
    failures.check();
  });

  test("a 10 KB value of every parameter is 400 naming it", async () => {
    const failures = new Failures();
    for (const route of QUERY_ROUTES) {
      for (const param of route.params) {
        failures.error(`${route.path}?${param.name}=<10 KB>`, await send("GET", `${queryPath(route)}?${param.name}=${"a".repeat(10 * KB)}`), 400, param.name);
      }
    }
    failures.check();
  });

  test("repeated, bracketed, broken and NUL-byte parameters are never a 5xx", async () => {
    const failures = new Failures();
    for (const route of QUERY_ROUTES) {
      for (const param of route.params) {
        const p = param.name;
        for (const query of [`${p}=1&${p}=2`, `${p}[]=1`, `${p}[a]=1`, `${p}=%zz`, `${p}=%00`, `${p}=%F0%9F%98%80`, p, `${p}=' OR 1=1 --`]) {
          failures.noServerError(`${route.path}?${query}`, await send("GET", `${queryPath(route)}?${query}`));
        }
      }
    }
    failures.check();
  });

  test("repeating a parameter is 400 naming it or taken as one value, never a 5xx", async () => {
    const failures = new Failures();
    for (const route of QUERY_ROUTES) {
      const answer = await send("GET", `${queryPath(route)}?limit=5&limit=6`);
      if (answer.status !== 200) failures.error(`${route.path}?limit=5&limit=6`, answer, 400, "limit");
    }
    failures.check();
  });
});

// ---------------------------------------------------------------------------------------------
// Routes without a JSON body
// ---------------------------------------------------------------------------------------------

describe("routes without a JSON body", () => {
  describeStrayBodies(h, PLAIN_ROUTES);

  test("unmounted methods and paths are 404 JSON", async () => {
    const failures = new Failures();
    for (const [method, path] of [
      ["DELETE", "/api/v1/admin/settings"],
      ["PUT", "/api/v1/admin/users"],
      ["GET", "/api/v1/admin"],
      ["GET", "/api/v1/admin/nope"],
      ["DELETE", "/api/v1/reports"],
      ["POST", "/api/v1/gifs/search"],
      ["GET", "/api/v1/gifs"],
      ["GET", "/api/v1/ai/chat"],
      ["GET", "/api/ai/nope"],
      ["PUT", "/api/v1/admin/ai/settings"],
    ]) {
      failures.error(`${method} ${path}`, await send(method!, path!), 404);
    }
    failures.check();
  });
});

// ---------------------------------------------------------------------------------------------
// AI uploads (multipart)
// ---------------------------------------------------------------------------------------------

describe("POST /api/v1/ai/uploads with a bad upload", () => {
  const MULTIPART = { "content-type": "multipart/form-data; boundary=XYZ" };
  const form = (build: (form: FormData) => void) => {
    const data = new FormData();
    build(data);
    return data;
  };
  const CASES: [string, { raw?: Body; headers?: Record<string, string> }][] = [
    ["a JSON body", { raw: JSON.stringify({ file: "x" }), headers: { "content-type": "application/json" } }],
    ["a malformed JSON body", { raw: "{bad", headers: { "content-type": "application/json" } }],
    ["no body at all", {}],
    ["a text/plain body", { raw: "hello", headers: { "content-type": "text/plain" } }],
    ["raw PNG bytes without multipart", { raw: PNG_1X1, headers: { "content-type": "image/png" } }],
    ["a multipart body without the file field", { raw: fileForm("other", PNG_1X1, "a.png") }],
    ["an empty multipart body", { raw: form(() => undefined) }],
    ["a text field where the file should be", { raw: form((f) => f.append("file", "not a file")) }],
    ["a 100 KB text field where the file should be", { raw: form((f) => f.append("file", HUGE)) }],
    ["an empty file", { raw: fileForm("file", new Uint8Array(0), "a.png") }],
    ["garbage with a multipart content-type", { raw: "garbage", headers: MULTIPART }],
    ["a truncated multipart body", { raw: `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG`, headers: MULTIPART }],
    ["a multipart content-type without a boundary", { raw: "--XYZ\r\n\r\n--XYZ--", headers: { "content-type": "multipart/form-data" } }],
  ];

  for (const prefix of AI_PREFIXES) {
    test.each(CASES)(`${prefix}/uploads: %s is 400`, async (_name, options) => {
      expectError(await send("POST", `${prefix}/uploads`, options), 400);
    });
  }

  test("a valid image still uploads", async () => {
    const answer = await send("POST", "/api/v1/ai/uploads", { raw: fileForm("file", PNG_1X1, "ok.png") });
    expect(answer.status).toBe(201);
  });
});

// ---------------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------------

describe("path ids", () => {
  describeIdRoutes(h, ID_ROUTES);

  test("another user's conversation is 404 on every conversation route", async () => {
    const failures = new Failures();
    for (const route of ID_ROUTES.filter((r) => r.label.includes("/conversations/"))) {
      failures.error(`${route.method} ${route.label}`, await send(route.method, route.path(conversationId), { token: other.token, json: route.method === "PATCH" ? { title: "x" } : undefined }), 404);
    }
    failures.check();
  });
});

// ---------------------------------------------------------------------------------------------
// PUT /api/v1/roles/:serverId/reorder: a bare array body
// ---------------------------------------------------------------------------------------------

describe("PUT /api/v1/roles/:serverId/reorder with a bad body", () => {
  const reorder = (options: { json?: unknown; raw?: Body; headers?: Record<string, string> }) => send("PUT", `/api/v1/roles/${serverId}/reorder`, options);

  test("bad bodies are 400 and never a 5xx", async () => {
    const failures = new Failures();
    for (const [name, json] of [
      ["an object", { order: [] }],
      ["a string", "roles"],
      ["null", null],
      ["numbers", [1, 2]],
      ["strings", ["a"]],
      ["an entry without id", [{ position: 0 }]],
      ["an entry without position", [{ id: UNKNOWN_UUID }]],
      ["an id that is not a UUID", [{ id: "abc", position: 0 }]],
      ["a 100 KB id", [{ id: HUGE, position: 0 }]],
      ["a negative position", [{ id: UNKNOWN_UUID, position: -1 }]],
      ["a fractional position", [{ id: UNKNOWN_UUID, position: 0.5 }]],
      ["a position that is a string", [{ id: UNKNOWN_UUID, position: "0" }]],
      ["1001 entries", Array.from({ length: 1001 }, (_, i) => ({ id: UNKNOWN_UUID, position: i }))],
    ] as [string, unknown][]) {
      failures.error(name, await reorder({ json }), 400);
    }
    for (const [name, raw] of [["{bad", "{bad"], ["[", "["], ["two arrays", "[][]"]] as [string, string][]) {
      failures.error(name, await reorder({ raw, headers: { "content-type": "application/json" } }), 400);
    }
    failures.check();
  });

  test("an unknown role id and extra keys are refused or ignored, never a 5xx; a valid body is 200", async () => {
    const failures = new Failures();
    failures.noServerError("an unknown role", await reorder({ json: [{ id: UNKNOWN_UUID, position: 1 }] }));
    failures.noServerError("extra keys", await reorder({ raw: `[{"id": "${roleId}", "position": 1, "__proto__": {"admin": true}, "x": 1}]`, headers: { "content-type": "application/json" } }));
    failures.check();
    expect((await reorder({ json: [{ id: roleId, position: 1 }] })).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// Authorization
// ---------------------------------------------------------------------------------------------

describe("Authorization", () => {
  describeBadAuthorizations(h, () => main, authRoutes);

  const ADMIN_ROUTES = () => authRoutes().filter((r) => r.path.startsWith("/api/v1/admin"));

  test("a user who is not an administrator gets 403 on every admin route, whatever the body", async () => {
    const failures = new Failures();
    for (const route of ADMIN_ROUTES()) {
      for (const [name, options] of [
        ["no body", {}],
        ["{bad", { raw: "{bad", headers: { "content-type": "application/json" } }],
        ["wrong types", { json: [1, 2] }],
        ["a 100 KB string", { json: { name: HUGE, registration_open: "x" } }],
      ] as [string, { raw?: Body; json?: unknown; headers?: Record<string, string> }][]) {
        failures.error(`${routeName(route)} with ${name}`, await send(route.method, route.path, { token: other.token, ...options }), 403);
      }
    }
    failures.check();
  });

  test("a bot token (its owner an administrator) gets 403 on every admin and AI route, whatever the body", async () => {
    const bot = await createBot(server, main);
    const failures = new Failures();
    for (const route of authRoutes().filter((r) => r.path.startsWith("/api/v1/admin") || r.path.startsWith("/api/v1/ai") || r.path.startsWith("/api/ai"))) {
      failures.error(`${routeName(route)} with no body`, await send(route.method, route.path, { token: bot.token }), 403);
      failures.error(`${routeName(route)} with {bad`, await send(route.method, route.path, { token: bot.token, raw: "{bad", headers: { "content-type": "application/json" } }), 403);
    }
    failures.check();
  });

  test("without a token, a bad body or query is 401, not 400 (the token is checked first)", async () => {
    const failures = new Failures();
    for (const route of JSON_ROUTES) {
      const path = pathOf(route);
      failures.error(`${route.method} ${route.path} with {bad`, await send(route.method, path, { token: null, raw: "{bad", headers: { "content-type": "application/json" } }), 401);
      failures.error(`${route.method} ${route.path} with wrong types`, await send(route.method, path, { token: null, json: [1, 2] }), 401);
    }
    for (const route of QUERY_ROUTES) {
      failures.error(`GET ${route.path}?limit=abc`, await send("GET", `${queryPath(route)}?limit=abc`, { token: null }), 401);
    }
    for (const route of ID_ROUTES) {
      failures.error(`${route.method} ${route.label} with a non-UUID`, await send(route.method, route.path("abc"), { token: null }), 401);
    }
    failures.check();
  });

  test("the valid token still works after all of that", async () => {
    expect((await send("GET", "/api/v1/admin/settings")).status).toBe(200);
  });
});
