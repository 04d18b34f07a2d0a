/**
 * The OpenAPI document against the rules of Redocly's `recommended` lint that are errors there,
 * checked here without the linter (its install runs an analytics postinstall script, which the
 * project's rule on dependencies excludes): every operation declares its security (`[]` when
 * public), `nullable` always has a `type` beside it, no two paths differ only by a parameter's
 * name; and a count read from a query's digits is documented as an integer.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
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
