/**
 * deploy/compose.yaml, deploy/Caddyfile and deploy/Dockerfile read as a compose tool and a
 * container builder would (docs/operations.md, "Deploying"), without running anything: every
 * service, how Hearth reaches the others, the volumes, the healthchecks, the published ports.
 * (`npm run test:container` builds and runs the image, and the stack with stand-ins for the
 * images CI cannot pull: test/container/compose-stack.container.ts.)
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[]; interval?: string };
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  stop_signal?: string;
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const compose = Bun.YAML.parse(read("deploy/compose.yaml")) as Compose;
const { hearth, postgres, redis, caddy, janus, coturn } = compose.services;
/** The variables Hearth reads: the Configuration table of docs/operations.md. */
const documentedVariables = new Set([...read("docs/operations.md").matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));

/** `${NAME:?message}` and `${NAME}` as compose substitutes them. */
function substitute(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::\?[^}]*)?\}/g, (_, name: string) => {
    if (!(name in env)) throw new Error(`${name} is required`);
    return env[name]!;
  });
}
const env = { POSTGRES_PASSWORD: "pw", HEARTH_DOMAIN: "chat.example.org", JANUS_SECRET: "janus-secret-0123456789", TURN_SECRET: "turn-secret-0123456789", PUBLIC_IP: "203.0.113.10" };
const substituted = (service: Service) => Object.fromEntries(Object.entries(service.environment!).map(([k, v]) => [k, substitute(v, env)]));

/** The Dockerfile's instructions, continuation lines joined. */
const dockerfile = read("deploy/Dockerfile")
  .replace(/\\\n/g, " ")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
  .map((line) => {
    const [, instruction, rest] = /^\s*([A-Z]+)\s+(.*)$/.exec(line)!;
    return { instruction: instruction!, args: rest!.trim() };
  });
const instruction = (name: string) => dockerfile.filter((i) => i.instruction === name).map((i) => i.args);

describe("deploy/compose.yaml", () => {
  test("has Hearth, PostgreSQL, Redis, Caddy, Janus and coturn", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["caddy", "coturn", "hearth", "janus", "postgres", "redis"]);
    expect(janus!.build).toEqual({ context: "./janus" });
    expect(coturn!.image).toMatch(/^docker\.io\/coturn\/coturn:4\./);
    expect(hearth!.build).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" });
    expect(postgres!.image).toMatch(/^docker\.io\/library\/postgres:1[5-9]/);
    expect(redis!.image).toMatch(/^docker\.io\/library\/redis:7/);
    expect(caddy!.image).toMatch(/^docker\.io\/library\/caddy:2/);
    for (const service of Object.values(compose.services)) expect(service.restart).toBe("unless-stopped");
  });

  test("Hearth reaches PostgreSQL and Redis as the services they are, with PostgreSQL's own credentials", () => {
    const hearthEnv = substituted(hearth!);
    const pgEnv = substituted(postgres!);
    const url = new URL(hearthEnv.DATABASE_URL!);
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("postgres");
    expect(url.port).toBe("5432");
    expect(decodeURIComponent(url.username)).toBe(pgEnv.POSTGRES_USER!);
    expect(decodeURIComponent(url.password)).toBe(pgEnv.POSTGRES_PASSWORD!);
    expect(url.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
    expect(hearthEnv.REDIS_URL).toBe("redis://redis:6379");
    expect(hearthEnv.PUBLIC_URL).toBe("https://chat.example.org");
    expect(hearthEnv.TRUST_PROXY).toBe("uniquelocal");
    // Every variable given to Hearth is one it reads.
    for (const name of Object.keys(hearthEnv)) expect({ name, documented: documentedVariables.has(name) }).toEqual({ name, documented: true });
    // Unset, the stack refuses to start rather than run with an empty password.
    expect(() => substitute(hearth!.environment!.DATABASE_URL!, { HEARTH_DOMAIN: "x" })).toThrow("POSTGRES_PASSWORD is required");
  });

  test("Hearth's voice goes through the Janus and coturn of the stack, with the secrets they share", () => {
    const hearthEnv = substituted(hearth!);
    const janusEnv = substituted(janus!);
    expect(hearthEnv.JANUS_URL).toBe("wss://chat.example.org/janus");
    expect(hearthEnv.JANUS_ADMIN_URL).toBe("http://janus:7088/admin");
    expect(hearthEnv.JANUS_SECRET).toBe(janusEnv.JANUS_SECRET!);
    expect(janusEnv.JANUS_PUBLIC_IP).toBe("203.0.113.10");
    // The RTP range Janus uses is the one published, port for port.
    expect(janus!.ports).toEqual([`${janusEnv.JANUS_RTP_PORTS}:${janusEnv.JANUS_RTP_PORTS}/udp`]);
    const command = coturn!.command!.map((argument) => substitute(argument, env));
    expect(command).toContain(`--static-auth-secret=${hearthEnv.TURN_SECRET}`);
    expect(command).toContain("--use-auth-secret");
    expect(command).toContain("--realm=chat.example.org");
    expect(command).toContain("--listening-port=3478");
    expect(hearthEnv.TURN_URLS).toBe("turn:chat.example.org:3478?transport=udp,turn:chat.example.org:3478?transport=tcp");
    expect(hearthEnv.STUN_URLS).toBe("stun:chat.example.org:3478");
    expect(command).toContain("--external-ip=203.0.113.10");
    // Never a relay into the host's own networks.
    for (const range of ["10.0.0.0-10.255.255.255", "172.16.0.0-172.31.255.255", "192.168.0.0-192.168.255.255", "127.0.0.0-127.255.255.255"]) expect(command).toContain(`--denied-peer-ip=${range}`);
    // Unset, each stops the stack before it starts.
    const everything = [...Object.values(hearth!.environment!), ...Object.values(janus!.environment!), ...coturn!.command!];
    for (const name of ["JANUS_SECRET", "TURN_SECRET", "PUBLIC_IP"]) {
      const without: Record<string, string> = { ...env };
      delete without[name];
      expect(() => everything.map((value) => substitute(value, without))).toThrow(`${name} is required`);
    }
    // Every secret compose needs is in the example .env.
    const example = read("deploy/compose.env.example");
    for (const name of Object.keys(env)) expect(example).toMatch(new RegExp(`^${name}=`, "m"));
  });

  test("deploy/janus/: Debian's janus, as a user of its own, configured from the environment at start", () => {
    const janusfile = read("deploy/janus/Dockerfile");
    expect(janusfile).toContain("apt-get install -y -qq --no-install-recommends janus");
    expect(janusfile).toContain("USER janus:janus");
    expect(janusfile).toContain('ENTRYPOINT ["/usr/local/bin/janus-entrypoint"]');
    const entrypoint = read("deploy/janus/janus-entrypoint");
    for (const line of ['admin_secret = "$JANUS_SECRET"', 'admin_key = "$JANUS_SECRET"', "token_auth = true", "string_ids = true", 'nat_1_1_mapping = "$JANUS_PUBLIC_IP"', "ws_port = 8188", "admin_port = 7088", 'admin_base_path = "/admin"', "http = false"]) {
      expect(entrypoint).toContain(line);
    }
  });

  test("keeps each service's data in a named volume, Hearth's at the image's DATA_DIR", () => {
    const dataDir = /DATA_DIR=(\S+)/.exec(instruction("ENV").join(" "))![1]!;
    expect(hearth!.volumes).toEqual([`hearth-data:${dataDir}`]);
    expect(hearth!.environment!.DATA_DIR).toBe(dataDir);
    expect(postgres!.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
    expect(redis!.volumes).toEqual(["redis-data:/data"]);
    expect(caddy!.volumes).toEqual(["./Caddyfile:/etc/caddy/Caddyfile:ro", "caddy-data:/data", "caddy-config:/config"]);
    // Janus keeps nothing (Hearth makes its rooms again), coturn neither.
    expect([janus!.volumes, coturn!.volumes]).toEqual([undefined, undefined]);
    expect(Object.keys(compose.volumes).sort()).toEqual(["caddy-config", "caddy-data", "hearth-data", "postgres-data", "redis-data"]);
  });

  test("checks the health of Hearth and what it stands on, and starts each after what it needs", () => {
    expect(postgres!.healthcheck!.test).toEqual(["CMD", "pg_isready", "--username=hearth", "--dbname=hearth"]);
    expect(redis!.healthcheck!.test).toEqual(["CMD", "redis-cli", "ping"]);
    expect(hearth!.healthcheck!.test[0]).toBe("CMD-SHELL");
    expect(hearth!.healthcheck!.test[1]).toContain("http://127.0.0.1:3000/healthz");
    expect(hearth!.depends_on).toEqual({ postgres: { condition: "service_healthy" }, redis: { condition: "service_healthy" }, janus: { condition: "service_started" } });
    expect(caddy!.depends_on).toEqual({ hearth: { condition: "service_healthy" }, janus: { condition: "service_started" } });
  });

  test("publishes Caddy, and Janus's RTP ports alone; gives Hearth's stop longer than its drain", () => {
    expect(caddy!.ports).toEqual(["80:80", "443:443", "443:443/udp"]);
    expect(janus!.ports).toEqual(["20000-20199:20000-20199/udp"]);
    // coturn's relay range, published port for port, is the one it allocates from.
    const command = coturn!.command!;
    const relay = `${/--min-port=(\d+)/.exec(command.join(" "))![1]}-${/--max-port=(\d+)/.exec(command.join(" "))![1]}`;
    expect(coturn!.ports).toEqual(["3478:3478/udp", "3478:3478/tcp", `${relay}:${relay}/udp`]);
    for (const name of ["hearth", "postgres", "redis"]) expect({ name, ports: compose.services[name]!.ports }).toEqual({ name, ports: undefined });
    expect(hearth!.stop_signal).toBe("SIGTERM");
    expect(hearth!.stop_grace_period).toBe("30s");
  });

  test("the Caddyfile is the documented one, proxying to the Hearth service's port, and /janus to Janus's WebSocket", () => {
    const site = read("deploy/Caddyfile").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    expect(site).toEqual(["{$HEARTH_DOMAIN} {", "\treverse_proxy /janus janus:8188", "\treverse_proxy hearth:3000", "}"]);
    // docs/operations.md, "Behind a reverse proxy": the same block, for one site.
    expect(read("docs/operations.md")).toContain("chat.example.org {\n  \treverse_proxy 127.0.0.1:3000\n  }");
    expect(caddy!.environment!.HEARTH_DOMAIN).toContain("HEARTH_DOMAIN");
  });
});

describe("deploy/Dockerfile", () => {
  test("runs the binary from the build context as PID 1, as a user of its own, with a volume for DATA_DIR", () => {
    expect(instruction("COPY")).toEqual(["--chmod=0755 hearth /usr/local/bin/hearth", "--chmod=0755 deploy/hearth-backup /usr/local/bin/hearth-backup"]);
    expect(instruction("ENTRYPOINT")).toEqual(['["/usr/local/bin/hearth"]']);
    expect(instruction("CMD")).toEqual([]);
    expect(instruction("USER")).toEqual(["hearth:hearth"]);
    expect(instruction("VOLUME")).toEqual(["/data"]);
    expect(instruction("ENV").join(" ")).toContain("DATA_DIR=/data");
    expect(instruction("STOPSIGNAL")).toEqual(["SIGTERM"]);
    expect(instruction("HEALTHCHECK")[0]).toContain("/healthz");
  });

  test(".dockerignore sends the binary and the backup script alone", () => {
    expect(read(".dockerignore").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"))).toEqual(["*", "!hearth", "!deploy/hearth-backup"]);
  });
});
