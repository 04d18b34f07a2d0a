import { expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The non-public members of socket.io, socket.io-adapter and @socket.io/bun-engine are reached
 * only from their modules (src/gateway/*-internals.ts; docs/architecture.md, "Dependency
 * internals"): no other file under src/ names one or imports a package's dist/ files.
 */
const PRIVATE = [/\._encode\b/, /\._createSocket\b/, /\._cleanup\b/, /\.transport\.socket\b/, /\.clients\b/, /\.reconstructor\b/, /\.addOffsetIfNecessary\b/, /\.publishAndReturnOffset\b/, /\.server\.opts\b/, /from "(socket\.io|socket\.io-adapter|@socket\.io\/bun-engine)\/dist\//];
const SRC = join(import.meta.dir, "../../src");

test("only the internals modules reach into the gateway's dependencies", () => {
  const found: string[] = [];
  for (const file of new Glob("**/*.ts").scanSync(SRC)) {
    if (file.endsWith("-internals.ts")) continue;
    readFileSync(join(SRC, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        const code = line.trimStart();
        if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return;
        if (PRIVATE.some((pattern) => pattern.test(line))) found.push(`src/${file}:${i + 1}: ${code}`);
      });
  }
  expect(found).toEqual([]);
});
