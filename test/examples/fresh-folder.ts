/**
 * The SDK as a bot developer gets it: `npm pack` of sdk/ (built first when sdk/src is newer than
 * sdk/dist), installed with npm into a new folder outside the repository, with the examples
 * copied in. Examples run there import `@hearth/sdk` from that folder's node_modules, never
 * from the repository's sources. One tarball and one folder per test process.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
const SDK = join(ROOT, "sdk");

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd} (${result.error?.message ?? `exit ${result.status}, signal ${result.signal}`}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
}

/** Builds sdk/dist unless it is newer than every source. */
export function ensureBuilt(): void {
  const built = join(SDK, "dist", "index.js");
  const sources = Math.max(newest(join(SDK, "src")), statSync(join(SDK, "scripts", "build.ts")).mtimeMs, statSync(join(SDK, "package.json")).mtimeMs);
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  run(process.execPath, [join(SDK, "scripts", "build.ts")], ROOT);
}

let tarball: string | null = null;

/** The packed SDK (`hearth-sdk-<version>.tgz`), as `npm pack` makes it for publishing. */
export function sdkTarball(): string {
  if (tarball) return tarball;
  ensureBuilt();
  const destination = mkdtempSync(join(tmpdir(), "hearth-sdk-pack-"));
  const output = run("npm", ["pack", SDK, "--pack-destination", destination, "--json"], ROOT);
  const [packed] = JSON.parse(output) as { filename: string }[];
  tarball = join(destination, packed!.filename);
  return tarball;
}

let folder: string | null = null;

/** A new folder with the SDK installed from the tarball and examples/ copied in. */
export function examplesFolder(): string {
  if (folder) return folder;
  const dir = mkdtempSync(join(tmpdir(), "hearth-bot-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "hearth-examples", private: true, type: "module" }, null, 2));
  run("npm", ["install", sdkTarball(), "--prefer-offline", "--no-audit", "--no-fund"], dir);
  for (const name of readdirSync(join(ROOT, "examples"))) {
    if (name.endsWith(".js") || name.endsWith(".py")) copyFileSync(join(ROOT, "examples", name), join(dir, name));
  }
  mkdirSync(join(dir, "recordings"), { recursive: true });
  folder = dir;
  return dir;
}
