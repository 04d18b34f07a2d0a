/**
 * `npm run test:container`: builds the Hearth image from deploy/Dockerfile with podman and runs
 * it (test/container/*.container.ts; docs/operations.md, "Deploying"). Needs podman (and runc
 * where crun cannot run here), debootstrap for the base image the first time, and `npm run
 * build:binary`'s ./hearth, which it builds unless HEARTH_BINARY names one already built (copied
 * to ./hearth).
 *
 * There is no Docker Hub here, so the base image, Debian 12's slim image in the Dockerfile, is
 * made from Debian's packages with debootstrap (minbase, documentation and caches removed) and
 * imported as localhost/debian:bookworm-slim, once: later runs reuse it from podman's storage.
 *
 * Machines without systemd, on hybrid cgroups or without CAP_SYS_RESOURCE (CI's VM is all
 * three) cannot run podman's defaults (crun, systemd cgroups, rlimits raised past the
 * process's own): when a trial container fails to start, the run uses a containers.conf of its
 * own (CONTAINERS_CONF) with runc, cgroupfs and the process's limits, and says so.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTests } from "./run-tests.ts";

const ROOT = join(import.meta.dir, "..");
const BASE_IMAGE = "localhost/debian:bookworm-slim";
const DEBIAN_MIRROR = process.env.DEBIAN_MIRROR ?? "http://deb.debian.org/debian";

function sh(args: string[], env: Record<string, string | undefined> = process.env, quiet = false): { code: number; out: string } {
  const result = Bun.spawnSync(args, { env, stdout: "pipe", stderr: "pipe", cwd: ROOT });
  const out = `${result.stdout.toString()}${result.stderr.toString()}`;
  if (!quiet && result.exitCode !== 0) console.error(out);
  return { code: result.exitCode ?? 1, out };
}

function must(args: string[], env?: Record<string, string | undefined>): string {
  const result = sh(args, env);
  if (result.code !== 0) throw new Error(`${args.join(" ")} failed (${result.code})`);
  return result.out;
}

const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const scratch = mkdtempSync(join(tmpdir(), "hearth-container-"));
let code = 1;
try {
  if (!Bun.which("podman")) throw new Error("podman is not installed (Debian: apt-get install podman runc)");

  // The base image, made once.
  if (sh(["podman", "image", "exists", BASE_IMAGE]).code !== 0) {
    if (!Bun.which("debootstrap")) throw new Error(`${BASE_IMAGE} is missing and debootstrap is not installed`);
    const rootfs = join(scratch, "rootfs");
    console.log(`making ${BASE_IMAGE} with debootstrap from ${DEBIAN_MIRROR}`);
    must(["debootstrap", "--variant=minbase", "bookworm", rootfs, DEBIAN_MIRROR]);
    // As Debian's slim image: no documentation, manuals or translations, no package lists or
    // caches (their folders stay: apt needs them).
    for (const dir of ["usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale"]) {
      rmSync(join(rootfs, dir), { recursive: true, force: true });
    }
    must(["sh", "-c", `find '${rootfs}/var/lib/apt/lists' '${rootfs}/var/cache/apt' -type f -delete`]);
    must(["sh", "-c", `tar -C '${rootfs}' -c . | podman import --change 'CMD ["/bin/bash"]' - ${BASE_IMAGE}`]);
    rmSync(rootfs, { recursive: true, force: true });
    console.log(`${BASE_IMAGE} made (${seconds()} s)`);
  }

  // Podman's defaults, or what this machine can run.
  const env: Record<string, string | undefined> = { ...process.env };
  if (sh(["podman", "run", "--rm", BASE_IMAGE, "true"], env, true).code !== 0) {
    const limit = (flag: string) => must(["sh", "-c", `ulimit ${flag}`]).trim();
    const conf = join(scratch, "containers.conf");
    writeFileSync(
      conf,
      [
        "[containers]",
        // Podman raises nofile and nproc for root, which needs CAP_SYS_RESOURCE; at most what
        // this process has (and nproc at 32768, the most this VM's kernel let runc set).
        `default_ulimits = ["nofile=${limit("-Sn")}:${limit("-Hn")}", "nproc=32768:32768"]`,
        "[engine]",
        `runtime = "${Bun.which("runc") ? "runc" : "crun"}"`,
        'cgroup_manager = "cgroupfs"',
        'events_logger = "file"',
        "",
      ].join("\n"),
    );
    env.CONTAINERS_CONF = conf;
    const trial = sh(["podman", "run", "--rm", BASE_IMAGE, "true"], env);
    if (trial.code !== 0) throw new Error("podman cannot run a container here, even with runc and cgroupfs");
    console.log(`podman's defaults cannot run here; using ${conf}:\n${readFileSync(conf, "utf8")}`);
  }

  // The build context is the repository's root, as for a host: .dockerignore lets only ./hearth
  // and deploy/hearth-backup through. HEARTH_BINARY, when set, is put in place as ./hearth.
  if (process.env.HEARTH_BINARY) {
    if (!existsSync(process.env.HEARTH_BINARY)) throw new Error(`HEARTH_BINARY: ${process.env.HEARTH_BINARY} does not exist`);
    cpSync(process.env.HEARTH_BINARY, join(ROOT, "hearth"));
  } else {
    const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    if (!scripts["build:binary"]) throw new Error("no `npm run build:binary` to make ./hearth, and HEARTH_BINARY is unset");
    must(["npm", "run", "-s", "build:binary"]);
    console.log(`built ./hearth (${seconds()} s)`);
  }
  if (!existsSync(join(ROOT, "hearth"))) throw new Error("./hearth is missing");

  const suites = readdirSync(join(ROOT, "test/container")).filter((name) => name.endsWith(".container.ts")).sort().map((name) => `./test/container/${name}`);
  // runTests passes process.env on: the containers.conf must be in it.
  if (env.CONTAINERS_CONF) process.env.CONTAINERS_CONF = env.CONTAINERS_CONF;
  code = await runTests(suites, { HEARTH_CONTAINER_CONTEXT: ROOT, HEARTH_CONTAINER_BASE: BASE_IMAGE }, 120_000);
} catch (error) {
  console.error(`test:container: ${(error as Error).message}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`test:container took ${seconds()} s`);
}
process.exit(code);
