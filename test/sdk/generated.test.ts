/**
 * The SDK's generated types cannot drift from the server: sdk/src/generated/ must be exactly
 * what the generator makes from the documents this server serves now, and every REST method
 * the SDK calls must be a documented operation with the same method and path.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSources } from "../../sdk/scripts/generate.ts";
import { serverInputs } from "../../sdk/scripts/server-inputs.ts";
import { OPERATIONS } from "../../sdk/src/generated/rest.ts";
import { CLIENT_EVENTS, SERVER_EVENTS } from "../../sdk/src/generated/gateway.ts";
import { GENERATED_FROM } from "../../sdk/src/generated/constants.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const GENERATED = join(import.meta.dir, "..", "..", "sdk", "src", "generated");
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

test("sdk/src/generated is what the server's documents generate (else: npm run sdk:generate)", async () => {
  const sources = generateSources(await serverInputs(server.url));
  for (const [name, text] of Object.entries(sources)) {
    const committed = readFileSync(join(GENERATED, name), "utf8");
    if (committed !== text) throw new Error(`sdk/src/generated/${name} is stale: the server changed; run npm run sdk:generate`);
  }
  expect(Object.keys(sources).sort()).toEqual(["constants.ts", "gateway.ts", "rest.ts", "schemas.ts"]);
});

test("every operation the SDK knows is in the OpenAPI document with its method, path and token", async () => {
  const document = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>> };
  const documented = new Map<string, { method: string; path: string; security: string | null }>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) documented.set(operation.operationId, { method: method.toUpperCase(), path, security: Object.keys(operation.security?.[0] ?? {})[0] ?? null });
  }
  for (const [id, spec] of Object.entries(OPERATIONS)) expect({ id, ...documented.get(id) }).toEqual({ id, method: spec.method, path: spec.path, security: spec.security });
  expect(Object.keys(OPERATIONS).length).toBe(documented.size);
});

test("the SDK's own REST methods call operations that exist", () => {
  // Each short method of RestClient and Bot is one `request("<operationId>", ...)`.
  const source = ["rest.ts", "bot.ts"].map((name) => readFileSync(join(GENERATED, "..", name), "utf8")).join("\n");
  const called = [...source.matchAll(/request\("([A-Za-z]+)"/g)].map((match) => match[1]!);
  expect(called.length).toBeGreaterThan(5);
  for (const id of called) expect(OPERATIONS).toHaveProperty(id);
});

test("every gateway event of the AsyncAPI document is typed", async () => {
  const document = (await (await fetch(`${server.url}/api/v1/asyncapi.json`)).json()) as { components: { messages: Record<string, { name: string }> } };
  const messages = Object.entries(document.components.messages);
  const server_ = messages.filter(([key]) => key.startsWith("server.")).map(([, m]) => m.name).sort();
  const client = messages.filter(([key]) => key.startsWith("client.") && !key.endsWith(".ack")).map(([, m]) => m.name).sort();
  expect(Object.keys(SERVER_EVENTS).sort()).toEqual(server_);
  expect([...CLIENT_EVENTS].sort() as string[]).toEqual(client);
});

test("provenance: GENERATED_FROM names the documents the types came from, by version and the SHA-256 of the served JSON", async () => {
  for (const name of ["openapi", "asyncapi"] as const) {
    const served = await (await fetch(`${server.url}/api/v1/${name}.json`)).text();
    expect(GENERATED_FROM[name] as { version: string; sha256: string }).toEqual({ version: JSON.parse(served).info.version, sha256: new Bun.CryptoHasher("sha256").update(served).digest("hex") });
  }
  expect(readFileSync(join(GENERATED, "rest.ts"), "utf8").split("\n")[0]).toContain(`Hearth API ${GENERATED_FROM.openapi.version}`);
});
