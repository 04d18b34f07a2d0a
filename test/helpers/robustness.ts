/**
 * The black-box robustness harness shared by test/http/robustness*.test.ts: sending requests
 * (also by hand on a raw socket), judging error answers, the route tables' types and the
 * generic per-route test generators. Nothing may answer 5xx; every error is a JSON
 * `{error: string}` with a 4xx status (CONTRACT.md "Bodies, statuses, errors").
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { SignJWT, UnsecuredJWT } from "jose";
import { connect as tcpConnect } from "node:net";
import type { TestServer, TestUser } from "./server.ts";

export type Body = NonNullable<RequestInit["body"]>;

export const KB = 1024;
export const MB = 1024 * KB;
export const HUGE = "x".repeat(100_000);
export const UNKNOWN_UUID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
/** 512 fixed bytes that start like no image format. */
export const GARBAGE_BYTES = Uint8Array.from({ length: 512 }, (_, i) => (i * 37 + 11) % 256);

// ---------------------------------------------------------------------------------------------
// Sending requests and judging answers
// ---------------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  body: unknown;
}

export interface Send {
  /** The harness's default token unless given; `null` sends no Authorization header. */
  token?: string | null;
  /** The whole Authorization header, instead of `Bearer <token>`. */
  authorization?: string;
  /** Encoded as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as-is. */
  raw?: Body;
  headers?: Record<string, string>;
}

export function answerOf(status: number, contentType: string, text: string): Answer {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: judged below
  }
  return { status, contentType, text, body };
}

/** The answer of a fetch() Response. */
export async function answerOfResponse(response: Response): Promise<Answer> {
  return answerOf(response.status, response.headers.get("content-type") ?? "", await response.text());
}

/** What the harness talks to: the server, and the token `send` uses unless told otherwise. */
export interface Target {
  server: () => TestServer;
  token: () => string;
}

interface Harness {
  target: Target;
  send(method: string, path: string, options?: Send): Promise<Answer>;
  /**
   * An HTTP/1.1 request written by hand, for what fetch() will not send (a body on GET, a
   * Content-Length that is not the body's); the first answer on the connection.
   */
  rawRequest(method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Answer>;
}

export function createHarness(target: Target): Harness {
  async function send(method: string, path: string, options: Send = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? target.token() : options.token;
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
    const response = await fetch(target.server().url + path, { method, headers, body, redirect: "manual" });
    return answerOfResponse(response);
  }

  function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Answer> {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    const all: Record<string, string> = { host: "localhost", connection: "close", ...headers };
    if (bytes && all["content-length"] === undefined) all["content-length"] = String(bytes.length);
    const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
    return new Promise((resolve, reject) => {
      const socket = tcpConnect(target.server().app.port, "127.0.0.1", () => {
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

  return { target, send, rawRequest };
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

export type Expected = number | readonly number[] | "4xx";
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

export function expectError(answer: Answer, expected: Expected, mentions?: string): void {
  const { want, got } = judgeError(answer, expected, mentions);
  expect(got).toEqual(want);
}

/** For inputs a route may accept or refuse: a success (2xx), or a 4xx JSON `{error}`; never 5xx. */
function expectNoServerError(answer: Answer): void {
  if (answer.status >= 200 && answer.status < 300) return;
  expectError(answer, "4xx");
}

/** Collects the failures of a table; the test then compares the list to `[]`. */
export class Failures {
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

// ---------------------------------------------------------------------------------------------
// Route tables
// ---------------------------------------------------------------------------------------------

type FieldType = "string" | "number" | "boolean" | "code" | "array" | "object";

interface Field {
  name: string;
  type: FieldType;
  required: boolean;
  /** `null` is a valid value (it clears the field), so it is not tried as a wrong type. */
  nullable?: boolean;
  /** Values of the right JSON type the route must still refuse with a 400 naming the field. */
  bad?: [string, unknown][];
}

export interface JsonRoute {
  method: string;
  path: string;
  auth: boolean;
  fields: Field[];
  /** A body that passes validation (the route may still refuse it, e.g. a wrong password). */
  valid: () => Record<string, unknown>;
  /** The token to send, when not the harness's default one. */
  token?: () => string;
  /** The route also takes a bare JSON array (documented), so an array body is not refused as such. */
  arrayBody?: boolean;
  /** The success status of a body without fields when every field is optional: 200 (a no-op) unless given. */
  emptyStatus?: number;
  /** The path as sent, when `path` names a pattern (`/users/:id`) whose ids exist only once the tests run. */
  url?: () => string;
}

type FieldOptions = Pick<Field, "nullable" | "bad">;
export const req = (name: string, type: FieldType = "string", options: FieldOptions = {}): Field => ({ name, type, required: true, ...options });
export const opt = (name: string, type: FieldType = "string", options: FieldOptions = {}): Field => ({ name, type, required: false, ...options });

export interface PlainRoute {
  method: string;
  path: string;
  auth: boolean;
  /** A user other than the default one, for routes with side effects. */
  as?: () => TestUser;
}

export interface UploadRoute {
  path: string;
  field: string;
  maxBytes: number;
}

export interface IdRoute {
  method: string;
  /** The path with the id (already URL-encoded) in place. */
  path: (id: string) => string;
  label: string;
  auth: boolean;
  /** A valid JSON body, for a route whose body is required (so only the id is wrong). */
  body?: unknown;
}

export const routeName = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

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

/** The wrong types to try for a field: every JSON type but its own (and `null` when it is valid). */
function wrongTypesFor(field: Pick<Field, "type" | "nullable">): [string, unknown][] {
  const own: Record<FieldType, string[]> = {
    string: ["string"],
    number: ["number"],
    boolean: ["boolean"],
    code: ["string", "number"],
    array: ["array"],
    object: ["object"],
  };
  return Object.entries(WRONG_VALUES).filter(([name]) => !own[field.type].includes(name) && !(field.nullable && name === "null"));
}

export const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

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

/** The generic bad-body tests of one JSON route, in a describe block of their own. */
export function describeJsonRoute(h: Harness, route: JsonRoute): void {
  const send = (method: string, _path: string, options: Send) => h.send(method, route.url?.() ?? route.path, options);
  describe(`${routeName(route)} with a bad JSON body`, () => {
    const tokenFor = () => (route.auth ? (route.token ?? h.target.token)() : null);

    test.each(MALFORMED_BODIES)("malformed JSON (%s) is 400", async (_name, raw) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), raw, headers: { "content-type": "application/json" } }), 400);
    });

    test.each(ODD_BODIES)("an odd but well-formed body (%s) is never a 5xx", async (_name, raw) => {
      expectNoServerError(await send(route.method, route.path, { token: tokenFor(), raw, headers: { "content-type": "application/json" } }));
    });

    test.each(NON_OBJECT_BODIES)("a JSON value that is not an object (%s) is 400", async (_name, json) => {
      const answer = await send(route.method, route.path, { token: tokenFor(), json });
      if (route.arrayBody && Array.isArray(json)) expectNoServerError(answer);
      else expectError(answer, 400);
    });

    // An absent body reads as `{}` (docs/README.md): 400 naming a required field, or a 200
    // no-op where every field is optional (or `emptyStatus`, for a route that creates).
    test.each([["no body and no content-type", undefined], ["an empty JSON body", ""]] as const)("%s is a 400 or a no-op, never a 5xx", async (_name, raw) => {
      const answer = await send(route.method, route.path, {
        token: tokenFor(),
        ...(raw === undefined ? {} : { raw, headers: { "content-type": "application/json" } }),
      });
      expectNoServerError(answer);
      expect([route.emptyStatus ?? 200, 400]).toContain(answer.status);
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
      wrongTypesFor(field).map(([typeName, value]) => [field.name, typeName, value] as [string, string, unknown]),
    );
    test.each(fieldCases)("%s as a %s is 400 naming the field", async (field, _type, value) => {
      expectError(await send(route.method, route.path, { token: tokenFor(), json: withField(route, field, value) }), 400, field);
    });

    const badValues = route.fields.flatMap((field) => (field.bad ?? []).map(([label, value]) => [field.name, label, value] as [string, string, unknown]));
    if (badValues.length > 0) {
      test.each(badValues)("%s as %s is 400 naming the field", async (field, _label, value) => {
        expectError(await send(route.method, route.path, { token: tokenFor(), json: withField(route, field, value) }), 400, field);
      });
    }

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
    if (strings.length > 0) {
      test.each(strings)("%s as a 100 KB string is 400 naming the field", async (field) => {
        expectError(await send(route.method, route.path, { token: tokenFor(), json: withField(route, field, HUGE) }), 400, field);
      });
    }

    test("unknown and prototype-polluting extra fields are never a 5xx", async () => {
      expectNoServerError(await send(route.method, route.path, { token: tokenFor(), raw: withExtraFields(route), headers: { "content-type": "application/json" } }));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Routes without a JSON body
// ---------------------------------------------------------------------------------------------

/** Stray bodies sent to routes that take none: refused with a 4xx or ignored, never a 5xx. */
export function describeStrayBodies(h: Harness, routes: PlainRoute[]): void {
  const { send } = h;
  const tokenFor = (route: PlainRoute) => (route.auth ? (route.as?.().token ?? h.target.token()) : null);

  test("a stray malformed JSON body is refused with 400 or ignored, never a 5xx", async () => {
    const failures = new Failures();
    for (const route of routes) {
      const answer = await send(route.method, route.path, { token: tokenFor(route), raw: "{bad", headers: { "content-type": "application/json" } });
      failures.noServerError(routeName(route), answer);
    }
    failures.check();
  });

  test("a stray garbage body of other types is never a 5xx", async () => {
    const failures = new Failures();
    for (const route of routes) {
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
}

// ---------------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------------

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

const idRequest = (h: Harness, route: IdRoute): Send => ({
  token: route.auth ? h.target.token() : null,
  ...(route.body === undefined ? {} : { json: route.body }),
});

/** Non-UUID ids are 400 or 404 and unknown UUIDs 404 on every route of the table. */
export function describeIdRoutes(h: Harness, routes: IdRoute[]): void {
  const { send } = h;
  test.each(NON_UUIDS)("%s is 400 or 404 on every id route", async (_name, id) => {
    const failures = new Failures();
    for (const route of routes) failures.error(`${route.method} ${route.label}`, await send(route.method, route.path(id), idRequest(h, route)), [400, 404]);
    failures.check();
  });

  test.each(UNKNOWN_UUIDS)("%s is 404 on every id route", async (_name, id) => {
    const failures = new Failures();
    for (const route of routes) failures.error(`${route.method} ${route.label}`, await send(route.method, route.path(id), idRequest(h, route)), 404);
    failures.check();
  });
}

// ---------------------------------------------------------------------------------------------
// Authorization
// ---------------------------------------------------------------------------------------------

/** Bad Authorization header values (`null`: no header), several of them forged for `user`. */
export async function badAuthorizations(server: TestServer, user: TestUser): Promise<[string, string | null][]> {
  const sign = (secret: string, build: (jwt: SignJWT) => SignJWT, claims: Record<string, unknown> = { ver: 0 }, alg = "HS256") =>
    build(new SignJWT(claims).setProtectedHeader({ alg, typ: "JWT" })).sign(new TextEncoder().encode(secret));
  const serverSecret = server.config.jwtSecret!;
  const otherSecret = await sign("other-secret-other-secret-other-secret-42", (jwt) => jwt.setSubject(user.id).setIssuedAt().setExpirationTime("1h"));
  const algNone = new UnsecuredJWT({ ver: 0 }).setSubject(user.id).setIssuedAt().setExpirationTime("1h").encode();
  const hs512 = await sign(serverSecret, (jwt) => jwt.setSubject(user.id).setExpirationTime("1h"), { ver: 0 }, "HS512");
  const expired = await sign(serverSecret, (jwt) => jwt.setSubject(user.id).setIssuedAt(1_000_000).setExpirationTime(1_000_060));
  const wrongVersion = await sign(serverSecret, (jwt) => jwt.setSubject(user.id).setExpirationTime("1h"), { ver: 99 });
  const versionString = await sign(serverSecret, (jwt) => jwt.setSubject(user.id).setExpirationTime("1h"), { ver: "0" });
  const noSubject = await sign(serverSecret, (jwt) => jwt.setExpirationTime("1h"));
  const unknownUser = await sign(serverSecret, (jwt) => jwt.setSubject(UNKNOWN_UUID).setExpirationTime("1h"));
  const injectedSubject = await sign(serverSecret, (jwt) => jwt.setSubject("' OR 1=1 --").setExpirationTime("1h"));
  const [header, payload, signature] = user.token.split(".");
  return [
    ["no header", null],
    ["an empty header", ""],
    ["Bearer", "Bearer"],
    ["Bearer and a space", "Bearer "],
    ["Bearer x.y.z", "Bearer x.y.z"],
    ["Basic abc", "Basic abc"],
    ["the token without Bearer", user.token],
    ["Bearer, the token and more", `Bearer ${user.token} extra`],
    ["Token <token>", `Token ${user.token}`],
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

/** Every bad Authorization header is 401 `{error}` on every route listed (built once the users exist). */
export function describeBadAuthorizations(h: Harness, user: () => TestUser, routes: () => { method: string; path: string }[]): void {
  let cases: [string, string | null][] = [];
  beforeAll(async () => {
    cases = await badAuthorizations(h.target.server(), user());
  });

  test("every bad Authorization header is 401 {error} on every route that needs a token", async () => {
    const failures = new Failures();
    for (const [name, authorization] of cases) {
      for (const route of routes()) {
        const answer = await h.send(route.method, route.path, authorization === null ? { token: null } : { authorization });
        failures.error(`${name}: ${routeName(route)}`, answer, 401);
      }
    }
    failures.check();
  });
}
