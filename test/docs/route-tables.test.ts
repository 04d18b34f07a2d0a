/**
 * The route tables of docs/*.md against the API reference the app serves: a table row naming a
 * route the reference lacks fails, and so does a reference route that no table lists (unless
 * it is exempted below, with where it is documented instead). A route listed in the tables of
 * two pages fails too: one page documents it, the others link there.
 *
 * A route-table row is `| METHOD[, METHOD] | /full/path[, /full/path] | ...`: methods
 * separated by commas or slashes, paths written whole (not relative to a section's prefix, so
 * a relative one fails as a route the reference lacks), with or without backticks and a query
 * string. Rows whose method is `*` or whose path ends in
 * `...` point at a page rather than list routes, and are skipped.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NOT_OPERATIONS, documentedPath } from "../../src/reference/openapi.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const DOCS = join(import.meta.dir, "../../docs");
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * Reference routes that no route table lists, each documented elsewhere. Keep it short: a
 * route belongs in a table unless a page is about that one route.
 */
const EXEMPT: readonly { route: string; why: string }[] = [];

/** `METHOD /path/{}`: parameters are compared by place, not by name (`:channelId` and `{id}` are one route). */
const routeKey = (method: string, path: string) => `${method} ${documentedPath(path).replace(/\{[^}]*\}/g, "{}")}`;

interface Row {
  route: string;
  file: string;
  line: number;
}

/** Every route of every route-table row of docs/*.md, as `METHOD /path/{param}`. */
function docRoutes(): Row[] {
  const rows: Row[] = [];
  for (const file of readdirSync(DOCS).filter((name) => name.endsWith(".md"))) {
    const lines = readFileSync(join(DOCS, file), "utf8").split("\n");
    lines.forEach((text, index) => {
      const cells = text.split("|").map((cell) => cell.trim());
      if (cells.length < 4 || cells[0] !== "") return;
      const methods = cells[1]!.split(/[\s,/]+/).filter(Boolean);
      if (!methods.length || !methods.every((method) => METHODS.has(method))) return;
      const paths = cells[2]!
        .replaceAll("`", "")
        .split(/,\s*/)
        .map((piece) => piece.trim().split(/[\s?]/)[0]!)
        .filter((path) => !path.endsWith("..."));
      for (const method of methods) for (const path of paths) rows.push({ route: routeKey(method, path), file, line: index + 1 });
    });
  }
  return rows;
}

let server: TestServer;
let reference: Set<string>;

beforeAll(async () => {
  server = await startServer();
  const openapi = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  reference = new Set(Object.entries(openapi.paths).flatMap(([path, item]) => Object.keys(item).map((method) => routeKey(method.toUpperCase(), path))));
}, 30_000);
afterAll(() => server.stop());

/** Routes that are not API operations (the gateway, the web app's pages): a table may name them. */
const notOperations = new Set(NOT_OPERATIONS.flatMap(({ method, path }) => (method === "ALL" ? [...METHODS] : [method]).map((m) => routeKey(m, path))));

/** `/api/x` when the reference also has `/api/v1/x` with the same method: the unversioned alias. */
const versionedOf = (route: string): string | undefined => {
  const [method, path] = route.split(" ") as [string, string];
  if (!path.startsWith("/api/") || path.startsWith("/api/v1/")) return undefined;
  const versioned = `${method} /api/v1/${path.slice("/api/".length)}`;
  return reference.has(versioned) ? versioned : undefined;
};

test("every route in a docs/ table is in the API reference", () => {
  const unknown = docRoutes()
    .filter(({ route }) => !reference.has(route) && !notOperations.has(route))
    .map(({ route, file, line }) => `docs/${file}:${line}: ${route}`);
  expect(unknown).toEqual([]);
});

test("every route of the API reference is in a docs/ table", () => {
  const listed = new Set(docRoutes().map(({ route }) => route));
  const exempt = new Set(EXEMPT.map(({ route }) => route));
  const missing = [...reference].filter((route) => !listed.has(route) && !exempt.has(route) && !listed.has(versionedOf(route) ?? ""));
  expect(missing).toEqual([]);
});

test("the exemptions are reference routes that no table lists", () => {
  const listed = new Set(docRoutes().map(({ route }) => route));
  expect(EXEMPT.filter(({ route }) => !reference.has(route) || listed.has(route))).toEqual([]);
});

test("a route is listed in the tables of one page only", () => {
  const pages = new Map<string, Set<string>>();
  for (const { route, file } of docRoutes()) (pages.get(route) ?? pages.set(route, new Set()).get(route)!).add(file);
  const twice = [...pages].filter(([, files]) => files.size > 1).map(([route, files]) => `${route}: ${[...files].sort().join(", ")}`);
  expect(twice).toEqual([]);
});
