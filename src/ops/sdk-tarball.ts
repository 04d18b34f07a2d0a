/**
 * The SDK tarball this server serves at /sdk/hearth-sdk-<version>.tgz and /sdk/latest.tgz
 * (src/http/routes/sdk.ts): the `@hearth/sdk` package of this checkout, exactly as
 * `npm pack` makes it, so `npm install http://<host>/sdk/latest.tgz` installs the SDK that
 * matches this server's API.
 *
 * Made on the first request, not by a step the host must remember: `sdk/scripts/build.ts --out`
 * into a folder of its own under DATA_DIR/sdk/ (never sdk/dist, which a developer's own build
 * owns), then `npm pack` of that folder. It is kept as DATA_DIR/sdk/hearth-sdk-<version>-<hash>.tgz,
 * the hash being of every input of the build (sdk/src, the build script, package.json, README,
 * LICENSE, tsconfig, the versions of Bun, TypeScript and the bundled WAV decoder): every
 * request stats those inputs (and hashes them again when a stat changed), so an edited checkout gets a new tarball on the next request and an untouched one reuses the
 * kept file across restarts (the first request after a change waits for the build, about a
 * second or two). Older kept tarballs are removed when a new one is made.
 *
 * This module is the one place the tarball is read. The single binary has no checkout: it
 * serves the tarball scripts/build-binary.ts packed the same way at compile time (src/embedded.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { EMBEDDED } from "../embedded.ts";

export interface SdkTarball {
  /** sdk/package.json's version. */
  version: string;
  /** `hearth-sdk-<version>.tgz`. */
  filename: string;
  bytes: Uint8Array;
  /** A strong ETag of the bytes (quoted). */
  etag: string;
}

/** The checkout whose sdk/ is packed (a test packs a copy). */
const CHECKOUT = resolve(import.meta.dir, "..", "..");

/** The build's inputs, relative to the checkout (sdk/src is walked). */
function inputs(root: string): string[] {
  const sdk = join(root, "sdk");
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
  const fixed = ["package.json", "README.md", "LICENSE", "tsconfig.json", "scripts/build.ts"].map((name) => join(sdk, name));
  // The toolchain too: the bundled decoder and the declarations' compiler (Bun's version is hashed beside).
  const tools = ["@echogarden/wave-codec", "typescript"].map((name) => join(root, "node_modules", name, "package.json"));
  return [...fixed, ...walk(join(sdk, "src")), ...tools].map((path) => relative(root, path));
}

/** Each input's path, size and modification time: what changes when one is written (web/build.ts's rule). */
function statsOf(root: string, paths: string[]): string {
  return paths.map((path) => {
    const stat = statSync(join(root, path));
    return `${path}:${stat.size}:${stat.mtimeMs}`;
  }).join("|");
}

async function fingerprint(root: string, paths: string[]): Promise<{ hash: string; version: string }> {
  const hasher = new Bun.CryptoHasher("sha256").update(`bun ${Bun.version}\0`);
  let version = "";
  for (const path of paths) {
    const content = await readFile(join(root, path));
    if (path === join("sdk", "package.json")) version = (JSON.parse(content.toString("utf8")) as { version: string }).version;
    hasher.update(path).update("\0").update(content).update("\0");
  }
  return { hash: hasher.digest("hex"), version };
}

async function run(command: string[], cwd: string): Promise<string> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited with ${code}: ${(stderr || stdout).trim().slice(-2000)}`);
  return stdout;
}

async function build(root: string, dataDir: string, hash: string, version: string): Promise<Uint8Array> {
  const sdk = join(root, "sdk");
  const folder = join(dataDir, "sdk");
  const kept = join(folder, `hearth-sdk-${version}-${hash.slice(0, 16)}.tgz`);
  if (existsSync(kept)) return readFileSync(kept);
  mkdirSync(folder, { recursive: true });
  const staging = mkdtempSync(join(folder, ".build-"));
  try {
    const packageDir = join(staging, "package");
    await run([process.execPath, join(sdk, "scripts", "build.ts"), "--out", packageDir], root);
    const packed = JSON.parse(await run(["npm", "pack", packageDir, "--pack-destination", staging, "--json", "--ignore-scripts"], staging)) as { filename: string }[];
    renameSync(join(staging, packed[0]!.filename), kept);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  for (const name of readdirSync(folder)) {
    if (/^hearth-sdk-.*\.tgz$/.test(name) && join(folder, name) !== kept) rmSync(join(folder, name), { force: true });
  }
  return readFileSync(kept);
}

export interface SdkTarballs {
  /** sdk/package.json's version, without building anything (the route's 404 needs only this). */
  version(): string;
  /**
   * The tarball of the checkout's SDK as it is now (built if its inputs changed since the last
   * one). Concurrent first requests share one build; a failed build is retried on the next request.
   */
  current(): Promise<SdkTarball>;
}

/** One server's SDK tarballs: kept in memory while its inputs are unchanged, on disk under DATA_DIR/sdk/ across restarts. */
export function sdkTarballs(dataDir: string, checkout = CHECKOUT): SdkTarballs {
  if (EMBEDDED && checkout === CHECKOUT) return embedded(EMBEDDED.sdk);
  let known: { hash: string; tarball: Promise<SdkTarball> } | null = null;
  // A public route asks on every request: the inputs' contents are read and hashed again only
  // when a stat of them differs from the last request's (a stat of each, not a read).
  let seen: { stats: string; hash: string; version: string } | null = null;
  return {
    version: () => (JSON.parse(readFileSync(join(checkout, "sdk", "package.json"), "utf8")) as { version: string }).version,
    async current() {
      const paths = inputs(checkout);
      const stats = statsOf(checkout, paths);
      if (seen?.stats !== stats) seen = { stats, ...(await fingerprint(checkout, paths)) };
      const { hash, version } = seen;
      if (known?.hash === hash) return known.tarball;
      const tarball = build(checkout, dataDir, hash, version).then((bytes) => described(version, bytes));
      const entry = { hash, tarball };
      known = entry;
      tarball.catch(() => {
        if (known === entry) known = null;
      });
      return tarball;
    },
  };
}

function described(version: string, bytes: Uint8Array): SdkTarball {
  return { version, filename: `hearth-sdk-${version}.tgz`, bytes, etag: `"${new Bun.CryptoHasher("sha256").update(bytes).digest("base64url").slice(0, 32)}"` };
}

/** The single binary's: the file packed into it, read once. */
function embedded(sdk: { version: string; path: string }): SdkTarballs {
  let tarball: Promise<SdkTarball> | null = null;
  return { version: () => sdk.version, current: () => (tarball ??= readFile(sdk.path).then((bytes) => described(sdk.version, new Uint8Array(bytes)))) };
}
