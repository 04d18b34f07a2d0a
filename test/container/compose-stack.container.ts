/**
 * deploy/compose.yaml run by Debian's podman-compose (1.0.3): Hearth built from the repository,
 * PostgreSQL, Redis, Caddy, Janus (built from deploy/janus/) and coturn, with
 * HEARTH_DOMAIN=localhost (so Caddy's automatic HTTPS uses its internal CA). The official
 * PostgreSQL, Redis, Caddy and coturn images cannot be pulled on CI's machine, so the run uses
 * stand-ins built from Debian 12's packages (test/container/standins/: the same environment
 * variables, arguments, paths and ports), and a copy of the file that differs in only what a
 * machine without Docker Hub, and shared with other runs, needs: those four `image:` names, the
 * base image as a build argument, image tags of its own, Caddy published on one loopback port
 * instead of 80 and 443, coturn's published port (and so Hearth's TURN_URLS and STUN_URLS), its
 * relay range and Janus's RTP range moved to free ones on loopback, and absolute paths for the build
 * contexts and the Caddyfile. Everything else (environment, volumes, order, healthchecks, the
 * Caddyfile, Janus's image) is the file as shipped. Checked: HTTPS through Caddy, discovery's
 * https:// URLs from PUBLIC_URL, /readyz with PostgreSQL and Redis, a registration stored in
 * PostgreSQL with the client's address read through Caddy (TRUST_PROXY), a Socket.IO client over
 * WSS, a voice join granted a Janus room whose token Janus takes through Caddy's
 * wss://.../janus (and no other token), a TURN allocation on coturn with the credential Hearth
 * hands out (and not with another), and Hearth draining on stop. Media are not sent (no browser
 * here). All of it (images but the stand-ins, containers, volumes, network) is removed after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io as connectClient } from "socket.io-client";
import { freePort } from "../../scripts/pg-cluster.ts";
import { turnAllocate } from "../helpers/turn-allocate.ts";
import { must, podman, ROOT } from "./podman.ts";

const STANDINS = join(import.meta.dir, "standins");
const base = process.env.HEARTH_CONTAINER_BASE;
const compose = Bun.which("podman-compose");
const project = `hearthstack${process.pid}`;
const hearthImage = `localhost/hearth:ci-stack-${process.pid}`;
const janusImage = `localhost/hearth-janus:ci-stack-${process.pid}`;
const standin = (service: string) => `localhost/hearth-ci-standin-${service}:bookworm`;
const hex = (bytes: number) => crypto.getRandomValues(new Uint8Array(bytes)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "");
const env = { ...process.env, HEARTH_DOMAIN: "localhost", POSTGRES_PASSWORD: hex(12), JANUS_SECRET: hex(24), TURN_SECRET: hex(32), PUBLIC_IP: "127.0.0.1" };
/** A range of `size` ports from 50000 up, away from the media suites' (20000-49999), different per run. */
const portRange = (size: number, slot: number): [number, number] => {
  const first = 50_000 + (((process.pid * 2 + slot) % 70) * 200);
  return [first, first + size - 1];
};

const container = (service: string) => `${project}_${service}_1`;

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  command?: string[];
}

describe.skipIf(!base || compose === null)("deploy/compose.yaml run with podman-compose", () => {
  let scratch: string;
  let file: string;
  let origin: string;
  let ca: string;
  let turnPort: number;
  let relayRange: [number, number];
  const composeRun = (...args: string[]) => {
    const result = Bun.spawnSync([compose!, "-p", project, "-f", file, ...args], { env, stdout: "pipe", stderr: "pipe", cwd: scratch });
    return { code: result.exitCode ?? 1, out: `${result.stdout.toString()}${result.stderr.toString()}` };
  };
  const get = (path: string) => fetch(`${origin}${path}`, { tls: { ca } });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "hearth-ci-stack-"));
    for (const service of ["postgres", "redis", "caddy", "coturn"]) {
      if (podman("image", "exists", standin(service)).code !== 0) {
        must("build", "--network", "host", "--build-arg", `BASE_IMAGE=${base}`, "-t", standin(service), "-f", join(STANDINS, `${service}.Containerfile`), STANDINS);
      }
    }
    const port = freePort();
    origin = `https://localhost:${port}`;
    const spec = Bun.YAML.parse(readFileSync(join(ROOT, "deploy/compose.yaml"), "utf8")) as { services: Record<string, Service> };
    const { hearth, postgres, redis, caddy, janus, coturn } = spec.services as Record<"hearth" | "postgres" | "redis" | "caddy" | "janus" | "coturn", Service>;
    hearth.image = hearthImage;
    hearth.build = { ...hearth.build!, context: ROOT, args: { BASE_IMAGE: base! } };
    postgres.image = standin("postgres");
    redis.image = standin("redis");
    caddy.image = standin("caddy");
    // Janus's image, from deploy/janus/ as shipped, built here (with the host's network, as the
    // stand-ins are: apt fetches Debian's janus) rather than by podman-compose.
    expect(janus.build).toEqual({ context: "./janus" });
    must("build", "--network", "host", "--build-arg", `BASE_IMAGE=${base}`, "-t", janusImage, join(ROOT, "deploy/janus"));
    janus.image = janusImage;
    delete janus.build;
    const [rtpFirst, rtpLast] = portRange(20, 0);
    janus.environment!.JANUS_RTP_PORTS = `${rtpFirst}-${rtpLast}`;
    janus.ports = [`127.0.0.1:${rtpFirst}-${rtpLast}:${rtpFirst}-${rtpLast}/udp`];
    coturn.image = standin("coturn");
    // coturn's published port and its relay range (published as they are) are moved to free ones.
    turnPort = freePort();
    relayRange = portRange(20, 1);
    const [relayFirst, relayLast] = relayRange;
    const moved: Record<string, string> = { "--min-port=49160": `--min-port=${relayFirst}`, "--max-port=49359": `--max-port=${relayLast}` };
    for (const argument of Object.keys(moved)) expect(coturn.command).toContain(argument);
    coturn.command = coturn.command!.map((argument) => moved[argument] ?? argument);
    expect(coturn.ports).toEqual(["3478:3478/udp", "3478:3478/tcp", "49160-49359:49160-49359/udp"]);
    coturn.ports = [`127.0.0.1:${turnPort}:3478/udp`, `127.0.0.1:${turnPort}:3478/tcp`, `127.0.0.1:${relayFirst}-${relayLast}:${relayFirst}-${relayLast}/udp`];
    for (const name of ["TURN_URLS", "STUN_URLS"]) {
      expect(hearth.environment![name]).toContain(":3478");
      hearth.environment![name] = hearth.environment![name]!.replaceAll(":3478", `:${turnPort}`);
    }
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
    podman("rmi", "-f", hearthImage, janusImage);
    rmSync(scratch, { recursive: true, force: true });
  });

  test("Caddy serves Hearth over HTTPS; discovery is built on PUBLIC_URL; PostgreSQL and Redis are ready", async () => {
    const ready = await get("/readyz");
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", disk: "ok", redis: "ok" } });
    const discovery = (await (await get("/api/v1")).json()) as { gateway: { url: string }; links: { self: string } };
    expect(discovery.gateway.url).toBe("https://localhost");
    expect(discovery.links.self).toBe("https://localhost/api/v1");
    // Nothing but Caddy, Janus's RTP ports and coturn is published.
    for (const service of ["hearth", "postgres", "redis"]) expect(must("port", container(service))).toBe("");
    expect(must("port", container("janus"))).not.toContain("/tcp");
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

  test("a voice join is granted a Janus room; Janus, through Caddy's wss://.../janus, takes that token and no other", async () => {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, { method, tls: { ca }, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as any };
    };
    const created = await api("POST", "/api/v1/servers", { name: "Stack" });
    expect(created.status).toBe(201);
    const voice = await api("POST", `/api/v1/channels/${created.body.id}`, { name: "Lounge", type: "voice" });
    expect(voice.status).toBe(201);
    const socket = connectClient(origin, { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true, ca });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.on("connect", () => resolve());
        socket.on("connect_error", reject);
      });
      const granted = new Promise<{ server: string; url: string; room: string; token: string }>((resolve) => socket.once("voice:media", resolve));
      expect((await socket.emitWithAck("voice:join", { channelId: voice.body.id })).ok).toBe(true);
      const grant = await granted;
      expect(grant).toMatchObject({ server: "janus", url: "wss://localhost/janus", room: voice.body.id });

      // What the page does with the grant: a Janus session with its token, over WSS through Caddy.
      const createSession = (withToken: string) =>
        new Promise<{ janus: string; error?: { code: number } }>((resolve, reject) => {
          const ws = new WebSocket(`wss://localhost:${new URL(origin).port}/janus`, { protocols: ["janus-protocol"], tls: { ca } });
          const timer = setTimeout(() => (ws.close(), reject(new Error("no answer from Janus"))), 10_000);
          ws.onerror = () => reject(new Error("could not open Janus's WebSocket through Caddy"));
          ws.onopen = () => ws.send(JSON.stringify({ janus: "create", transaction: crypto.randomUUID(), token: withToken }));
          ws.onmessage = (event) => {
            clearTimeout(timer);
            ws.close();
            resolve(JSON.parse(String(event.data)));
          };
        });
      expect((await createSession(grant.token)).janus).toBe("success");
      const refused = await createSession("a-token-nobody-was-given");
      expect(refused.janus).toBe("error");
      expect(refused.error?.code).toBe(403);
    } finally {
      socket.close();
    }
  });

  test("coturn relays for the TURN credential Hearth hands out, and for no other", async () => {
    const answer = await fetch(`${origin}/api/v1/voice/ice-servers`, { tls: { ca }, headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    const { ice_servers } = (await answer.json()) as { ice_servers: { urls: string[]; username?: string; credential?: string }[] };
    expect(ice_servers).toEqual([
      { urls: [`stun:localhost:${turnPort}`] },
      { urls: [`turn:localhost:${turnPort}?transport=udp`, `turn:localhost:${turnPort}?transport=tcp`], username: expect.any(String), credential: expect.any(String) },
    ]);
    const turn = ice_servers[1]!;
    const allocated = await turnAllocate("127.0.0.1", turnPort, turn.username!, turn.credential!);
    // The relayed address coturn hands out is PUBLIC_IP's, on a port of its (published) range.
    if (!allocated.ok) throw new Error(`coturn refused the allocation: ${allocated.code} ${allocated.reason}`);
    expect(allocated.relayed.address).toBe(env.PUBLIC_IP);
    expect(allocated.relayed.port).toBeGreaterThanOrEqual(relayRange[0]);
    expect(allocated.relayed.port).toBeLessThanOrEqual(relayRange[1]);
    expect(await turnAllocate("127.0.0.1", turnPort, turn.username!, "not-the-credential")).toEqual({ ok: false, code: 401, reason: "Unauthorized" });
  });

  test("stopping the hearth service drains it to exit 0", () => {
    must("stop", "-t", "30", container("hearth"));
    expect(must("inspect", container("hearth"), "--format", "{{.State.ExitCode}}")).toBe("0");
    const last = podman("logs", container("hearth")).out.split("\n").filter((l) => l.startsWith("{")).at(-1);
    expect(JSON.parse(last!).msg).toBe("stopped");
  });
});
