/**
 * The image deploy/Dockerfile makes, built and run with podman (`npm run test:container`, which
 * prepares the build context and the base image: scripts/test-container.ts). Hearth in it is
 * PID 1 as its own user, passes its HEALTHCHECK, serves /healthz and the API on a published
 * port, keeps its data in the /data volume across containers, and drains on `podman stop`
 * (exit 0). Every container, volume and image made here is removed after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { must, podman, ROOT } from "./podman.ts";

const context = process.env.HEARTH_CONTAINER_CONTEXT;
const base = process.env.HEARTH_CONTAINER_BASE;
const tag = `localhost/hearth:ci-${process.pid}`;
const volume = `hearth-ci-data-${process.pid}`;
const made: string[] = [];


/** Starts a container of the image on the volume, its port 3000 published on a free loopback port. */
function run(name: string, ...extra: string[]): string {
  made.push(name);
  must("run", "-d", "--name", name, "-p", "127.0.0.1::3000", "-v", `${volume}:/data`, ...extra, tag);
  const port = /:(\d+)\s*$/.exec(must("port", name, "3000/tcp"))![1];
  return `http://127.0.0.1:${port}`;
}

async function waitHealthy(url: string, name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`no /healthz within 20 s:\n${podman("logs", name).out}`);
}

async function api(url: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field below
  return { status: response.status, json: (await response.json()) as any };
}

describe.skipIf(!context || !base)("the container image", () => {
  let buildSeconds = 0;
  beforeAll(() => {
    const started = performance.now();
    // --format docker: the OCI format podman defaults to has no HEALTHCHECK.
    must("build", "--format", "docker", "-f", join(ROOT, "deploy/Dockerfile"), "--build-arg", `BASE_IMAGE=${base}`, "-t", tag, context!);
    buildSeconds = (performance.now() - started) / 1000;
    must("volume", "create", volume);
  });
  afterAll(() => {
    for (const name of made) podman("rm", "-f", "-v", "-t", "0", name);
    podman("volume", "rm", "-f", volume);
    podman("rmi", "-f", tag);
  });

  test("is built with the binary as entrypoint, a user of its own, a /data volume and a healthcheck", () => {
    const [image] = JSON.parse(must("image", "inspect", tag)) as Array<{
      Config: { User: string; Entrypoint: string[]; Env: string[]; Volumes: Record<string, unknown>; StopSignal: string; ExposedPorts: Record<string, unknown> };
      Healthcheck?: { Test: string[] };
      Size: number;
    }>;
    console.log(`image built in ${buildSeconds.toFixed(1)} s, ${(image!.Size / 1e6).toFixed(0)} MB`);
    expect(image!.Config.User).toBe("hearth:hearth");
    expect(image!.Config.Entrypoint).toEqual(["/usr/local/bin/hearth"]);
    expect(image!.Config.Env).toEqual(expect.arrayContaining(["DATA_DIR=/data", "HOST=0.0.0.0", "PORT=3000"]));
    expect(Object.keys(image!.Config.Volumes)).toEqual(["/data"]);
    expect(Object.keys(image!.Config.ExposedPorts)).toEqual(["3000/tcp"]);
    expect(image!.Config.StopSignal).toBe("SIGTERM");
    expect(image!.Healthcheck!.Test.join(" ")).toContain("/healthz");
  });

  let credentials: { login: string; password: string };
  let serverId: string;

  test("runs Hearth as PID 1, not root, healthy, serving the API; `podman stop` drains it and it exits 0", async () => {
    const url = run("hearth-ci-first");
    await waitHealthy(url, "hearth-ci-first");

    // Podman runs HEALTHCHECKs from systemd timers; with or without them, run it now.
    expect(podman("healthcheck", "run", "hearth-ci-first").code).toBe(0);
    expect(must("inspect", "hearth-ci-first", "--format", "{{.State.Health.Status}}")).toBe("healthy");

    const processes = must("top", "hearth-ci-first", "user", "pid", "args").split("\n").slice(1).map((line) => line.trim().split(/\s+/));
    expect(processes).toEqual([["hearth", "1", "/usr/local/bin/hearth"]]);

    credentials = { login: `ci${process.pid}`, password: "correct horse battery staple" };
    const registered = await api(url, "POST", "/auth/register", { username: credentials.login, email: `${credentials.login}@example.org`, password: credentials.password });
    expect(registered.status).toBe(201);
    const server = await api(url, "POST", "/servers", { name: "Kept in the volume" }, registered.json.token);
    expect(server.status).toBe(201);
    serverId = server.json.id;

    const stopped = performance.now();
    must("stop", "-t", "30", "hearth-ci-first");
    expect(performance.now() - stopped).toBeLessThan(10_000);
    expect(must("inspect", "hearth-ci-first", "--format", "{{.State.ExitCode}}")).toBe("0");
    const lines = podman("logs", "hearth-ci-first").out.trim().split("\n").map((line) => JSON.parse(line) as { msg: string; signal?: string });
    expect(lines.find((line) => line.msg === "draining")?.signal).toBe("SIGTERM");
    expect(lines.at(-1)?.msg).toBe("stopped");
  });

  test("a new container on the same volume has the data: the account, its server, the same secrets; hearth-backup copies it while it runs", async () => {
    expect(serverId).toBeDefined();
    const url = run("hearth-ci-second");
    await waitHealthy(url, "hearth-ci-second");
    const login = await api(url, "POST", "/auth/login", credentials);
    expect(login.status).toBe(200);
    const server = await api(url, "GET", `/servers/${serverId}`, undefined, login.json.token);
    expect(server.status).toBe(200);
    expect(server.json.name).toBe("Kept in the volume");
    // The files Hearth keeps in DATA_DIR, its own and private.
    const listing = must("exec", "hearth-ci-second", "sh", "-c", "stat -c '%U %a %n' /data /data/hearth.db /data/jwt-secret /data/secrets.key");
    expect(listing.split("\n")).toEqual(["hearth 700 /data", "hearth 600 /data/hearth.db", "hearth 600 /data/jwt-secret", "hearth 600 /data/secrets.key"]);

    // The online backup docs/operations.md gives for a container, taken while it runs, then
    // copied out and read with Debian's sqlite3.
    const backedUp = must("exec", "hearth-ci-second", "hearth-backup", "/data/backup.db");
    expect(backedUp).toStartWith("Backed up /data/hearth.db to /data/backup.db.");
    expect(must("exec", "hearth-ci-second", "stat", "-c", "%U %a", "/data/backup.db")).toBe("hearth 600");
    expect(podman("exec", "hearth-ci-second", "hearth-backup", "/data/backup.db").code).toBe(1);
    const copy = join(mkdtempSync(join(tmpdir(), "hearth-ci-backup-")), "hearth.db");
    must("cp", "hearth-ci-second:/data/backup.db", copy);
    if (Bun.which("sqlite3")) {
      const sqlite = (sql: string) => Bun.spawnSync(["sqlite3", copy, sql], { stdout: "pipe" }).stdout.toString().trim();
      expect(sqlite("PRAGMA integrity_check")).toBe("ok");
      expect(sqlite(`SELECT name FROM servers WHERE id = '${serverId}'`)).toBe("Kept in the volume");
    }
    rmSync(dirname(copy), { recursive: true });
    must("stop", "-t", "30", "hearth-ci-second");
    expect(must("inspect", "hearth-ci-second", "--format", "{{.State.ExitCode}}")).toBe("0");
  });

  test("the healthcheck fails when nothing answers /healthz", () => {
    made.push("hearth-ci-silent");
    must("run", "-d", "--name", "hearth-ci-silent", "--entrypoint", "/bin/sleep", tag, "60");
    expect(podman("healthcheck", "run", "hearth-ci-silent").code).not.toBe(0);
  });
});
