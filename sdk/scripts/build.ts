/**
 * `npm run sdk:build`: sdk/dist/ from sdk/src/ — ESM JavaScript by Bun's bundler (one file per
 * entry point, shared code in chunks so `instanceof HearthError` holds across entry points;
 * socket.io-client stays a dependency, the WAV decoder is bundled into `wav`), CommonJS for
 * `require` (dist/cjs/: Bun splits only ESM, so one bundle of every entry point's exports, which
 * each entry's .cjs re-exports, keeps one class per error there too), then the type declarations
 * by tsc. It does not regenerate sdk/src/generated/ (`npm run sdk:generate` does).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const sdk = join(import.meta.dir, "..");
const dist = join(sdk, "dist");
const ENTRY_POINTS = ["index", "client", "voice", "wav"];

rmSync(dist, { recursive: true, force: true });

const result = await Bun.build({
  entrypoints: ENTRY_POINTS.map((name) => join(sdk, "src", `${name}.ts`)),
  outdir: dist,
  root: join(sdk, "src"),
  format: "esm",
  target: "node",
  splitting: true,
  external: ["socket.io-client"],
  naming: { entry: "[name].js", chunk: "chunks/[name]-[hash].js" },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  throw new Error("sdk: bundling failed");
}

// CommonJS: the entry points' exports in one bundle (their names never clash: index re-exports
// client, and voice and wav add their own).
const cjsEntry = join(sdk, "cjs-entry.ts");
writeFileSync(cjsEntry, ENTRY_POINTS.map((name) => `export * from "./src/${name}.ts";\n`).join(""));
const cjs = await Bun.build({
  entrypoints: [cjsEntry],
  outdir: join(dist, "cjs"),
  format: "cjs",
  target: "node",
  external: ["socket.io-client"],
  naming: { entry: "sdk.cjs" },
}).finally(() => rmSync(cjsEntry));
if (!cjs.success) {
  for (const log of cjs.logs) console.error(log);
  throw new Error("sdk: the CommonJS bundle failed");
}
for (const name of ENTRY_POINTS) writeFileSync(join(dist, "cjs", `${name}.cjs`), `"use strict";\nmodule.exports = require("./sdk.cjs");\n`);

const tsc = spawnSync(process.execPath, [join(sdk, "..", "node_modules", "typescript", "bin", "tsc"), "-p", join(sdk, "tsconfig.json")], { stdio: "inherit" });
if (tsc.status !== 0) throw new Error("sdk: tsc failed");

// The published types must not point at anything the package does not install.
for (const file of declarations(dist)) {
  const text = readFileSync(file, "utf8");
  const foreign = [...text.matchAll(/from ["']([^"'.][^"']*)["']/g)].map((m) => m[1]).filter((name) => name !== "socket.io-client");
  if (foreign.length) throw new Error(`${file} imports ${foreign.join(", ")}, which the package does not depend on`);
}

// The bundled decoder's license travels with it.
const codec = join(sdk, "..", "node_modules", "@echogarden", "wave-codec");
const version = (JSON.parse(readFileSync(join(codec, "package.json"), "utf8")) as { version: string }).version;
writeFileSync(
  join(sdk, "THIRD-PARTY-NOTICES.md"),
  `# Third-party notices\n\n\`dist/wav.js\` bundles @echogarden/wave-codec ${version} (https://github.com/echogarden-project/wave-codec):\n\n${readFileSync(join(codec, "LICENSE.md"), "utf8").trim()}\n`,
);

console.log(`sdk/dist: ${result.outputs.length} files, declarations by tsc`);

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
