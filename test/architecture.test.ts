/**
 * The layers point one way (docs/architecture.md): http, gateway and audio -> domain -> store.
 * This reads the imports of every file under src/ (type-only imports and `import("...")` types
 * included) and fails on an import cycle between files, on the store importing the domain, and
 * on the domain importing http/, gateway/ or audio/.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");

/** The source with comments blanked out (strings and template literals kept as they are). */
function withoutComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const SPECIFIERS = [
  /\b(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/g, // import x from, import type {x} from, export {x} from
  /\bimport\s*["']([^"']+)["']/g, // import "x"
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, // import("x"), in code or in a type
];

/** The relative module specifiers a source text imports. */
export function importSpecifiers(source: string): string[] {
  const code = withoutComments(source);
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) for (const match of code.matchAll(pattern)) found.add(match[1]!);
  return [...found].filter((specifier) => specifier.startsWith("."));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

const files = sourceFiles(SRC);
const rel = (path: string) => relative(ROOT, path);
/** src-relative file -> the src-relative files it imports. */
const graph = new Map(
  files.map((file) => [rel(file), importSpecifiers(readFileSync(file, "utf8")).map((specifier) => rel(resolve(dirname(file), specifier)))]),
);
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));
const layer = (path: string) => path.split("/")[1] ?? "";

describe("the import reader", () => {
  test("finds value, type-only, re-export, side-effect and import() imports, not commented ones", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      "import {\n  type C,\n  d,\n} from './c.ts';",
      'export { e } from "./e.ts";',
      'export type * from "./f.ts";',
      'import "./g.ts";',
      'type H = import("./h.ts").H;',
      '// import { x } from "./commented.ts";',
      '/* import { y } from "./blocked.ts"; */',
      'import { readFileSync } from "node:fs";',
      'const url = "http://example.com//not-a-comment"; import { i } from "./i.ts";',
    ].join("\n");
    expect(importSpecifiers(source).sort()).toEqual(["../b.ts", "./a.ts", "./c.ts", "./e.ts", "./f.ts", "./g.ts", "./h.ts", "./i.ts"]);
  });

  test("finds cycles of any length, and none in a graph without one", () => {
    const cyclic = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cyclesOf(cyclic)).toEqual([["a", "b", "c"]]);
    expect(cyclesOf(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
  });

  test("reads every file under src/, and every relative import resolves to a file", () => {
    expect(graph.size).toBeGreaterThan(100);
    const unresolved = edges.filter(({ to }) => !existsSync(join(ROOT, to)));
    expect(unresolved).toEqual([]);
  });
});

describe("layers point one way", () => {
  test("no import cycle between files of src/ (type-only imports included)", () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  test("store/ never imports domain/ (or http/, gateway/, audio/)", () => {
    const wrong = edges.filter(({ from, to }) => layer(from) === "store" && ["domain", "http", "gateway", "audio"].includes(layer(to)));
    expect(wrong).toEqual([]);
  });

  test("domain/ never imports http/, gateway/ or audio/", () => {
    const wrong = edges.filter(({ from, to }) => layer(from) === "domain" && ["http", "gateway", "audio"].includes(layer(to)));
    expect(wrong).toEqual([]);
  });

  test("domain/ has no barrel index.ts files", () => {
    expect([...graph.keys()].filter((path) => path.startsWith("src/domain/") && path.endsWith("/index.ts"))).toEqual([]);
  });
});
