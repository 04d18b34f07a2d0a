/**
 * deploy/compose.yaml exactly as shipped, as Debian's podman-compose (1.0.3) reads it:
 * `--dry-run up` prints the podman commands it would run, which are checked (the services in
 * dependency order, the environment after substitution, volumes, network aliases,
 * healthchecks, ports). (compose-stack.container.ts runs the stack, on stand-in images.) The
 * dry run still creates the project's volumes and network; they are removed after.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const compose = Bun.which("podman-compose");
const project = `hearthci${process.pid}`;
const volumes = ["hearth-data", "postgres-data", "redis-data", "caddy-data", "caddy-config"];

describe.skipIf(compose === null || !process.env.HEARTH_CONTAINER_CONTEXT)("deploy/compose.yaml under podman-compose", () => {
  afterAll(() => {
    for (const volume of volumes) Bun.spawnSync(["podman", "volume", "rm", "-f", `${project}_${volume}`], { stdout: "ignore", stderr: "ignore" });
    Bun.spawnSync(["podman", "network", "rm", "-f", `${project}_default`], { stdout: "ignore", stderr: "ignore" });
  });

  test("would run PostgreSQL, Redis, Janus and coturn, then Hearth on them, then Caddy in front, publishing Caddy, Janus's RTP ports and coturn alone", () => {
    const result = Bun.spawnSync([compose!, "--dry-run", "-p", project, "-f", "deploy/compose.yaml", "up", "-d"], {
      cwd: ROOT,
      env: { ...process.env, POSTGRES_PASSWORD: "s3cret", HEARTH_DOMAIN: "chat.example.org", JANUS_SECRET: "janus-s3cret-0123456789", TURN_SECRET: "turn-s3cret-0123456789", PUBLIC_IP: "203.0.113.10" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = `${result.stdout.toString()}${result.stderr.toString()}`;
    expect(result.exitCode).toBe(0);
    const runs = output.split("\n").filter((line) => line.startsWith("podman run "));
    const service = (line: string) => /--name=\S+?_(\w+)_1 /.exec(line)![1];
    expect(runs.map(service)).toEqual(["postgres", "redis", "janus", "coturn", "hearth", "caddy"]);
    const [postgres, redis, janus, coturn, hearth, caddy] = runs as [string, string, string, string, string, string];

    expect(postgres).toContain("-e POSTGRES_PASSWORD=s3cret");
    expect(postgres).toContain(`-v ${project}_postgres-data:/var/lib/postgresql/data`);
    expect(postgres).toContain("--healthcheck-command");
    expect(redis).toContain(`-v ${project}_redis-data:/data`);
    expect(redis).toContain("--healthcheck-command");

    expect(hearth).toContain("-e DATABASE_URL=postgres://hearth:s3cret@postgres:5432/hearth");
    expect(hearth).toContain("-e REDIS_URL=redis://redis:6379");
    expect(hearth).toContain("-e PUBLIC_URL=https://chat.example.org");
    expect(hearth).toContain(`-v ${project}_hearth-data:/data`);
    expect(hearth).toContain("--network-alias hearth");
    expect(hearth).toContain("--stop-signal SIGTERM");
    expect(hearth).toContain("--healthcheck-command");
    expect(hearth).toMatch(/ localhost\/hearth:latest$/);
    expect(hearth).toContain("-e JANUS_URL=wss://chat.example.org/janus -e JANUS_ADMIN_URL=http://janus:7088/admin -e JANUS_SECRET=janus-s3cret-0123456789");
    expect(hearth).toContain("-e TURN_SECRET=turn-s3cret-0123456789");

    expect(janus).toContain("-e JANUS_SECRET=janus-s3cret-0123456789 -e JANUS_PUBLIC_IP=203.0.113.10 -e JANUS_RTP_PORTS=20000-20199");
    expect(janus).toContain("--network-alias janus");
    expect(janus).toContain("-p 20000-20199:20000-20199/udp");
    expect(janus).toMatch(/ localhost\/hearth-janus:latest$/);
    expect(coturn).toContain("-p 3478:3478/udp -p 3478:3478/tcp -p 49160-49359:49160-49359/udp");
    expect(coturn).toContain(" docker.io/coturn/coturn:4.6 -n --log-file=stdout --listening-port=3478 --min-port=49160 --max-port=49359 --external-ip=203.0.113.10 --realm=chat.example.org --use-auth-secret --static-auth-secret=turn-s3cret-0123456789 ");

    expect(caddy).toContain("-e HEARTH_DOMAIN=chat.example.org");
    expect(caddy).toContain(`-v ${join(ROOT, "deploy/Caddyfile")}:/etc/caddy/Caddyfile:ro`);
    expect(caddy).toContain("-p 80:80 -p 443:443 -p 443:443/udp");
    for (const line of [postgres, redis, hearth]) expect(line).not.toMatch(/ -p \d/);
    // The image is built from the repository's root with deploy/Dockerfile; Janus's from deploy/janus/.
    expect(output).toMatch(/podman build -t localhost\/hearth:latest -f \S*deploy\/Dockerfile \S+/);
    expect(output).toContain("podman build -t localhost/hearth-janus:latest -f ./janus/Dockerfile ./janus");
  });
});
