/**
 * deploy/compose.yaml run by Debian's podman-compose (1.0.3): Hearth built from the repository,
 * PostgreSQL, Redis and Caddy, with HEARTH_DOMAIN=localhost (so Caddy's automatic HTTPS uses its
 * internal CA). The official PostgreSQL, Redis and Caddy images cannot be pulled on CI's
 * machine, so the run uses stand-ins built from Debian 12's packages (test/container/standins/:
 * the same environment variables, paths and ports), and a copy of the file that differs in only
 * what a machine without Docker Hub needs: those three `image:` names, the base image as a build
 * argument, an image tag of its own, Caddy published on one loopback port instead of 80 and 443,
 * and absolute paths for the build context and the Caddyfile. Everything else (environment,
 * volumes, order, healthchecks, the Caddyfile) is the file as shipped. Checked: HTTPS through
 * Caddy, discovery's https:// URLs from PUBLIC_URL, /readyz with PostgreSQL and Redis, a
 * registration stored in PostgreSQL with the client's address read through Caddy
 * (TRUST_PROXY), a Socket.IO client over WSS, and Hearth draining on stop. All of it (images
 * but the stand-ins, containers, volumes, network) is removed after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io as connectClient } from "socket.io-client";
import { freePort } from "../../scripts/pg-cluster.ts";
import { must, podman, ROOT } from "./podman.ts";

const STANDINS = join(import.meta.dir, "standins");
const base = process.env.HEARTH_CONTAINER_BASE;
const compose = Bun.which("podman-compose");
const project = `hearthstack${process.pid}`;
const hearthImage = `localhost/hearth:ci-stack-${process.pid}`;
const standin = (service: string) => `localhost/hearth-ci-standin-${service}:bookworm`;
const env = { ...process.env, HEARTH_DOMAIN: "localhost", POSTGRES_PASSWORD: crypto.getRandomValues(new Uint8Array(12)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "") };

const container = (service: string) => `${project}_${service}_1`;

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  ports?: string[];
  volumes?: string[];
}

describe.skipIf(!base || compose === null)("deploy/compose.yaml run with podman-compose", () => {
  let scratch: string;
  let file: string;
  let origin: string;
  let ca: string;
  const composeRun = (...args: string[]) => {
    const result = Bun.spawnSync([compose!, "-p", project, "-f", file, ...args], { env, stdout: "pipe", stderr: "pipe", cwd: scratch });
    return { code: result.exitCode ?? 1, out: `${result.stdout.toString()}${result.stderr.toString()}` };
  };
  const get = (path: string) => fetch(`${origin}${path}`, { tls: { ca } });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "hearth-ci-stack-"));
    for (const service of ["postgres", "redis", "caddy"]) {
      if (podman("image", "exists", standin(service)).code !== 0) {
        must("build", "--network", "host", "--build-arg", `BASE_IMAGE=${base}`, "-t", standin(service), "-f", join(STANDINS, `${service}.Containerfile`), STANDINS);
      }
    }
    const port = freePort();
    origin = `https://localhost:${port}`;
    const spec = Bun.YAML.parse(readFileSync(join(ROOT, "deploy/compose.yaml"), "utf8")) as { services: Record<string, Service> };
    const { hearth, postgres, redis, caddy } = spec.services as Record<"hearth" | "postgres" | "redis" | "caddy", Service>;
    hearth.image = hearthImage;
    hearth.build = { ...hearth.build!, context: ROOT, args: { BASE_IMAGE: base! } };
    postgres.image = standin("postgres");
    redis.image = standin("redis");
    caddy.image = standin("caddy");
    caddy.ports = [`127.0.0.1:${port}:443`];
    caddy.volumes = caddy.volumes!.map((volume) => volume.replace(/^\.\/Caddyfile:/, `${join(ROOT, "deploy/Caddyfile")}:`));
    file = join(scratch, "compose.yaml");
    // JSON is YAML.
    writeFileSync(file, JSON.stringify(spec, null, 2));

    const up = composeRun("up", "-d");
    if (up.code !== 0) throw new Error(`podman-compose up: ${up.code}\n${up.out}`);
    // Caddy makes its CA and certificate at its first start; Hearth may be restarted once or
    // twice meanwhile if PostgreSQL is not accepting connections yet (restart: unless-stopped).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const root = podman("exec", container("caddy"), "cat", "/data/caddy/pki/authorities/local/root.crt");
      if (root.code === 0) {
        ca = root.out;
        try {
          if ((await get("/readyz")).status === 200) break;
        } catch {
          // not serving yet
        }
      }
      if (Date.now() > deadline) throw new Error(`the stack did not become ready within 90 s:\n${podman("logs", container("hearth")).out}`);
      await Bun.sleep(500);
    }
  });
  afterAll(() => {
    if (file) composeRun("down", "-t", "5");
    for (const volume of ["hearth-data", "postgres-data", "redis-data", "caddy-data", "caddy-config"]) podman("volume", "rm", "-f", `${project}_${volume}`);
    podman("network", "rm", "-f", `${project}_default`);
    podman("rmi", "-f", hearthImage);
    rmSync(scratch, { recursive: true, force: true });
  });

  test("Caddy serves Hearth over HTTPS; discovery is built on PUBLIC_URL; PostgreSQL and Redis are ready", async () => {
    const ready = await get("/readyz");
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", disk: "ok", redis: "ok" } });
    const discovery = (await (await get("/api/v1")).json()) as { gateway: { url: string }; links: { self: string } };
    expect(discovery.gateway.url).toBe("https://localhost");
    expect(discovery.links.self).toBe("https://localhost/api/v1");
    // Nothing but Caddy is published.
    for (const service of ["hearth", "postgres", "redis"]) expect(must("port", container(service))).toBe("");
  });

  let token: string;
  test("a registration through Caddy is stored in PostgreSQL, logged with the address Caddy saw", async () => {
    const response = await fetch(`${origin}/api/v1/auth/register`, {
      method: "POST",
      tls: { ca },
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "stackci", email: "stack@example.org", password: "correct horse battery staple" }),
    });
    expect(response.status).toBe(201);
    token = ((await response.json()) as { token: string }).token;
    expect(must("exec", container("postgres"), "psql", "--username=hearth", "--dbname=hearth", "-tAc", "SELECT username FROM users")).toBe("stackci");

    const caddyAddress = must("inspect", container("caddy"), "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}");
    const line = podman("logs", container("hearth"))
      .out.split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg: string; route?: string; client?: string })
      .find((l) => l.msg === "request" && l.route === "/api/v1/auth/register");
    // TRUST_PROXY=uniquelocal: the client Caddy names, not Caddy itself.
    expect(line?.client).toBeDefined();
    expect(line!.client).not.toBe(caddyAddress);
  });

  test("a Socket.IO client connects over WSS through Caddy", async () => {
    const socket = connectClient(origin, { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true, ca });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.on("connect", () => resolve());
        socket.on("connect_error", reject);
      });
      expect(socket.io.engine.transport.name).toBe("websocket");
    } finally {
      socket.close();
    }
  });

  test("stopping the hearth service drains it to exit 0", () => {
    must("stop", "-t", "30", container("hearth"));
    expect(must("inspect", container("hearth"), "--format", "{{.State.ExitCode}}")).toBe("0");
    const last = podman("logs", container("hearth")).out.split("\n").filter((l) => l.startsWith("{")).at(-1);
    expect(JSON.parse(last!).msg).toBe("stopped");
  });
});
