/**
 * GET /sdk/... is never stale: the server packs the SDK of the checkout it runs from as it is at
 * each request (src/ops/sdk-tarball.ts). Run against a copy of the checkout's sdk/ (the server's
 * `sdkCheckout`), which the test edits as a developer or a `git pull` would: an edit is in the
 * next tarball, an untouched checkout reuses the kept one (also after a restart on the same
 * DATA_DIR), a version bump renames it, and a build that fails is a 503 that heals once fixed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const checkout = mkdtempSync(join(tmpdir(), "hearth-sdk-checkout-"));
const dataDir = mkdtempSync(join(tmpdir(), "hearth-sdk-data-"));
let server: TestServer;

beforeAll(async () => {
  mkdirSync(join(checkout, "sdk"));
  for (const name of ["package.json", "README.md", "LICENSE", "tsconfig.json", "scripts", "src"]) cpSync(join(ROOT, "sdk", name), join(checkout, "sdk", name), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
  server = await startServer({ dataDir }, { sdkCheckout: checkout });
});
afterAll(async () => {
  await server.stop();
  rmSync(checkout, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const kept = () => readdirSync(join(dataDir, "sdk")).filter((name) => name.endsWith(".tgz"));
const version = () => JSON.parse(readFileSync(join(checkout, "sdk", "package.json"), "utf8")).version as string;

async function get(name = "latest.tgz") {
  const response = await fetch(`${server.url}/sdk/${name}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, etag: response.headers.get("etag"), bytes, text: () => new TextDecoder().decode(bytes) };
}

/** One file of a tarball. */
function member(bytes: Uint8Array, path: string): string {
  const file = join(dataDir, "probe.tgz");
  writeFileSync(file, bytes);
  return spawnSync("tar", ["-xzOf", file, path], { encoding: "utf8" }).stdout;
}

let first: Awaited<ReturnType<typeof get>>;

test("the first request builds it and keeps it under DATA_DIR/sdk; the next ones reuse it", async () => {
  first = await get();
  expect(first.status).toBe(200);
  expect(kept()).toEqual([expect.stringMatching(new RegExp(`^hearth-sdk-${version().replaceAll(".", "\\.")}-[0-9a-f]{16}\\.tgz$`))]);
  const keptAt = statSync(join(dataDir, "sdk", kept()[0]!)).mtimeMs;
  const again = await get(`hearth-sdk-${version()}.tgz`);
  expect(again.etag).toBe(first.etag);
  expect(again.bytes).toEqual(first.bytes);
  expect(statSync(join(dataDir, "sdk", kept()[0]!)).mtimeMs).toBe(keptAt);
  expect(readdirSync(join(dataDir, "sdk"))).toEqual(kept()); // no build folder left behind
}, 60_000);

test("an edit to the SDK's sources is in the very next tarball; the old one is deleted", async () => {
  expect(member(first.bytes, "package/dist/index.js")).not.toContain("FRESHLY_EDITED");
  appendFileSync(join(checkout, "sdk", "src", "index.ts"), `\nexport const FRESHLY_EDITED = "yes";\n`);
  // Two requests at once share one build.
  const [a, b] = await Promise.all([get(), get()]);
  expect(a.status).toBe(200);
  expect(a.etag).not.toBe(first.etag);
  expect(b.etag).toBe(a.etag);
  expect(member(a.bytes, "package/dist/index.js")).toContain("FRESHLY_EDITED");
  expect(member(a.bytes, "package/dist/index.d.ts")).toContain("FRESHLY_EDITED");
  expect(kept().length).toBe(1);
}, 60_000);

test("a restart on the same DATA_DIR serves the kept tarball without building it again", async () => {
  const before = await get();
  const keptAt = statSync(join(dataDir, "sdk", kept()[0]!)).mtimeMs;
  await server.stop();
  server = await startServer({ dataDir }, { sdkCheckout: checkout });
  const after = await get();
  expect(after.etag).toBe(before.etag);
  expect(statSync(join(dataDir, "sdk", kept()[0]!)).mtimeMs).toBe(keptAt);
}, 60_000);

test("a version bump: the new name is served, the old one is 404, package.json inside says the new version", async () => {
  const old = version();
  const manifest = JSON.parse(readFileSync(join(checkout, "sdk", "package.json"), "utf8"));
  writeFileSync(join(checkout, "sdk", "package.json"), JSON.stringify({ ...manifest, version: "9.8.7" }, null, 2));
  const gone = await get(`hearth-sdk-${old}.tgz`);
  expect(gone.status).toBe(404);
  expect(JSON.parse(gone.text()).error).toContain("hearth-sdk-9.8.7.tgz");
  const renamed = await get("hearth-sdk-9.8.7.tgz");
  expect(renamed.status).toBe(200);
  expect(JSON.parse(member(renamed.bytes, "package/package.json")).version).toBe("9.8.7");
  expect(kept()).toEqual([expect.stringMatching(/^hearth-sdk-9\.8\.7-[0-9a-f]{16}\.tgz$/)]);
}, 60_000);

test("sources that do not build: 503 with an error, then the fixed sources serve again", async () => {
  const index = join(checkout, "sdk", "src", "index.ts");
  const good = readFileSync(index, "utf8");
  writeFileSync(index, `${good}\nexport const broken: number = ;\n`);
  const failed = await get();
  expect(failed.status).toBe(503);
  expect(JSON.parse(failed.text()).error).toContain("could not be built");
  writeFileSync(index, good);
  const healed = await get();
  expect(healed.status).toBe(200);
  expect(member(healed.bytes, "package/dist/index.js")).toContain("FRESHLY_EDITED");
}, 60_000);
