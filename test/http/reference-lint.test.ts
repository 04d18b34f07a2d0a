/**
 * The OpenAPI document against the rules of Redocly's `recommended` lint that are errors there,
 * checked here without the linter (its install runs an analytics postinstall script, which the
 * project's rule on dependencies excludes): every operation declares its security (`[]` when
 * public), `nullable` always has a `type` beside it, no two paths differ only by a parameter's
 * name; and a count read from a query's digits is documented as an integer. Then the rules it
 * warns about that we keep too: every path and query parameter has a description
 * (`parameter-description`), and the main operations have examples, each valid against the
 * schema beside it (checked with Ajv over the document's own schemas). The ruleset's other errors
 * are checked here too (a summary per operation, no trailing slash or query in a path, unique
 * parameters, enum values of their schema's type, component names); unique and URL-safe
 * operationIds, declared path parameters and resolving $refs are test/http/reference.test.ts's.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { startServer, type TestServer } from "../helpers/server.ts";

type Node = Record<string, unknown>;
let server: TestServer;
let document: { paths: Record<string, Record<string, Node>>; components: Node };

beforeAll(async () => {
  server = await startServer();
  document = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as typeof document;
});
afterAll(() => server.stop());

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })));

test("security-defined: every operation declares its security, public ones as []", () => {
  expect(operations().filter(({ operation }) => !Array.isArray(operation.security)).map(({ where }) => where)).toEqual([]);
  const publicOnes = operations().filter(({ operation }) => (operation.security as unknown[]).length === 0).map(({ where }) => where);
  expect(publicOnes).toContain("GET /api/v1/platform/config");
  expect(publicOnes).toContain("POST /api/v1/auth/login");
  expect(publicOnes).not.toContain("GET /api/v1/users/me/info");
});

test("nullable-type-sibling: every nullable schema has a type", () => {
  const untyped: string[] = [];
  const visit = (node: unknown, pointer: string): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${pointer}/${i}`));
    const schema = node as Node;
    if (schema.nullable === true && schema.type === undefined) untyped.push(pointer);
    for (const [key, value] of Object.entries(schema)) visit(value, `${pointer}/${key}`);
  };
  visit(document, "#");
  expect(untyped).toEqual([]);
});

test("no-identical-paths: no two paths differ only by their parameters' names", () => {
  const byShape = new Map<string, string[]>();
  for (const path of Object.keys(document.paths)) {
    const shape = path.replace(/\{[^}]+\}/g, "{}");
    byShape.set(shape, [...(byShape.get(shape) ?? []), path]);
  }
  expect([...byShape.values()].filter((paths) => paths.length > 1)).toEqual([]);
});

test("the recommended ruleset's other errors: operation-summary, no-path-trailing-slash, path-not-include-query, operation-parameters-unique, no-enum-type-mismatch, spec-components-invalid-map-name", () => {
  expect(operations().filter(({ operation }) => typeof operation.summary !== "string" || operation.summary.trim() === "").map(({ where }) => where)).toEqual([]);
  const paths = Object.keys(document.paths);
  expect(paths.filter((path) => path.length > 1 && path.endsWith("/"))).toEqual([]);
  expect(paths.filter((path) => path.includes("?"))).toEqual([]);
  expect(
    operations().filter(({ operation }) => {
      const keys = ((operation.parameters ?? []) as Node[]).map((p) => `${String(p.in)}:${String(p.name)}`);
      return new Set(keys).size !== keys.length;
    }).map(({ where }) => where),
  ).toEqual([]);
  // Each enum value has the type its schema names (null only where the schema is nullable).
  const matches = (type: unknown, value: unknown, nullable: boolean) =>
    (value === null && nullable) || (type === "integer" ? Number.isInteger(value) : type === "number" ? typeof value === "number" : typeof value === type);
  const mismatched: string[] = [];
  let enums = 0;
  const visit = (node: unknown, pointer: string): void => {
    if (!node || typeof node !== "object") return;
    const schema = node as Node;
    if (Array.isArray(schema.enum) && typeof schema.type === "string") {
      enums++;
      for (const value of schema.enum) if (!matches(schema.type, value, schema.nullable === true)) mismatched.push(`${pointer}: ${JSON.stringify(value)}`);
    }
    for (const [key, child] of Object.entries(schema)) visit(child, `${pointer}/${key}`);
  };
  visit(document, "#");
  expect(mismatched).toEqual([]);
  expect(enums).toBeGreaterThan(10);
  const names = Object.values(document.components).flatMap((section) => Object.keys(section as Node));
  expect(names.length).toBeGreaterThan(50);
  expect(names.filter((name) => !/^[a-zA-Z0-9.\-_]+$/.test(name))).toEqual([]);
});

test("a query's count is an integer, not a string of digits", () => {
  const digits = operations().flatMap(({ where, operation }) =>
    ((operation.parameters ?? []) as Node[]).filter((p) => p.in === "query" && (p.schema as Node | undefined)?.pattern === "^\\d+$").map((p) => `${where} ${String(p.name)}`),
  );
  expect(digits).toEqual([]);
  const limit = (document.paths["/api/v1/messages/{id}"]!.get!.parameters as Node[]).find((p) => p.name === "limit");
  expect(limit?.schema).toEqual({ type: "integer", minimum: 0 });
});

test("the webhook's embeds are typed as a list", () => {
  const execute = document.paths["/api/webhooks/{id}/{token}"]!.post! as { requestBody: { content: Record<string, { schema: { properties: Record<string, Node> } }> } };
  const embeds = execute.requestBody.content["application/json"]!.schema.properties.embeds!;
  expect(embeds).toMatchObject({ type: "array", nullable: true });
});

test("parameter-description: every path and query parameter of every operation says what it is", () => {
  const missing = operations().flatMap(({ where, operation }) =>
    ((operation.parameters ?? []) as Node[]).filter((p) => typeof p.description !== "string" || (p.description as string).length < 8).map((p) => `${where} ${String(p.in)} ${String(p.name)}`),
  );
  expect(missing).toEqual([]);
  // A name means one thing; `id` is named by its path, and a route says where it differs.
  const describe = (path: string, method: string, name: string) => ((document.paths[path]![method]!.parameters as Node[]).find((p) => p.name === name)!.description as string);
  expect(describe("/api/v1/messages/{id}", "get", "before")).toBe(describe("/api/v1/oauth2/bot/channels/{channelId}/messages", "get", "before"));
  expect(describe("/api/v1/servers/{id}", "get", "id")).toBe("The server's id.");
  expect(describe("/api/v1/channels/{id}", "get", "id")).toBe("The server's id.");
  expect(describe("/api/v1/channels/{id}", "put", "id")).toBe("The channel's id.");
});

/** Every example of the document with the schema it sits beside: request bodies and answers. */
function examples(): { where: string; schema: Node; example: unknown }[] {
  return operations().flatMap(({ where, operation }) => {
    const found: { where: string; schema: Node; example: unknown }[] = [];
    const media = (holder: unknown, what: string) => {
      for (const [type, content] of Object.entries(((holder as Node | undefined)?.content ?? {}) as Record<string, Node>)) {
        if ("example" in content) found.push({ where: `${where} ${what} ${type}`, schema: content.schema as Node, example: content.example });
      }
    };
    media(operation.requestBody, "body");
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Node>)) media(response, status);
    return found;
  });
}

test("examples: the main operations have them, and every example is valid against its own schema", () => {
  const found = examples();
  const withExamples = new Set(found.map(({ where }) => where.split(" ").slice(0, 2).join(" ")));
  for (const main of [
    "POST /api/v1/auth/register",
    "POST /api/v1/auth/login",
    "POST /api/v1/servers",
    "GET /api/v1/servers/{id}",
    "POST /api/v1/channels/{id}",
    "GET /api/v1/channels/{id}",
    "POST /api/v1/messages/{id}",
    "GET /api/v1/messages/{id}",
    "POST /api/v1/oauth2/applications",
    "POST /api/v1/oauth2/bot/channels/{channelId}/messages",
    "GET /api/v1/oauth2/bot/channels/{channelId}/messages",
  ]) {
    expect(withExamples).toContain(main);
  }
  const ajv = validator();
  const invalid: string[] = [];
  for (const { where, schema, example } of found) {
    const validate = ajv.compile(rebase(schema));
    if (!validate(example)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  expect(invalid).toEqual([]);
  expect(found.length).toBeGreaterThanOrEqual(20);
});

test("examples can fail: a message without its id, or with a number for content, is refused", () => {
  const message = validator().compile({ $ref: "openapi#/components/schemas/Message" });
  const good = examples().find(({ where }) => where === "POST /api/v1/messages/{id} 201 application/json")!.example as Node;
  expect(message(good)).toBe(true);
  expect(message({ ...good, updated_at: null, reply_to: null })).toBe(true);
  const { id: _id, ...withoutId } = good;
  expect(message(withoutId)).toBe(false);
  expect(message({ ...good, content: 42 })).toBe(false);
});

/**
 * Ajv over the document's schemas, read as JSON Schema: `example` and `format: binary` are
 * OpenAPI's own words (ignored); `nullable: true` means "or null" wherever it stands, as the
 * document means it and the SDK's generator reads it (`T | null`), also beside an `allOf`
 * reference (where Ajv's own `nullable` would only widen `type`).
 */
function validator(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  ajv.addSchema({ $id: "openapi", components: rebase(document.components) });
  return ajv;
}

/** A schema taken out of the document, as JSON Schema: local references point into it, `nullable` is `anyOf` null. */
function rebase(schema: unknown): Node {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== "object") return node;
    const { nullable, ...rest } = node as Node;
    const out = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, key === "$ref" && typeof value === "string" && value.startsWith("#/") ? `openapi${value}` : visit(value)]));
    return nullable === true ? { anyOf: [{ type: "null" }, out] } : out;
  };
  return visit(schema) as Node;
}
