/**
 * `npm run build:binary`: Hearth as one executable (`bun build --compile`), written to ./hearth
 * (docs/operations.md, "Single binary"). It runs src/main.ts, so `./hearth` starts as `npm start`
 * does. Inside: Bun's runtime, the server's code and its dependencies (the migrations are code),
 * the web app built now by web/build.ts, the API reference UI's files, and the SDK tarball packed
 * now (as GET /sdk/latest.tgz packs it from sources); src/embedded.ts is
 * replaced, in this build only, by a module that points at them.
 *
 * `--target=linux-arm64` (or any of Bun's compile targets, `bun-` optional) cross-compiles to
 * ./hearth-linux-arm64; Bun fetches that target's runtime from the npm registry once (kept in
 * its install cache). `--outfile=<path>` names the file. Prints the time taken and the size.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildWebApp } from "../web/build.ts";
import { referenceSources } from "../src/http/routes/reference.ts";
import { sdkTarballs } from "../src/ops/sdk-tarball.ts";

const ROOT = resolve(import.meta.dir, "..");

const { values } = parseArgs({ options: { target: { type: "string" }, outfile: { type: "string" } } });
const target = values.target ? (values.target.startsWith("bun-") ? values.target : `bun-${values.target}`) : null;
const outfile = resolve(ROOT, values.outfile ?? (target ? `hearth-${target.slice("bun-".length)}` : "hearth"));

/** `import <name> from "<path>" with { type: "file" }`: the path of that file inside the executable. */
const fileImport = (name: string, path: string) => `import ${name} from ${JSON.stringify(path)} with { type: "file" };`;

const started = performance.now();
const work = mkdtempSync(join(tmpdir(), "hearth-binary-"));
try {
  const web = await buildWebApp();
  const lines: string[] = [];
  const assets: string[] = [];
  let i = 0;
  for (const [name, asset] of web.assets) {
    // Under its built name, so the executable's copy keeps the extension (and so its type).
    const path = join(work, name);
    writeFileSync(path, asset.body);
    lines.push(fileImport(`web${i}`, path));
    assets.push(`{ name: ${JSON.stringify(name)}, path: web${i}, type: ${JSON.stringify(asset.type)} }`);
    i++;
  }
  const reference: string[] = [];
  i = 0;
  for (const [name, path] of Object.entries(referenceSources())) {
    lines.push(fileImport(`reference${i}`, path));
    reference.push(`${JSON.stringify(name)}: reference${i}`);
    i++;
  }
  const sdk = await sdkTarballs(join(work, "sdk-data")).current();
  const sdkPath = join(work, sdk.filename);
  writeFileSync(sdkPath, sdk.bytes);
  lines.push(fileImport("sdkTarball", sdkPath));
  lines.push(
    `export const EMBEDDED = {`,
    `  web: { html: ${JSON.stringify(web.html)}, assets: [${assets.join(", ")}] },`,
    `  reference: { ${reference.join(", ")} },`,
    `  sdk: { version: ${JSON.stringify(sdk.version)}, path: sdkTarball },`,
    `};`,
  );

  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/main.ts")],
    target: "bun",
    // Not minified: Elysia reads its handlers' source text to infer what each one uses (its
    // "sucrose"), and minified syntax defeats it (it then warns on stdout, breaking JSON logs);
    // names stay as written too, for stack traces and `constructor.name`.
    minify: false,
    // Kept inside the executable: stack traces in the log name src/ files and lines (2 MiB more).
    // Bun also writes it beside the file, where nothing needs it (removed below).
    sourcemap: "linked",
    files: { [join(ROOT, "src/embedded.ts")]: lines.join("\n") },
    compile: {
      outfile,
      ...(target ? { target: target as Bun.Build.CompileTarget } : {}),
      // As `bun src/main.ts` does, a .env in the working directory is read; a bunfig.toml there
      // is not (Hearth's own only configures `bun test`, and a binary should not run preloads
      // from wherever it is started).
      autoloadDotenv: true,
      autoloadBunfig: false,
    },
    throw: false,
  });
  if (!result.success) {
    console.error(`build:binary failed:\n${result.logs.map((log) => String(log.message ?? log)).join("\n")}`);
    process.exitCode = 1;
  } else {
    rmSync(`${outfile}.map`, { force: true });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const megabytes = (statSync(outfile).size / 1024 / 1024).toFixed(1);
    console.log(`built ${outfile} (${target ?? "this machine"}) in ${seconds} s: ${megabytes} MiB, web app ${web.assets.size} assets`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
