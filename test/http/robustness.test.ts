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
import { connect as tcpConnect } from "node:net";
import { NOT_AN_IMAGE, PNG_1X1, fileForm, pngOfSize } from "../helpers/images.ts";
import { startServer, uniqueName, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";

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
  server = await startServer();
  [main, other, loginUser, setupUser] = await Promise.all([server.register(), server.register(), server.register(), server.register()]);
});
afterAll(() => server.stop());

type Body = NonNullable<RequestInit["body"]>;

const KB = 1024;
const MB = 1024 * KB;
const HUGE = "x".repeat(100_000);
const UNKNOWN_UUID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
/** 512 fixed bytes that start like no image format. */
const GARBAGE_BYTES = Uint8Array.from({ length: 512 }, (_, i) => (i * 37 + 11) % 256);

// ---------------------------------------------------------------------------------------------
// Sending requests and judging answers
// ---------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  contentType: string;
  text: string;
  body: unknown;
}

interface Send {
  /** `main`'s token unless given; `null` sends no Authorization header. */
  token?: string | null;
  /** The whole Authorization header, instead of `Bearer <token>`. */
  authorization?: string;
  /** Encoded as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as-is. */
  raw?: Body;
  headers?: Record<string, string>;
}

async function send(method: string, path: string, options: Send = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? main.token : options.token;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (token) headers.authorization = `Bearer ${token}`;
  let body: Body | undefined = options.raw;
  if (options.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.json);
  }
  // fetch() refuses a body on GET; a client on a raw socket can still send one.
  if ((method === "GET" || method === "HEAD") && body !== undefined) {
    if (typeof body !== "string" && !(body instanceof Uint8Array)) throw new Error("raw GET bodies are strings or bytes");
    return rawRequest(method, path, headers, body);
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: "manual" });
  return answerOf(response.status, response.headers.get("content-type") ?? "", await response.text());
}

function answerOf(status: number, contentType: string, text: string): Answer {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: judged below
  }
  return { status, contentType, text, body };
}

/** A JSON `{error: string}` and nothing else; `mentions` must appear in the message. */
function errorShape(answer: Answer, mentions?: string): string {
  const { body } = answer;
  const ok =
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    Object.keys(body).join() === "error" &&
    typeof (body as { error: unknown }).error === "string" &&
    (body as { error: string }).error.length > 0;
  if (!ok) return `not {error: string}: ${JSON.stringify(answer.text.slice(0, 200))}`;
  const error = (body as { error: string }).error;
  if (mentions !== undefined && !error.includes(mentions)) return `error does not name "${mentions}": ${JSON.stringify(error)}`;
  return "{error: string}";
}

type Expected = number | readonly number[] | "4xx";
const ANY_4XX: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i);
const allowedStatuses = (expected: Expected): readonly number[] =>
  expected === "4xx" ? ANY_4XX : typeof expected === "number" ? [expected] : expected;
const statusLabel = (expected: Expected) => (expected === "4xx" ? "4xx" : allowedStatuses(expected).join("|"));

interface Verdict {
  status: number | string;
  json: boolean;
  body: string;
}

/** What an error answer should look like, and how this one looked (equal when it is right). */
function judgeError(answer: Answer, expected: Expected, mentions?: string): { want: Verdict; got: Verdict } {
  const label = statusLabel(expected);
  return {
    want: { status: label, json: true, body: "{error: string}" },
    got: {
      status: allowedStatuses(expected).includes(answer.status) ? label : answer.status,
      json: answer.contentType.includes("application/json"),
      body: errorShape(answer, mentions),
    },
  };
}

function expectError(answer: Answer, expected: Expected, mentions?: string): void {
  const { want, got } = judgeError(answer, expected, mentions);
  expect(got).toEqual(want);
}

/** For inputs a route may accept or refuse: a success (2xx), or a 4xx JSON `{error}`; never 5xx. */
function expectNoServerError(answer: Answer): void {
  if (answer.status >= 200 && answer.status < 300) return;
  expectError(answer, "4xx");
}

/** Collects the failures of a table; the test then compares the list to `[]`. */
class Failures {
  readonly list: { case: string; got: Verdict }[] = [];

  error(name: string, answer: Answer, expected: Expected, mentions?: string): void {
    const { want, got } = judgeError(answer, expected, mentions);
    if (JSON.stringify(got) !== JSON.stringify(want)) this.list.push({ case: name, got });
  }

  noServerError(name: string, answer: Answer): void {
    if (answer.status >= 200 && answer.status < 300) return;
    this.error(name, answer, "4xx");
  }

  check(): void {
    expect(this.list).toEqual([]);
  }
}

/**
 * An HTTP/1.1 request written by hand, for what fetch() will not send (a body on GET, a
 * Content-Length that is not the body's); the first answer on the connection.
 */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Answer> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const all: Record<string, string> = { host: "localhost", connection: "close", ...headers };
  if (bytes && all["content-length"] === undefined) all["content-length"] = String(bytes.length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(server.app.port, "127.0.0.1", () => {
      socket.write(head);
      if (bytes) socket.write(bytes);
    });
    let data = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const [top = "", ...rest] = data.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = top.split("\r\n");
      const status = Number(statusLine.split(" ")[1] ?? 0);
      const typeLine = headerLines.find((line) => line.toLowerCase().startsWith("content-type:")) ?? "";
      resolve(answerOf(status, typeLine.slice("content-type:".length).trim(), rest.join("\r\n\r\n")));
    };
    // One answer is all we wait for: stop once the head and the announced body are in.
    const timer = setTimeout(finish, 3000);
    socket.on("data", (chunk) => {
      data += chunk.toString();
      const split = data.indexOf("\r\n\r\n");
      if (split < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(data.slice(0, split));
      if (!length || data.length - split - 4 >= Number(length[1])) finish();
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", (error) => (done ? undefined : reject(error)));
  });
}

// ---------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------

type FieldType = "string" | "number" | "boolean" | "code";

interface Field {
  name: string;
  type: FieldType;
  required: boolean;
}

interface JsonRoute {
  method: string;
  path: string;
  auth: boolean;
  fields: Field[];
  /** A body that passes validation (the route may still refuse it, e.g. a wrong password). */
  valid: () => Record<string, unknown>;
}

const req = (name: string, type: FieldType = "string"): Field => ({ name, type, required: true });
const opt = (name: string, type: FieldType = "string"): Field => ({ name, type, required: false });

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
  { method: "POST", path: "/api/v1/auth/2fa/enable", auth: true, fields: [req("code", "code")], valid: () => ({ code: "123456" }) },
  { method: "POST", path: "/api/v1/auth/2fa/disable", auth: true, fields: [req("code", "code")], valid: () => ({ code: "123456" }) },
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
    method: "POST",
    path: "/api/v1/users/me/connections",
    auth: true,
    fields: [req("type"), req("name"), opt("url"), opt("visible", "boolean")],
    valid: () => ({ type: "github", name: "robust" }),
  },
];

interface PlainRoute {
  method: string;
  path: string;
  auth: boolean;
  /** A user other than `main`, for routes with side effects. */
  as?: () => TestUser;
}

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
  { method: "GET", path: "/api/v1/users/me/connections", auth: true },
  { method: "GET", path: "/api/v1/users/me/muted-users", auth: true },
];

interface UploadRoute {
  path: string;
  field: string;
  maxBytes: number;
}

const UPLOAD_ROUTES: UploadRoute[] = [
  { path: "/api/v1/users/me/avatar", field: "avatar", maxBytes: 2 * MB },
  { path: "/api/v1/users/me/banner", field: "banner", maxBytes: 5 * MB },
];

interface IdRoute {
  method: string;
  /** The path with the id (already URL-encoded) in place. */
  path: (id: string) => string;
  label: string;
  auth: boolean;
}

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

const routeName = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

// ---------------------------------------------------------------------------------------------
// JSON bodies
// ---------------------------------------------------------------------------------------------

/** Bodies that are not JSON at all, each sent as `application/json`. */
const MALFORMED_BODIES: [string, Body][] = [
  ["{bad", "{bad"],
  ["[", "["],
  ["a trailing comma", '{"a": 1,}'],
  ["single quotes", "{'a': 1}"],
  ["a truncated object", '{"username": "abc'],
  ["NaN", "NaN"],
  ["undefined", "undefined"],
  ["a NUL byte", "\u0000"],
  ["two objects", "{}{}"],
];

/** Odd but well-formed bodies a route may accept (unknown keys are ignored) or refuse. */
const ODD_BODIES: [string, Body][] = [
  ["invalid UTF-8 (decoded as U+FFFD)", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ["a byte-order mark", "\uFEFF{}"],
  ["1000 nested arrays", "[".repeat(1000) + "]".repeat(1000)],
  ["1000 nested objects", '{"a":'.repeat(1000) + "1" + "}".repeat(1000)],
  ["a duplicated key", '{"a": 1, "a": {}}'],
  ["a number too large for a double", '{"banner_offset": 1e400, "sounds": 1e400}'],
];

/** Valid JSON that is not an object. */
const NON_OBJECT_BODIES: [string, unknown][] = [
  ["an array", []],
  ["an array of objects", [{}]],
  ["a string", "body"],
  ["a number", 5],
  ["null", null],
  ["true", true],
];

const WRONG_VALUES: Record<string, unknown> = {
  string: "a string",
  number: 12345,
  boolean: true,
  object: { nested: "value" },
  array: ["value"],
  null: null,
};

/** The wrong types to try for a field: every JSON type but its own. */
function wrongTypesFor(type: FieldType): [string, unknown][] {
  const own: Record<FieldType, string[]> = { string: ["string"], number: ["number"], boolean: ["boolean"], code: ["string", "number"] };
  return Object.entries(WRONG_VALUES).filter(([name]) => !own[type].includes(name));
}

const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

/** The route's valid body with `field` set to `value`. */
function withField(route: JsonRoute, field: string, value: unknown): Record<string, unknown> {
  return { ...route.valid(), [field]: value };
}

/** A valid body followed by unknown keys, prototype-pollution keys among them (as raw JSON). */
function withExtraFields(route: JsonRoute): string {
  const json = JSON.stringify(route.valid());
  const extra = `"unknown": "x", "is_bot": 1, "id": "${UNKNOWN_UUID}", "__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}`;
  return json === "{}" ? `{${extra}}` : `${json.slice(0, -1)}, ${extra}}`;
}

for (const route of JSON_ROUTES) {
  describe(`${routeName(route)} with a bad JSON body`, () => {
    const tokenFor = () => (route.auth ? main.token : null);

    test.each(MALFORMED_BODIES)("malformed JSON (%s) is 400", async (_name, raw) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), raw, headers: { "content-type": "application/json" } }), 400);
    });

    test.each(ODD_BODIES)("an odd but well-formed body (%s) is never a 5xx", async (_name, raw) => {
      expectNoServerError(await send(route.method, route.path, { token: tokenFor(), raw, headers: { "content-type": "application/json" } }));
    });

    test.each(NON_OBJECT_BODIES)("a JSON value that is not an object (%s) is 400", async (_name, json) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), json }), 400);
    });

    // An absent body reads as `{}` (docs/README.md): 400 naming a required field, or a 200
    // no-op where every field is optional.
    test.each([["no body and no content-type", undefined], ["an empty JSON body", ""]] as const)("%s is a 400 or a no-op, never a 5xx", async (_name, raw) => {
      const answer = await send(route.method, route.path, {
        token: tokenFor(),
        ...(raw === undefined ? {} : { raw, headers: { "content-type": "application/json" } }),
      });
      expectNoServerError(answer);
      expect([200, 400]).toContain(answer.status);
    });

    test.each([
      ["text/plain", "hello"],
      ["application/xml", "<a/>"],
      ["application/octet-stream", new Uint8Array([0, 1, 2, 255])],
      ["application/x-www-form-urlencoded", "a=1&b=%zz&c"],
      ["multipart/form-data; boundary=XYZ", "--XYZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--XYZ--\r\n"],
      ["multipart/form-data; boundary=XYZ", "garbage"],
    ] as [string, Body][])("a %s body is never a 5xx", async (type, raw) => {
      expectNoServerError(await send(route.method, route.path, { token: tokenFor(), raw, headers: { "content-type": type } }));
    });

    test("a JSON body over 1 MB is 413", async () => {
      expectError(await send(route.method, route.path, { token: tokenFor(), json: { filler: "x".repeat(MB + KB) } }), 413);
    });

    const fieldCases = route.fields.flatMap((field) =>
      wrongTypesFor(field.type).map(([typeName, value]) => [field.name, typeName, value] as [string, string, unknown]),
    );
    test.each(fieldCases)("%s as a %s is 400 naming the field", async (field, _type, value) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), json: withField(route, field, value) }), 400, field);
    });

    const required = route.fields.filter((f) => f.required).map((f) => [f.name] as [string]);
    if (required.length > 0) {
      test.each(required)("missing %s is 400 naming the field", async (field) => {
        expectError(await send(route.method, route.path, { token: tokenFor(), json: without(route.valid(), field) }), 400, field);
      });
    }

    test("an empty object is 400 when a field is required, never a 5xx", async () => {
      const answer = await send(route.method, route.path, { token: tokenFor(), json: {} });
      if (required.length > 0) expectError(answer, 400);
      else expectNoServerError(answer);
    });

    const strings = route.fields.filter((f) => f.type === "string" || f.type === "code").map((f) => [f.name] as [string]);
    test.each(strings)("%s as a 100 KB string is 400 naming the field", async (field) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), json: withField(route, field, HUGE) }), 400, field);
    });

    test("unknown and prototype-polluting extra fields are never a 5xx", async () => {
      expectNoServerError(await send(route.method, route.path, { token: tokenFor(), raw: withExtraFields(route), headers: { "content-type": "application/json" } }));
    });
  });
}

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
  const tokenFor = (route: PlainRoute) => (route.auth ? (route.as?.() ?? main).token : null);

  test("a stray malformed JSON body is refused with 400 or ignored, never a 5xx", async () => {
    const failures = new Failures();
    for (const route of PLAIN_ROUTES) {
      const answer = await send(route.method, route.path, { token: tokenFor(route), raw: "{bad", headers: { "content-type": "application/json" } });
      failures.noServerError(routeName(route), answer);
    }
    failures.check();
  });

  test("a stray garbage body of other types is never a 5xx", async () => {
    const failures = new Failures();
    for (const route of PLAIN_ROUTES) {
      for (const [type, raw] of [
        ["text/plain", HUGE],
        ["application/octet-stream", new Uint8Array([0, 255, 1, 254])],
        ["multipart/form-data; boundary=XYZ", "--XYZ\r\ntruncated"],
        ["application/x-www-form-urlencoded", "%zz=%zz"],
      ] as [string, Body][]) {
        const answer = await send(route.method, route.path, { token: tokenFor(route), raw, headers: { "content-type": type } });
        failures.noServerError(`${routeName(route)} with ${type}`, answer);
      }
    }
    failures.check();
  });

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
      expectError(answerOf(response.status, response.headers.get("content-type") ?? "", await response.text()), 413);
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
    expectError(answerOf(response.status, response.headers.get("content-type") ?? "", await response.text()), 413);
  });
});

// ---------------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------------

describe("path ids", () => {
  const NON_UUIDS: [string, string][] = [
    ["abc", "abc"],
    ["1", "1"],
    ["-1", "-1"],
    ["me", "me"],
    ["SQL injection", encodeURIComponent("' OR 1=1 --")],
    ["a path traversal", encodeURIComponent("../../etc/passwd")],
    ["a double-encoded path traversal", encodeURIComponent(encodeURIComponent("../../etc/passwd"))],
    ["a NUL byte", "%00"],
    ["a broken percent escape", "%zz"],
    ["unicode", encodeURIComponent("ünï😀")],
    ["a UUID with a suffix", `${UNKNOWN_UUID}x`],
    ["a UUID in braces", encodeURIComponent(`{${UNKNOWN_UUID}}`)],
    ["a 10 KB id", "a".repeat(10 * KB)],
  ];
  const UNKNOWN_UUIDS: [string, string][] = [
    ["an unknown UUIDv7", UNKNOWN_UUID],
    ["a random UUIDv4", crypto.randomUUID()],
    ["the nil UUID", "00000000-0000-0000-0000-000000000000"],
    ["an unknown UUID in capitals", UNKNOWN_UUID.toUpperCase()],
  ];

  test.each(NON_UUIDS)("%s is 400 or 404 on every id route", async (_name, id) => {
    const failures = new Failures();
    for (const route of ID_ROUTES) failures.error(`${route.method} ${route.label}`, await send(route.method, route.path(id), { token: route.auth ? main.token : null }), [400, 404]);
    failures.check();
  });

  test.each(UNKNOWN_UUIDS)("%s is 404 on every id route", async (_name, id) => {
    const failures = new Failures();
    for (const route of ID_ROUTES) failures.error(`${route.method} ${route.label}`, await send(route.method, route.path(id), { token: route.auth ? main.token : null }), 404);
    failures.check();
  });

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
  const sign = (secret: string, build: (jwt: SignJWT) => SignJWT, claims: Record<string, unknown> = { ver: 0 }, alg = "HS256") =>
    build(new SignJWT(claims).setProtectedHeader({ alg, typ: "JWT" })).sign(new TextEncoder().encode(secret));
  const serverSecret = () => server.config.jwtSecret!;

  /** Header values, built once the users exist. */
  async function badAuthorizations(): Promise<[string, string | null][]> {
    const otherSecret = await sign("other-secret-other-secret-other-secret-42", (jwt) => jwt.setSubject(main.id).setIssuedAt().setExpirationTime("1h"));
    const algNone = new UnsecuredJWT({ ver: 0 }).setSubject(main.id).setIssuedAt().setExpirationTime("1h").encode();
    const hs512 = await sign(serverSecret(), (jwt) => jwt.setSubject(main.id).setExpirationTime("1h"), { ver: 0 }, "HS512");
    const expired = await sign(serverSecret(), (jwt) => jwt.setSubject(main.id).setIssuedAt(1_000_000).setExpirationTime(1_000_060));
    const wrongVersion = await sign(serverSecret(), (jwt) => jwt.setSubject(main.id).setExpirationTime("1h"), { ver: 99 });
    const versionString = await sign(serverSecret(), (jwt) => jwt.setSubject(main.id).setExpirationTime("1h"), { ver: "0" });
    const noSubject = await sign(serverSecret(), (jwt) => jwt.setExpirationTime("1h"));
    const unknownUser = await sign(serverSecret(), (jwt) => jwt.setSubject(UNKNOWN_UUID).setExpirationTime("1h"));
    const injectedSubject = await sign(serverSecret(), (jwt) => jwt.setSubject("' OR 1=1 --").setExpirationTime("1h"));
    const [header, payload, signature] = main.token.split(".");
    return [
      ["no header", null],
      ["an empty header", ""],
      ["Bearer", "Bearer"],
      ["Bearer and a space", "Bearer "],
      ["Bearer x.y.z", "Bearer x.y.z"],
      ["Basic abc", "Basic abc"],
      ["the token without Bearer", main.token],
      ["Bearer, the token and more", `Bearer ${main.token} extra`],
      ["Token <token>", `Token ${main.token}`],
      ["a token with a flipped signature", `Bearer ${header}.${payload}.${signature!.split("").reverse().join("")}`],
      ["a token without a signature", `Bearer ${header}.${payload}.`],
      ["a token of garbage base64", "Bearer eyJhbGciOiJIUzI1NiJ9.!!!.###"],
      ["a token whose header is not JSON", `Bearer ${btoa("{bad").replace(/=+$/, "")}.${payload}.${signature}`],
      ["a token signed with another secret", `Bearer ${otherSecret}`],
      ['a token with alg "none"', `Bearer ${algNone}`],
      ["a token signed with HS512", `Bearer ${hs512}`],
      ["an expired token", `Bearer ${expired}`],
      ["a token of an older version", `Bearer ${wrongVersion}`],
      ["a token whose version is a string", `Bearer ${versionString}`],
      ["a token without a subject", `Bearer ${noSubject}`],
      ["a token of an unknown user", `Bearer ${unknownUser}`],
      ["a token whose subject is SQL", `Bearer ${injectedSubject}`],
      ["a 10 KB token", `Bearer ${"a".repeat(10 * KB)}`],
      ["a 15 KB token", `Bearer ${"a".repeat(15 * KB)}`],
    ];
  }

  let cases: [string, string | null][] = [];
  beforeAll(async () => {
    cases = await badAuthorizations();
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
