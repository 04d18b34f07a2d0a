/**
 * deploy/hearth.service (docs/operations.md, "Deploying"): systemd's own checker accepts it as
 * shipped, and it holds the settings the docs promise (a dedicated user, the state directory as
 * DATA_DIR, hardening, restart on failure, a stop that outlasts the drain). It is checked
 * offline: `systemd-analyze verify` and `security --offline` on a scratch root holding the unit
 * at /etc/systemd/system, an executable at its ExecStart path and the machine's own systemd
 * units (it needs no running systemd). Skipped where systemd-analyze is missing (.ci/run
 * installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadConfig } from "../../src/config.ts";

const ROOT = join(import.meta.dir, "..", "..");
const UNIT = join(ROOT, "deploy", "hearth.service");
const analyze = Bun.which("systemd-analyze");
const SYSTEM_UNITS = "/usr/lib/systemd/system";

/** The unit's settings by section, each key with every value it is given, in order. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0 || !current) throw new Error(`not a setting: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const unit = parseUnit(readFileSync(UNIT, "utf8"));
const service = unit.get("Service")!;
/** The value a key ends with (systemd: the last assignment wins). */
const last = (key: string) => service.get(key)?.at(-1);

/** systemd's seconds syntax as the unit uses it: `30`, `30s`, `1min 30s`. */
function seconds(value: string): number {
  let total = 0;
  for (const [, n, u] of value.matchAll(/(\d+)\s*(ms|s|sec|min|m|h)?/g)) {
    const k = u === "ms" ? 0.001 : u === "min" || u === "m" ? 60 : u === "h" ? 3600 : 1;
    total += Number(n) * k;
  }
  return total;
}

describe("deploy/hearth.service settings", () => {
  test("runs the binary as a dedicated user with the state directory as DATA_DIR", () => {
    const execStart = last("ExecStart")!;
    expect(execStart).toBe("/usr/local/bin/hearth");
    expect(last("User")).toBe("hearth");
    expect(last("Group")).toBe("hearth");
    expect(service.has("DynamicUser")).toBe(false);
    expect(last("StateDirectory")).toBe("hearth");
    expect(last("StateDirectoryMode")).toBe("0700");
    const environment = service.get("Environment")!;
    expect(environment).toContain("DATA_DIR=/var/lib/hearth");
    expect(last("WorkingDirectory")).toBe("/var/lib/hearth");
    // Optional (the leading '-'): the unit starts with no environment file at all.
    expect(service.get("EnvironmentFile")).toEqual(["-/etc/hearth/hearth.env"]);
    expect(unit.get("Install")!.get("WantedBy")).toEqual(["multi-user.target"]);
  });

  test("is hardened: no privileges, a read-only system, private /tmp and devices", () => {
    for (const [key, value] of [
      ["NoNewPrivileges", "yes"],
      ["ProtectSystem", "strict"],
      ["ProtectHome", "yes"],
      ["PrivateTmp", "yes"],
      ["PrivateDevices", "yes"],
      ["ProtectKernelTunables", "yes"],
      ["ProtectKernelModules", "yes"],
      ["ProtectControlGroups", "yes"],
      ["RestrictSUIDSGID", "yes"],
      ["RestrictNamespaces", "yes"],
      ["LockPersonality", "yes"],
      ["UMask", "0077"],
      ["CapabilityBoundingSet", ""],
      ["AmbientCapabilities", ""],
    ] as const) {
      expect({ key, value: last(key) }).toEqual({ key, value });
    }
    expect(last("RestrictAddressFamilies")!.split(/\s+/).sort()).toEqual(["AF_INET", "AF_INET6", "AF_UNIX"]);
    // Bun's JIT writes the code it runs: MemoryDenyWriteExecute would kill it.
    expect(service.has("MemoryDenyWriteExecute")).toBe(false);
  });

  test("restarts on failure, and stops with SIGTERM given longer than the drain can take", () => {
    expect(last("Restart")).toBe("on-failure");
    expect(last("KillSignal")).toBe("SIGTERM");
    // src/main.ts: the drain waits DRAIN_TIMEOUT_MS, and the process gives up 15 s after that.
    const drainSeconds = loadConfig({}).drainTimeoutMs / 1000 + 15;
    expect(seconds(last("TimeoutStopSec")!)).toBeGreaterThan(drainSeconds);
  });
});

describe.skipIf(analyze === null)("deploy/hearth.service under systemd-analyze", () => {
  let root: string;
  const binary = () => join(root, "usr/local/bin/hearth");

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "hearth-unit-"));
    mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
    cpSync(UNIT, join(root, "etc/systemd/system/hearth.service"));
    // The targets it names (multi-user.target, network-online.target, sysinit.target...).
    mkdirSync(join(root, "usr/lib/systemd"), { recursive: true });
    cpSync(SYSTEM_UNITS, join(root, SYSTEM_UNITS), { recursive: true, verbatimSymlinks: true });
    mkdirSync(dirname(binary()), { recursive: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function run(args: string[]) {
    const result = Bun.spawnSync([analyze!, ...args, `--root=${root}`, "hearth.service"], { stdout: "pipe", stderr: "pipe" });
    return { code: result.exitCode, output: `${result.stdout.toString()}${result.stderr.toString()}` };
  }

  test("verify passes with no warning, and fails without the binary", () => {
    writeFileSync(binary(), "#!/bin/sh\n");
    chmodSync(binary(), 0o755);
    expect(run(["verify"])).toEqual({ code: 0, output: "" });

    rmSync(binary());
    const missing = run(["verify"]);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain("/usr/local/bin/hearth is not executable");
  });

  test("security rates its exposure 2.0 or lower (systemd's 'OK')", () => {
    writeFileSync(binary(), "#!/bin/sh\n");
    chmodSync(binary(), 0o755);
    const result = run(["security", "--offline=yes", "--threshold=20", "--no-pager"]);
    expect(result.output).toMatch(/Overall exposure level for hearth\.service: [0-2]\.\d OK/);
    expect(result.code).toBe(0);
  });
});
