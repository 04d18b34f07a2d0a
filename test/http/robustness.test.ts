/**
 * Black-box robustness: malformed JSON, wrong types, missing fields, 100 KB strings, non-UUID
 * ids, garbage uploads and garbage credentials sent to every mounted route and to the gateway.
 * Nothing may answer 5xx; every error is a JSON `{error: string}` with a 4xx status
 * (CONTRACT.md "Bodies, statuses, errors").
 *
 * Most tests check a whole table at once and compare the list of failures to `[]`, so a
 * failure names every route and input that misbehaved together with what came back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT, UnsecuredJWT } from "jose";
import { NOT_AN_IMAGE, PNG_1X1, fileForm, pngOfSize } from "../helpers/images.ts";
import {
  GARBAGE_BYTES,
  HUGE,
  KB,
  MB,
  UNKNOWN_UUID,
  answerOfResponse,
  badAuthorizations,
  createHarness,
  describeIdRoutes,
  describeJsonRoute,
  describeStrayBodies,
  expectError,
  Failures,
  opt,
  req,
  routeName,
  type IdRoute,
  type JsonRoute,
  type PlainRoute,
  type Send,
  type UploadRoute,
} from "../helpers/robustness.ts";
import { startServer, uniqueName, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";
import { DEFAULT_EVENT_LIMITS } from "../../src/gateway/event-limits.ts";

let server: TestServer;
/** The account most routes act on; its password is never changed and 2FA never enabled. */
let main: TestUser;
/** Another account, the target of mute and profile look-ups. */
let other: TestUser;
/** Logs in during the login table. */
let loginUser: TestUser;
/** Calls POST /2fa/setup, so `main` never holds a pending secret a lucky code could enable. */
let setupUser: TestUser;

beforeAll(async () => {
  // The gateway garbage table sends dozens of status:set at once, past a person's rate
  // (presence: 2/s, bursts of 10); the limits themselves are tested in test/gateway/abuse.test.ts.
  // The REST tables send hundreds of bad requests with one token: the REST rate limits are
  // raised too (they are tested in test/http/rate-limits.test.ts).
  server = await startServer({ gatewayEventLimits: { ...DEFAULT_EVENT_LIMITS, presence: { perSecond: 1000, burst: 1000 } }, ...raisedRestRateLimits() });
  [main, other, loginUser, setupUser] = await Promise.all([server.register(), server.register(), server.register(), server.register()]);
});
afterAll(() => server.stop());

const h = createHarness({ server: () => server, token: () => main.token });
const { send, rawRequest } = h;

// ---------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------

/** Every route that takes a JSON body. */
const JSON_ROUTES: JsonRoute[] = [
  {
    method: "POST",
    path: "/api/v1/auth/register",
    auth: false,
    fields: [req("username"), req("email"), req("password")],
    valid: () => {
      const name = uniqueName("robust");
      return { username: name, email: `${name}@example.test`, password: "long enough password" };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/login",
    auth: false,
    fields: [req("login"), req("password"), opt("code", "code")],
    valid: () => ({ login: loginUser.username, password: loginUser.password }),
  },
  { method: "POST", path: "/api/v1/auth/2fa/enable", auth: true, fields: [req("code", "code"), req("password")], valid: () => ({ code: "123456", password: main.password }) },
  { method: "POST", path: "/api/v1/auth/2fa/disable", auth: true, fields: [req("code", "code"), req("password")], valid: () => ({ code: "123456", password: main.password }) },
  {
    method: "POST",
    path: "/api/v1/auth/2fa/recovery-codes",
    auth: true,
    fields: [req("code", "code"), req("password")],
    valid: () => ({ code: "123456", password: main.password }),
  },
  {
    method: "PUT",
    path: "/api/v1/users/me/profile",
    auth: true,
    fields: [opt("username"), opt("bio"), opt("banner_offset", "number")],
    valid: () => ({ bio: "robust" }),
  },
  {
    method: "PUT",
    path: "/api/v1/users/me/password",
    auth: true,
    fields: [req("currentPassword"), req("newPassword")],
    // Never the real password: `main`'s token must stay valid.
    valid: () => ({ currentPassword: "not the current password", newPassword: "a brand new password" }),
  },
  {
    method: "POST",
    path: "/api/v1/users/me/notifications",
    auth: true,
    fields: [
      opt("message_notifications"),
      opt("dm_notifications", "boolean"),
      opt("friend_request_notifications", "boolean"),
      opt("sounds", "boolean"),
      opt("desktop", "boolean"),
    ],
    valid: () => ({ sounds: true }),
  },
  {
    method: "PATCH",
    path: "/api/v1/users/me/privacy",
    auth: true,
    fields: [opt("dms_from"), opt("friend_requests_from")],
    valid: () => ({ friend_requests_from: "everyone" }),
  },
  {
    method: "POST",
    path: "/api/v1/users/me/connections",
    auth: true,
    fields: [req("type"), req("name"), opt("url"), opt("visible", "boolean")],
    valid: () => ({ type: "github", name: "robust" }),
  },
];

/** Routes without a JSON body (multipart uploads are listed separately). */
const PLAIN_ROUTES: PlainRoute[] = [
  { method: "GET", path: "/api/v1", auth: false },
  { method: "GET", path: "/api/v1/", auth: false },
  { method: "GET", path: "/api/v1/platform/config", auth: false },
  { method: "GET", path: "/api/v1/stats", auth: false },
  { method: "POST", path: "/api/v1/auth/2fa/setup", auth: true, as: () => setupUser },
  { method: "GET", path: "/api/v1/users/me/info", auth: true },
  { method: "DELETE", path: "/api/v1/users/me/avatar", auth: true },
  { method: "DELETE", path: "/api/v1/users/me/banner", auth: true },
  { method: "GET", path: "/api/v1/users/me/notifications", auth: true },
  { method: "GET", path: "/api/v1/users/me/privacy", auth: true },
  { method: "GET", path: "/api/v1/users/me/connections", auth: true },
  { method: "GET", path: "/api/v1/users/me/muted-users", auth: true },
];

const UPLOAD_ROUTES: UploadRoute[] = [
  { path: "/api/v1/users/me/avatar", field: "avatar", maxBytes: 2 * MB },
  { path: "/api/v1/users/me/banner", field: "banner", maxBytes: 5 * MB },
];


const ID_ROUTES: IdRoute[] = [
  { method: "DELETE", label: "/api/v1/users/me/connections/:connectionId", path: (id) => `/api/v1/users/me/connections/${id}`, auth: true },
  { method: "POST", label: "/api/v1/users/me/muted-users/:targetId", path: (id) => `/api/v1/users/me/muted-users/${id}`, auth: true },
  { method: "DELETE", label: "/api/v1/users/me/muted-users/:targetId", path: (id) => `/api/v1/users/me/muted-users/${id}`, auth: true },
  { method: "GET", label: "/api/v1/users/:id", path: (id) => `/api/v1/users/${id}`, auth: true },
  { method: "GET", label: "/api/v1/users/:id/profile", path: (id) => `/api/v1/users/${id}/profile`, auth: true },
  { method: "GET", label: "/uploads/:kind/:name (name)", path: (id) => `/uploads/avatars/${id}`, auth: false },
  { method: "GET", label: "/uploads/:kind/:name (name.png)", path: (id) => `/uploads/avatars/${id}.png`, auth: false },
  { method: "GET", label: "/uploads/:kind/:name (kind)", path: (id) => `/uploads/${id}/${UNKNOWN_UUID}.png`, auth: false },
];

/** Every route that needs a token (ids filled in once the users exist). */
const authRoutes = (): { method: string; path: string }[] =>
  [
    ...JSON_ROUTES.filter((r) => r.auth),
    ...PLAIN_ROUTES.filter((r) => r.auth),
    ...UPLOAD_ROUTES.map((r) => ({ method: "POST", path: r.path })),
    ...ID_ROUTES.filter((r) => r.auth).map((r) => ({ method: r.method, path: r.path(other.id) })),
  ].map(({ method, path }) => ({ method, path }));

// ---------------------------------------------------------------------------------------------
// JSON bodies
// ---------------------------------------------------------------------------------------------

for (const route of JSON_ROUTES) describeJsonRoute(h, route);

test("extra fields changed nothing they name", async () => {
  const me = await send("GET", "/api/v1/users/me/info");
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ id: main.id, email: main.email, is_bot: 0, two_factor_enabled: false });
  expect(({} as Record<string, unknown>).admin).toBeUndefined();
});

// ---------------------------------------------------------------------------------------------
// Routes without a JSON body
// ---------------------------------------------------------------------------------------------

describe("routes without a JSON body", () => {
  describeStrayBodies(h, PLAIN_ROUTES);

  test("the public routes answer 200 JSON whatever Authorization header or query they get", async () => {
    const failures: string[] = [];
    for (const route of PLAIN_ROUTES.filter((r) => !r.auth)) {
      for (const authorization of ["Bearer", "Bearer x.y.z", "Basic abc", `Bearer ${"a".repeat(10 * KB)}`]) {
        const answer = await send(route.method, `${route.path}?limit=abc&id=' OR 1=1 --&x[]=1`, { authorization });
        if (answer.status !== 200 || !answer.contentType.includes("application/json")) {
          failures.push(`${routeName(route)} with "${authorization.slice(0, 20)}": ${answer.status} ${answer.text.slice(0, 100)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  test("unmounted methods and paths are 404 JSON", async () => {
    const failures = new Failures();
    for (const [method, path] of [
      ["POST", "/api/v1/stats"],
      ["DELETE", "/api/v1/platform/config"],
      ["PATCH", "/api/v1/users/me/info"],
      ["PUT", "/api/v1/auth/login"],
      ["GET", "/api/v1/auth/register"],
      ["GET", "/api/v1/nope"],
      ["GET", "/api/v2"],
      ["GET", "/uploads"],
      ["GET", "/uploads/avatars"],
      ["GET", "/%zz"],
    ]) {
      failures.error(`${method} ${path}`, await send(method!, path!, { token: null }), 404);
    }
    failures.check();
  });
});

// ---------------------------------------------------------------------------------------------
// Multipart uploads
// ---------------------------------------------------------------------------------------------

const MULTIPART = (boundary = "XYZ") => ({ "content-type": `multipart/form-data; boundary=${boundary}` });

for (const route of UPLOAD_ROUTES) {
  const upload = (options: Omit<Send, "token">) => send("POST", route.path, options);

  describe(`POST ${route.path} with a bad upload`, () => {
    const form = (build: (form: FormData) => void) => {
      const data = new FormData();
      build(data);
      return data;
    };

    test.each([
      ["a JSON body", { raw: JSON.stringify({ [route.field]: "x" }), headers: { "content-type": "application/json" } }],
      ["a malformed JSON body", { raw: "{bad", headers: { "content-type": "application/json" } }],
      ["no body at all", {}],
      ["a text/plain body", { raw: "hello", headers: { "content-type": "text/plain" } }],
      ["raw PNG bytes without multipart", { raw: PNG_1X1, headers: { "content-type": "image/png" } }],
      ["a multipart body without the file field", { raw: form((f) => f.append("other", new File([PNG_1X1], "a.png", { type: "image/png" }))) }],
      ["an empty multipart body", { raw: form(() => undefined) }],
      ["a text field where the file should be", { raw: form((f) => f.append(route.field, "not a file")) }],
      ["a 100 KB text field where the file should be", { raw: form((f) => f.append(route.field, HUGE)) }],
      ["garbage bytes as the file", { raw: fileForm(route.field, GARBAGE_BYTES, "a.png") }],
      ["an SVG as the file", { raw: fileForm(route.field, NOT_AN_IMAGE, "a.png") }],
      ["an empty file", { raw: fileForm(route.field, new Uint8Array(0), "a.png") }],
      ["a PNG signature cut short", { raw: fileForm(route.field, PNG_1X1.subarray(0, 4), "a.png") }],
      ["garbage bytes with a multipart content-type", { raw: GARBAGE_BYTES, headers: MULTIPART() }],
      [
        "a truncated multipart body",
        { raw: `--XYZ\r\nContent-Disposition: form-data; name="${route.field}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG`, headers: MULTIPART() },
      ],
      [
        "a multipart body with another boundary",
        { raw: `--ABC\r\nContent-Disposition: form-data; name="${route.field}"; filename="a.png"\r\n\r\nx\r\n--ABC--\r\n`, headers: MULTIPART() },
      ],
      [
        "a part without Content-Disposition",
        { raw: `--XYZ\r\nContent-Type: image/png\r\n\r\nx\r\n--XYZ--\r\n`, headers: MULTIPART() },
      ],
      ["a multipart content-type without a boundary", { raw: "--XYZ\r\n\r\n--XYZ--", headers: { "content-type": "multipart/form-data" } }],
      ["an empty boundary", { raw: "--\r\n\r\n----", headers: { "content-type": "multipart/form-data; boundary=" } }],
      ["a 100 KB boundary", { raw: `--${HUGE}\r\n\r\n--${HUGE}--`, headers: MULTIPART(HUGE.slice(0, 70)) }],
    ] as [string, Omit<Send, "token">][])("%s is 400", async (_name, options) => {
      expectError(await upload(options), 400);
    });

    test("a file one byte over the limit is 413", async () => {
      expectError(await upload({ raw: fileForm(route.field, pngOfSize(route.maxBytes + 1), "big.png") }), 413);
    });

    test("a body far over the limit is 413", async () => {
      expectError(await upload({ raw: fileForm(route.field, pngOfSize(route.maxBytes + MB), "big.png") }), 413);
    });

    test("a chunked body (no Content-Length) over the limit is 413", async () => {
      const data = new Response(fileForm(route.field, pngOfSize(route.maxBytes + 1), "big.png"));
      const type = data.headers.get("content-type")!;
      const stream = data.body!;
      const response = await fetch(server.url + route.path, {
        method: "POST",
        headers: { authorization: `Bearer ${main.token}`, "content-type": type },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expectError(await answerOfResponse(response), 413);
    });

    const claiming = (length: string) =>
      rawRequest("POST", route.path, { authorization: `Bearer ${main.token}`, ...MULTIPART(), "content-length": length });

    test("a Content-Length over the route's limit is 413 before the body is sent", async () => {
      expectError(await claiming(String(route.maxBytes * 2)), 413);
    });

    // Past the server-wide cap (516 MB) Bun itself refuses before any of our code runs: the
    // status is right, the body is Bun's own (documented in docs/README.md).
    test("a Content-Length over the server's largest body (10 GB) is 413", async () => {
      expect((await claiming("10000000000")).status).toBe(413);
    });

    test("a valid image still uploads afterwards", async () => {
      const answer = await upload({ raw: fileForm(route.field, PNG_1X1, "ok.png") });
      expect(answer.status).toBe(200);
    });
  });
}

describe("deeply nested JSON", () => {
  // Slow by nature (seconds): one request, on a route that needs no token.
  test("a body of arrays nested 50 000 deep (100 KB) is 400, not 500", async () => {
    const raw = "[".repeat(50_000) + "]".repeat(50_000);
    expectError(await send("POST", "/api/v1/auth/login", { token: null, raw, headers: { "content-type": "application/json" } }), 400);
  }, 30_000);
});

describe("JSON bodies without Content-Length", () => {
  test("a chunked JSON body over 1 MB is 413 like one with a Content-Length", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ bio: "x".repeat(2 * MB) }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * KB) controller.enqueue(bytes.subarray(at, at + 64 * KB));
        controller.close();
      },
    });
    const response = await fetch(server.url + "/api/v1/users/me/profile", {
      method: "PUT",
      headers: { authorization: `Bearer ${main.token}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expectError(await answerOfResponse(response), 413);
  });
});

// ---------------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------------

describe("path ids", () => {
  describeIdRoutes(h, ID_ROUTES);

  test("another user's connection id is 404", async () => {
    const created = await send("POST", "/api/v1/users/me/connections", { token: other.token, json: { type: "github", name: "theirs" } });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expectError(await send("DELETE", `/api/v1/users/me/connections/${id}`), 404);
  });

  test("muting yourself is 400 and unmuting someone never muted is 404", async () => {
    expectError(await send("POST", `/api/v1/users/me/muted-users/${main.id}`), 400);
    expectError(await send("DELETE", `/api/v1/users/me/muted-users/${other.id}`), 404);
  });
});

// ---------------------------------------------------------------------------------------------
// Authorization
// ---------------------------------------------------------------------------------------------

describe("Authorization", () => {
  let cases: [string, string | null][] = [];
  beforeAll(async () => {
    cases = await badAuthorizations(server, main);
  });

  test("every bad Authorization header is 401 {error} on every route that needs a token", async () => {
    const failures = new Failures();
    for (const [name, authorization] of cases) {
      for (const route of authRoutes()) {
        const answer = await send(route.method, route.path, authorization === null ? { token: null } : { authorization });
        failures.error(`${name}: ${routeName(route)}`, answer, 401);
      }
    }
    failures.check();
  });

  // One test per header too, so a failure names its header in the test list.
  const NAMES = [
    "no header", "Bearer", "Bearer x.y.z", "Basic abc", "a token signed with another secret", 'a token with alg "none"',
    "an expired token", "a token of an older version", "a 10 KB token", "a 15 KB token",
  ];
  test.each(NAMES.map((name) => [name]))("%s is 401 {error} on GET /users/me/info", async (name) => {
    const authorization = cases.find(([n]) => n === name)![1];
    const answer = await send("GET", "/api/v1/users/me/info", authorization === null ? { token: null } : { authorization });
    expectError(answer, 401);
  });

  test("without a token, a bad body is 401, not 400 (the token is checked first)", async () => {
    const failures = new Failures();
    for (const route of JSON_ROUTES.filter((r) => r.auth)) {
      failures.error(`${routeName(route)} with {bad`, await send(route.method, route.path, { token: null, raw: "{bad", headers: { "content-type": "application/json" } }), 401);
      failures.error(`${routeName(route)} with wrong types`, await send(route.method, route.path, { token: null, json: [1, 2] }), 401);
    }
    for (const route of UPLOAD_ROUTES) {
      failures.error(`POST ${route.path} with garbage`, await send("POST", route.path, { token: null, raw: "garbage", headers: MULTIPART() }), 401);
    }
    for (const route of ID_ROUTES.filter((r) => r.auth)) {
      failures.error(`${route.method} ${route.label} with a non-UUID`, await send(route.method, route.path("abc"), { token: null }), 401);
    }
    failures.check();
  });

  // Request lines and headers over 16 KiB are refused by Bun with 431 before any of our code
  // runs (documented in docs/README.md).
  test.each([
    ["a 100 KB token", () => send("GET", "/api/v1/users/me/info", { authorization: `Bearer ${"a".repeat(100_000)}` })],
    ["a 100 KB path id", () => send("GET", `/api/v1/users/${"a".repeat(100_000)}`)],
  ] as const)("%s is refused by Bun with 431", async (_name, request) => {
    expect((await request()).status).toBe(431);
  });

  test("the valid token still works after all of that", async () => {
    const me = await send("GET", "/api/v1/users/me/info");
    expect(me.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// Gateway
// ---------------------------------------------------------------------------------------------

describe("gateway", () => {
  let socket: ClientSocket;
  beforeAll(async () => {
    socket = await server.connect(main.token);
  });
  afterAll(() => socket.close());

  const GARBAGE: [string, unknown[]][] = [
    ["no payload", []],
    ["a string", ["online"]],
    ["a number", [5]],
    ["null", [null]],
    ["an array", [["online"]]],
    ["an empty object", [{}]],
    ["{status: 5}", [{ status: 5 }]],
    ["{status: null}", [{ status: null }]],
    ["{status: {}}", [{ status: {} }]],
    ["{status: 'ONLINE'}", [{ status: "ONLINE" }]],
    ["{status: 'x' * 100 000}", [{ status: HUGE }]],
    ["binary data", [new Uint8Array([1, 2, 3])]],
    ["{status} nested 1000 deep", [JSON.parse('{"status":'.repeat(1000) + '"online"' + "}".repeat(1000))]],
    ["two payloads", [{ status: 5 }, { status: "online" }]],
  ];

  test.each(GARBAGE)("status:set with %s acks {ok: false, error} and keeps the socket", async (_name, args) => {
    const ack: unknown = await socket.timeout(3000).emitWithAck("status:set", ...(args as [unknown]));
    expect(ack).toEqual({ ok: false, error: expect.any(String) });
    expect((ack as { error: string }).error.length).toBeGreaterThan(0);
    expect(socket.connected).toBe(true);
  });

  test("status:set garbage without an ack callback does not drop the socket", async () => {
    for (const [, args] of GARBAGE) (socket.emit as (event: string, ...args: unknown[]) => void)("status:set", ...args);
    (socket.emit as (event: string, ...args: unknown[]) => void)("no-such-event", { a: 1 });
    const ack: unknown = await socket.timeout(3000).emitWithAck("status:set", { status: "idle" });
    expect(ack).toEqual({ ok: true, status: "idle" });
    expect(socket.connected).toBe(true);
  });

  const otherSecretToken = () =>
    new SignJWT({ ver: 0 }).setProtectedHeader({ alg: "HS256" }).setSubject(main.id).sign(new TextEncoder().encode("other-secret-other-secret-other-secret-42"));

  test.each([
    ["{token: 5}", () => 5],
    ["{token: {}}", () => ({})],
    ["{token: []}", () => []],
    ["{token: null}", () => null],
    ["{token: true}", () => true],
    ["a 100 KB token", () => HUGE],
    ["Bearer <valid token>", () => `Bearer ${main.token}`],
    ["a token signed with another secret", otherSecretToken],
    ['a token with alg "none"', () => new UnsecuredJWT({ ver: 0 }).setSubject(main.id).encode()],
  ] as [string, () => unknown][])("a handshake with %s fails with connect_error Unauthorized", async (_name, token) => {
    // The harness sends `auth: {token}` whatever the value is.
    const error = await server.connect((await token()) as string).then(
      (connected) => {
        connected.close();
        return null;
      },
      (e: Error) => e,
    );
    expect(error?.message).toBe("Unauthorized");
  });

  test("the first socket is still connected and answers", async () => {
    const ack: unknown = await socket.timeout(3000).emitWithAck("status:set", { status: "online" });
    expect(ack).toEqual({ ok: true, status: "online" });
  });
});
