/**
 * deploy/hearth.service run by systemd (252, Debian 12's) as PID 1 of a podman container:
 * CI's machine has no systemd of its own, so the unit gets one here. Privileged, so that
 * systemd may build the unit's sandbox (mount namespaces, seccomp) as on a host. The unit and
 * the binary are installed as deploy/hearth.service says; then: it starts Hearth as the hearth
 * user with the sandbox in force and serves the API, a killed process is restarted
 * (Restart=on-failure), `systemctl stop` drains it to a clean exit, and a bad setting in the
 * environment file stops the restarts after StartLimitBurst. The image with systemd
 * (Debian's packages on the base image) is made once and kept; the rest is removed after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { must, podman, ROOT } from "./podman.ts";

const base = process.env.HEARTH_CONTAINER_BASE;
const SYSTEMD_IMAGE = "localhost/hearth-ci-systemd:bookworm";
const tag = `localhost/hearth-ci-unit:${process.pid}`;
const name = `hearth-ci-systemd-${process.pid}`;

const inside = (command: string) => must("exec", name, "sh", "-c", command);
const show = (property: string) => inside(`systemctl show hearth -p ${property} --value`);

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await Bun.sleep(200);
  }
  throw new Error(`${what}: not within ${ms} ms\n${podman("exec", name, "journalctl", "-u", "hearth", "--no-pager", "-o", "cat").out}`);
}
const healthy = () => podman("exec", name, "curl", "-sf", "http://127.0.0.1:3000/healthz").out === '{"status":"ok"}';

describe.skipIf(!base)("deploy/hearth.service under systemd", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "hearth-ci-systemd-"));
    if (podman("image", "exists", SYSTEMD_IMAGE).code !== 0) {
      // minbase has no systemd: Debian's, from its archive (the build's only network use).
      writeFileSync(
        join(scratch, "Containerfile"),
        [
          "ARG BASE_IMAGE",
          "FROM ${BASE_IMAGE}",
          "RUN mkdir -p /var/log/apt /var/lib/apt/lists/partial /var/cache/apt/archives/partial && apt-get update -qq \\",
          " && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd systemd-sysv curl procps \\",
          " && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man",
          'CMD ["/sbin/init"]',
          "",
        ].join("\n"),
      );
      must("build", "--network", "host", "--build-arg", `BASE_IMAGE=${base}`, "-t", SYSTEMD_IMAGE, "-f", join(scratch, "Containerfile"), scratch);
    }
    // Installed as the unit's header says.
    const context = join(scratch, "context");
    mkdirSync(context);
    cpSync(join(ROOT, "hearth"), join(context, "hearth"));
    cpSync(join(ROOT, "deploy/hearth.service"), join(context, "hearth.service"));
    writeFileSync(
      join(context, "Containerfile"),
      [
        `FROM ${SYSTEMD_IMAGE}`,
        "COPY hearth /usr/local/bin/hearth",
        "COPY hearth.service /etc/systemd/system/hearth.service",
        "RUN chmod 0755 /usr/local/bin/hearth && chmod 0644 /etc/systemd/system/hearth.service \\",
        " && useradd --system --home-dir /var/lib/hearth --shell /usr/sbin/nologin hearth \\",
        " && install -d -m 0750 /etc/hearth && install -m 0600 /dev/null /etc/hearth/hearth.env \\",
        " && systemctl enable hearth",
        "",
      ].join("\n"),
    );
    must("build", "-t", tag, "-f", join(context, "Containerfile"), context);
    must("run", "-d", "--name", name, "--privileged", "--systemd=always", tag, "/sbin/init");
  });
  afterAll(() => {
    podman("rm", "-f", "-v", "-t", "0", name);
    podman("rmi", "-f", tag);
    rmSync(scratch, { recursive: true, force: true });
  });

  test("starts Hearth as the hearth user, inside its sandbox, serving the API from /var/lib/hearth", async () => {
    await until("hearth.service active and /healthz 200", () => podman("exec", name, "systemctl", "is-active", "hearth").out === "active" && healthy());
    const pid = show("MainPID");
    const status = inside(`cat /proc/${pid}/status`);
    const field = (key: string) => new RegExp(`^${key}:\\s*(.*)$`, "m").exec(status)![1]!.trim();
    expect(field("Uid").split(/\s+/)[0]).toBe(inside("id -u hearth"));
    expect(field("CapEff")).toBe("0000000000000000");
    expect(field("CapBnd")).toBe("0000000000000000");
    expect(field("NoNewPrivs")).toBe("1");
    expect(field("Seccomp")).toBe("2");
    // ProtectSystem=strict: / read-only to it, its state directory writable, /tmp its own.
    const mounts = inside(`cat /proc/${pid}/mountinfo`).split("\n").map((line) => line.split(" "));
    const mount = (path: string) => mounts.findLast((m) => m[4] === path);
    expect(mount("/")![5]).toStartWith("ro");
    expect(mount("/var/lib/hearth")![5]).toStartWith("rw");
    expect(mount("/tmp")![3]).toMatch(/systemd-private-.*-hearth\.service-/);

    // A registration exercises what the sandbox might break: argon2, SQLite, the random source.
    const registered = inside(
      `curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d '{"username":"unitci","email":"unit@example.org","password":"correct horse battery staple"}' http://127.0.0.1:3000/api/v1/auth/register`,
    );
    expect(registered).toBe("201");
    expect(inside("stat -c '%U %a' /var/lib/hearth /var/lib/hearth/hearth.db /var/lib/hearth/secrets.key").split("\n")).toEqual(["hearth 700", "hearth 600", "hearth 600"]);
  });

  test("Restart=on-failure: a killed process is started again, on the same data", async () => {
    const pid = show("MainPID");
    inside(`kill -9 ${pid}`);
    await until("restarted", () => show("NRestarts") === "1" && show("MainPID") !== pid && healthy());
    const login = inside(
      `curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d '{"login":"unitci","password":"correct horse battery staple"}' http://127.0.0.1:3000/api/v1/auth/login`,
    );
    expect(login).toBe("200");
  });

  test("systemctl stop sends SIGTERM, Hearth drains and exits 0", () => {
    const started = performance.now();
    inside("systemctl stop hearth");
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(show("ActiveState")).toBe("inactive");
    expect(show("Result")).toBe("success");
    expect(show("ExecMainStatus")).toBe("0");
    const journal = inside(`journalctl -u hearth --no-pager -o cat _PID=${show("ExecMainPID")}`)
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; signal?: string });
    expect(journal.find((line) => line.msg === "draining")?.signal).toBe("SIGTERM");
    expect(journal.at(-1)?.msg).toBe("stopped");
  });

  test("reads /etc/hearth/hearth.env; a bad setting fails a few starts, then leaves the unit failed", async () => {
    inside("echo PORT=abc > /etc/hearth/hearth.env && systemctl reset-failed hearth; systemctl start hearth || true");
    await until("the unit failed", () => show("ActiveState") === "failed", 40_000);
    expect(show("Result")).toBe("exit-code");
    expect(show("ExecMainStatus")).toBe("1");
    const journal = inside("journalctl -u hearth --no-pager -o cat");
    // StartLimitBurst=5: the first start and four restarts, each refusing PORT, then no more.
    expect(journal.split("\n").filter((line) => line === "Invalid configuration: PORT: PORT must be a whole number")).toHaveLength(5);
    expect(journal).toContain("Start request repeated too quickly");
  });
});
