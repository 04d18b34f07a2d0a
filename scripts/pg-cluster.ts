/**
 * A throwaway PostgreSQL cluster for the test suite and the benches: `initdb` in a temporary
 * folder (as the `postgres` user when run as root, as PostgreSQL refuses root), a server on a
 * free loopback port, removed whole by `stop()`. Uses Debian's `postgresql` package
 * (/usr/lib/postgresql/<version>/bin) or whatever `pg_config --bindir` names.
 */
import { SQL } from "bun";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>`: append `/<database>`. */
  url: string;
  stop(): Promise<void>;
  /** Stops the server at once (as a crash would), keeping its data: an outage. */
  halt(): void;
  /** Starts it again after `halt`, on the same port with the same data. */
  resume(): void;
}

/** The folder holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const configured = Bun.spawnSync(["pg_config", "--bindir"], { stderr: "ignore" });
  const dir = configured.success ? configured.stdout.toString().trim() : "";
  return dir && existsSync(join(dir, "initdb")) ? dir : null;
}

/** A port nobody listens on now, on 127.0.0.1. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * `dir`: a folder of the caller's that holds the cluster and is kept by `stop()` (bench/scale.ts
 * caches its fixtures so): initdb runs only when it holds no cluster yet.
 */
export async function startCluster(options: { settings?: Record<string, string>; dir?: string } = {}): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (Debian: apt-get install postgresql)");
  const kept = options.dir !== undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "hearth-pg-"));
  if (kept) mkdirSync(dir, { recursive: true });
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = Bun.spawnSync(["id", "-u", "postgres"]);
    const gid = Bun.spawnSync(["id", "-g", "postgres"]);
    chownSync(dir, Number(ids.stdout.toString()), Number(gid.stdout.toString()));
  }
  const as = (cmd: string[]) => (asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd);
  const run = (cmd: string[]) => {
    const result = Bun.spawnSync(as(cmd), { cwd: dir, stdout: "pipe", stderr: "pipe" });
    if (!result.success) throw new Error(`${cmd[0]} failed: ${result.stderr.toString()}${result.stdout.toString()}`);
  };
  const data = join(dir, "data");
  const remove = () => {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (!existsSync(join(data, "PG_VERSION"))) run([join(bin, "initdb"), "-D", data, "--auth=trust", "--username=postgres", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]);
    const port = freePort();
    const settings = {
      listen_addresses: "127.0.0.1",
      port: String(port),
      unix_socket_directories: dir,
      max_connections: "400",
      // A throwaway cluster: no fsync (a committed transaction still reaches the OS before
      // COMMIT returns, so a Hearth process killed with SIGKILL loses nothing).
      fsync: "off",
      full_page_writes: "off",
      ...options.settings,
    };
    const flags = Object.entries(settings).map(([key, value]) => `-c ${key}=${value}`).join(" ");
    const start = () => run([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "server.log"), "-o", flags, "-w", "start"]);
    start();
    const url = `postgres://postgres@127.0.0.1:${port}`;
    return {
      url,
      halt: () => run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]),
      resume: start,
      async stop() {
        try {
          // A kept cluster is shut down cleanly: its next start needs no recovery. One halted is down already.
          if (existsSync(join(data, "postmaster.pid"))) run([join(bin, "pg_ctl"), "-D", data, "-m", kept ? "fast" : "immediate", "-w", "stop"]);
        } finally {
          remove();
        }
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Creates database `name` on the cluster (empty). */
export async function createDatabase(clusterUrl: string, name: string): Promise<string> {
  const admin = new SQL(`${clusterUrl}/postgres`, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return `${clusterUrl}/${name}`;
}
