/**
 * The web app's build: Bun's own bundler from the HTML entry point, in memory.
 * Hearth calls `buildWebApp()` on the first page request (src/http/web.ts); the bench and
 * `bun web/build.ts` (which prints the sizes) call it too. Runs in Bun, not in the browser.
 */
import type { BunPlugin } from "bun";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the app's sources live (this folder). */
const WEB_DIR = fileURLToPath(new URL(".", import.meta.url));
/** The URL prefix of every built asset; the HTML entry is served for the app's pages. */
export const ASSETS_PREFIX = "/assets/";

interface WebAsset {
  body: Uint8Array;
  /** The body gzipped once at build time, served to clients that accept it. */
  gzipped: Uint8Array;
  type: string;
}

export interface WebBuild {
  /** The entry page, with hashed asset URLs under ASSETS_PREFIX. */
  html: string;
  /** Asset file name (without the prefix) -> its bytes. */
  assets: Map<string, WebAsset>;
  /** What the sources looked like when this was built (see sourceFingerprint). */
  fingerprint: string;
  /** Milliseconds the bundler took. */
  ms: number;
}

class WebBuildError extends Error {
  override name = "WebBuildError";
}

/**
 * Packages written for React resolve to Preact's compatibility layer (the list is virtua's
 * imports), so the app ships one UI library.
 */
const REACT_TO_PREACT: Record<string, string> = {
  react: "preact/compat",
  "react-dom": "preact/compat",
  "react/jsx-runtime": "preact/jsx-runtime",
  "react-dom/client": "preact/compat/client",
};

const reactToPreact: BunPlugin = {
  name: "react-to-preact",
  setup(build) {
    build.onResolve({ filter: /^react(-dom)?(\/.*)?$/ }, (args) => {
      const target = REACT_TO_PREACT[args.path];
      return target ? { path: Bun.resolveSync(target, WEB_DIR) } : undefined;
    });
  },
};

/** Files that are sources of the app (tests and this build script are not). */
function sourceFiles(dir = WEB_DIR): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(tsx?|css|html|svg)$/.test(entry.name) && path !== join(WEB_DIR, "build.ts")) files.push(path);
  }
  return files;
}

/** Changes whenever a source file is added, removed or written: a cheap "is the build stale?". */
export function sourceFingerprint(): string {
  return sourceFiles()
    .map((file) => {
      const stat = statSync(file);
      return `${file}:${stat.size}:${stat.mtimeMs}`;
    })
    .sort()
    .join("|");
}

/**
 * AudioWorklet modules (`*.worklet.ts`) are loaded by URL (`audioWorklet.addModule`), so each is
 * bundled on its own first; the app then finds their hashed URLs in `HEARTH_WORKLETS`
 * (web/audio/worklets.ts), by file name without `.worklet.ts`.
 */
async function buildWorklets(assets: Map<string, WebAsset>): Promise<Record<string, string>> {
  const entries = sourceFiles().filter((file) => file.endsWith(".worklet.ts"));
  const urls: Record<string, string> = {};
  if (entries.length === 0) return urls;
  const result = await Bun.build({ entrypoints: entries, target: "browser", minify: true, naming: "[name]-[hash].[ext]", throw: false });
  if (!result.success) {
    throw new WebBuildError(`web app worklet build failed: ${result.logs.map((log) => String(log.message ?? log)).join("; ")}`);
  }
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    const body = new Uint8Array(await output.arrayBuffer());
    assets.set(name, { body, gzipped: Bun.gzipSync(body), type: output.type });
    urls[name.replace(/\.worklet-[^.]+\.js$/, "")] = ASSETS_PREFIX + name;
  }
  return urls;
}

export async function buildWebApp(): Promise<WebBuild> {
  const fingerprint = sourceFingerprint();
  const started = performance.now();
  const assets = new Map<string, WebAsset>();
  const worklets = await buildWorklets(assets);
  const result = await Bun.build({
    entrypoints: [join(WEB_DIR, "index.html")],
    target: "browser",
    minify: true,
    splitting: true,
    publicPath: ASSETS_PREFIX,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    jsx: { runtime: "automatic", importSource: "preact" },
    define: { "process.env.NODE_ENV": '"production"', HEARTH_WORKLETS: JSON.stringify(worklets) },
    plugins: [reactToPreact],
    throw: false,
  });
  if (!result.success) {
    throw new WebBuildError(`web app build failed: ${result.logs.map((log) => String(log.message ?? log)).join("; ")}`);
  }
  let html: string | null = null;
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    if (output.kind === "entry-point" && name.endsWith(".html")) {
      html = await output.text();
      continue;
    }
    const body = new Uint8Array(await output.arrayBuffer());
    assets.set(name, { body, gzipped: Bun.gzipSync(body), type: output.type });
  }
  if (html === null) throw new WebBuildError("web app build failed: no HTML entry in the output");
  return { html, assets, fingerprint, ms: Math.round(performance.now() - started) };
}

if (import.meta.main) {
  const build = await buildWebApp();
  console.log(`built in ${build.ms} ms`);
  for (const [name, asset] of build.assets) {
    console.log(`${name.padEnd(40)} ${String(asset.body.length).padStart(8)} B  ${String(asset.gzipped.length).padStart(7)} B gzipped`);
  }
}
