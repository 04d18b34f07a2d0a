/**
 * `npm run sdk:build`: sdk/dist/ from sdk/src/ — ESM JavaScript by Bun's bundler (one file per
 * entry point, shared code in chunks so `instanceof HearthError` holds across entry points;
 * socket.io-client stays a dependency, the WAV decoder is bundled into `wav`), CommonJS for
 * `require` (dist/cjs/: Bun splits only ESM, so one bundle of every entry point's exports, which
 * each entry's .cjs re-exports, keeps one class per error there too), then the type declarations
 * by tsc. It does not regenerate sdk/src/generated/ (`npm run sdk:generate` does).
 *
 * `--out DIR` builds the package somewhere else instead: DIR/dist plus package.json, README.md,
 * LICENSE and THIRD-PARTY-NOTICES.md, a folder `npm pack DIR` packs as it would pack sdk/
 * (the server's /sdk tarball: src/ops/sdk-tarball.ts); nothing under sdk/ is written then.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const sdk = join(import.meta.dir, "..");
const outFlag = process.argv.indexOf("--out");
const out = outFlag >= 0 ? resolve(process.argv[outFlag + 1] ?? "") : null;
const packageDir = out ?? sdk;
const dist = join(packageDir, "dist");
const ENTRY_POINTS = ["index", "client", "voice", "wav"];

rmSync(dist, { recursive: true, force: true });
if (out) mkdirSync(out, { recursive: true });

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
// The entry is virtual (a plugin answers it): no file under sdk/ that two builds at once would
// share, and no temp path in the bundle's comments.
const CJS_ENTRY = "hearth-sdk-cjs-entry";
const cjs = await Bun.build({
  entrypoints: [CJS_ENTRY],
  outdir: join(dist, "cjs"),
  format: "cjs",
  target: "node",
  external: ["socket.io-client"],
  naming: { entry: "sdk.cjs" },
  plugins: [
    {
      name: "cjs-entry",
      setup(build) {
        build.onResolve({ filter: new RegExp(`^${CJS_ENTRY}$`) }, () => ({ path: CJS_ENTRY, namespace: "cjs-entry" }));
        build.onLoad({ filter: /.*/, namespace: "cjs-entry" }, () => ({
          contents: ENTRY_POINTS.map((name) => `export * from ${JSON.stringify(join(sdk, "src", `${name}.ts`))};\n`).join(""),
          loader: "ts",
          resolveDir: sdk,
        }));
      },
    },
  ],
});
if (!cjs.success) {
  for (const log of cjs.logs) console.error(log);
  throw new Error("sdk: the CommonJS bundle failed");
}
for (const name of ENTRY_POINTS) writeFileSync(join(dist, "cjs", `${name}.cjs`), `"use strict";\nmodule.exports = require("./sdk.cjs");\n`);

const tsc = spawnSync(process.execPath, [join(sdk, "..", "node_modules", "typescript", "bin", "tsc"), "-p", join(sdk, "tsconfig.json"), "--outDir", dist], { stdio: "inherit" });
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
  join(packageDir, "THIRD-PARTY-NOTICES.md"),
  `# Third-party notices\n\n\`dist/wav.js\` bundles @echogarden/wave-codec ${version} (https://github.com/echogarden-project/wave-codec):\n\n${readFileSync(join(codec, "LICENSE.md"), "utf8").trim()}\n`,
);

if (out) for (const name of ["package.json", "README.md", "LICENSE"]) copyFileSync(join(sdk, name), join(out, name));

console.log(`${out ? dist : "sdk/dist"}: ${result.outputs.length} files, declarations by tsc`);

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
