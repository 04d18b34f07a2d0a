/**
 * A full disk (docs/operations.md, "Failure modes", "Disk full or unwritable"): Hearth runs as
 * its own process on SQLite with DATA_DIR on an 8 MB tmpfs of its own; uploads and sends go on
 * until the disk is full. Every answer is a 201 or `507 {"error": "Insufficient storage: the disk
 * is full"}`, never a 500; a gateway write (`status:set`) is refused with the same error; the log says it once each way; /readyz fails below
 * DATA_DIR_MIN_FREE_MB and the gauge shows why; no upload file is left that no message refers
 * to; once space is freed, sends and uploads are answered again; the database passes
 * `PRAGMA integrity_check`; and a partial upload left by a crash is swept at the next start.
 *
 * Mounting a tmpfs needs root: elsewhere the scenario is skipped, and says so.
 * test/ops/storage-full.test.ts covers the same answers without root (SQLite's max_page_count).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statfsSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/wait.ts";
import { api, connect, DATABASE_URL, emitAck, register, serverWith, type ClusterUser } from "../cluster/nodes.ts";
import { UNLIMITED_SENDS } from "./traffic.ts";

const FULL = { error: "Insufficient storage: the disk is full" };
const MOUNT_MB = 8;
const FLOOR_MB = 1;

/**
 * Every tmpfs this file mounted (at import, whichever scenarios then run), with the folder made
 * for it: unmounted and removed after the file, so a run filtered with `-t` leaves none behind.
 */
const mounts: { at: string; folder: string }[] = [];
afterAll(() => {
  for (const { at, folder } of mounts) {
    Bun.spawnSync(["umount", "-l", at], { stderr: "ignore" });
    rmSync(folder, { recursive: true, force: true });
  }
});

/** Mounts a tmpfs of `MOUNT_MB` at a fresh folder; null (and why) where this machine does not allow it. */
function mountSmallDisk(mode = "0700"): { dir: string } | { why: string } {
  if (process.getuid?.() !== 0) return { why: "mounting a tmpfs needs root" };
  const dir = mkdtempSync(join(tmpdir(), "hearth-fault-disk-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${MOUNT_MB}m,mode=${mode}`, "tmpfs", dir], { stderr: "pipe" });
  if (mounted.exitCode === 0) {
    mounts.push({ at: dir, folder: dir });
    return { dir };
  }
  rmSync(dir, { recursive: true, force: true });
  return { why: `mount -t tmpfs failed: ${mounted.stderr.toString().trim()}` };
}

const disk = mountSmallDisk();
const mounted = "dir" in disk ? disk.dir : null;
if (!mounted) console.warn(`disk-full.fault.ts skipped: ${"why" in disk ? disk.why : ""}`);

/** Writes zeros to `file` until the disk refuses (ENOSPC) or `maxBytes` are written; returns bytes written. */
function fillWith(file: string, maxBytes = Infinity): number {
  const fd = openSync(file, "w");
  const chunk = new Uint8Array(64 * 1024);
  let written = 0;
  try {
    while (written < maxBytes) written += writeSync(fd, chunk, 0, Math.min(chunk.length, maxBytes - written));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

/** Bytes free under `dir`. */
const statfsFree = (dir: string) => {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
};

const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];

/** The process's JSON log lines on stderr (warnings and errors). */
const logLines = (hearth: HearthProcess) =>
  hearth
    .errors()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string });

const metric = async (url: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(await (await fetch(`${url}/metrics`)).text())?.[1]);

describe.skipIf(!mounted)(`DATA_DIR on a ${MOUNT_MB} MB tmpfs filled by uploads and sends`, () => {
  const dataDir = mounted!;
  const env = { DATA_DIR: dataDir, DATA_DIR_MIN_FREE_MB: String(FLOOR_MB), JWT_SECRET: "fault-disk-secret-fault-disk-secret-0123", LOG_FORMAT: "json", ...UNLIMITED_SENDS };
  let hearth: HearthProcess;
  let owner: ClusterUser;
  let channelId: string;

  beforeAll(async () => {
    hearth = await startProcess(env);
    owner = await register(hearth);
    ({ channelId } = await serverWith(hearth, owner, []));
  }, 30_000);
  afterAll(async () => {
    hearth?.proc.kill("SIGKILL");
    await hearth?.proc.exited;
    Bun.spawnSync(["umount", "-l", dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const upload = async (size: number) => {
    const form = new FormData();
    form.append("files", new File([crypto.getRandomValues(new Uint8Array(size))], "blob.bin"));
    const response = await fetch(`${hearth.url}/api/v1/messages/${channelId}/upload`, { method: "POST", headers: { authorization: `Bearer ${owner.token}` }, body: form });
    return { status: response.status, body: (await response.json()) as { error?: string; attachments?: { filename: string }[] } };
  };
  const send = (content: string) => api(hearth, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content } });

  test("507 (never 500) while full, /readyz failing below the floor, no file left behind; answers again once space is freed", async () => {
    const uploads = join(dataDir, "uploads");
    expect((await fetch(`${hearth.url}/readyz`)).status).toBe(200);
    // Most of the disk goes to ballast freed at the end, so the recovery has room above the floor.
    const ballast = join(dataDir, "ballast");
    fillWith(ballast, (MOUNT_MB - 3) * 1024 * 1024);

    // Uploads until the disk refuses one; every answer either stored it or is the 507.
    const stored: string[] = [];
    let refused = 0;
    for (let i = 0; i < 40 && refused === 0; i++) {
      const res = await upload(256 * 1024);
      expect([201, 507]).toContain(res.status);
      if (res.status === 507) {
        expect(res.body).toEqual(FULL);
        refused++;
      } else stored.push(...res.body.attachments!.map((a) => a.filename.split("/").pop()!));
    }
    expect(refused).toBe(1);
    // What little is left goes too, so every write now meets a full disk.
    const topUp = join(dataDir, "top-up");
    fillWith(topUp);

    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await send(`${"x".repeat(2000)} during ${i}`);
      statuses.push(res.status);
      if (res.status !== 201) expect(res.body).toEqual(FULL);
    }
    expect(statuses).not.toContain(500);
    expect(statuses).toContain(507);
    for (let i = 0; i < 3; i++) {
      const res = await upload(64 * 1024);
      expect(res.status).toBe(507);
      expect(res.body).toEqual(FULL);
    }
    const socket = await connect(hearth, owner.token);
    const ack = await emitAck(socket, "status:set", { status: "dnd" });
    // A row rewritten in place may still fit in the WAL: either stored, or the same refusal.
    if (process.env.DEBUG_DISK) console.log({ ack });
    expect([JSON.stringify({ ok: true, status: "dnd" }), JSON.stringify({ ok: false, ...FULL })]).toContain(JSON.stringify(ack));
    socket.close();

    // Free space is measured at most once a second.
    const ready = await eventually(
      async () => {
        const res = await fetch(`${hearth.url}/readyz`);
        return res.status === 503 ? res : null;
      },
      "not ready below the floor",
      { timeoutMs: 3_000, intervalMs: 200 },
    );
    expect(((await ready.json()) as { error: string }).error).toMatch(/disk: \d+ MB free under DATA_DIR, below DATA_DIR_MIN_FREE_MB \(1 MB\)/);
    expect(await metric(hearth.url, "hearth_data_dir_free_bytes")).toBeLessThan(FLOOR_MB * 1024 * 1024);
    expect(await metric(hearth.url, "hearth_storage_full_errors_total")).toBeGreaterThanOrEqual(4);
    expect(await metric(hearth.url, "hearth_storage_writable")).toBe(0);
    // Every file on disk is one a stored message refers to: no partial file, no orphan of a refused upload.
    expect(filesUnder(uploads).sort()).toEqual([...stored].sort());
    const lines = logLines(hearth);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.filter((l) => l.msg.startsWith("insufficient storage")).length).toBeGreaterThanOrEqual(1);

    unlinkSync(ballast);
    unlinkSync(topUp);
    const sent = await eventually(
      async () => {
        const res = await send("after");
        return res.status === 201 ? res : null;
      },
      "a send answered once space is freed",
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(sent.body.content).toBe("after");
    expect((await upload(1024)).status).toBe(201);
    await eventually(async () => (await fetch(`${hearth.url}/readyz`)).status === 200, "ready again", { timeoutMs: 5_000, intervalMs: 200 });
    expect(await metric(hearth.url, "hearth_storage_writable")).toBe(1);
    const after = logLines(hearth);
    // Said once as it started and once as it ended, not per request.
    const warned = after.filter((l) => l.msg.startsWith("insufficient storage")).length;
    expect(warned).toBe(1);
    expect(after.filter((l) => l.msg.startsWith("storage writable again")).length).toBe(1);
    if (process.env.DEBUG_DISK) console.log({ statuses, stored: stored.length, warned });
  }, 60_000);

  test("after a stop the database passes integrity_check; a partial upload a crash left is swept at the next start", async () => {
    hearth.proc.kill("SIGTERM");
    await hearth.proc.exited;
    const db = new Database(join(dataDir, "hearth.db"));
    try {
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    } finally {
      db.close();
    }
    const folder = join(dataDir, "uploads", "attachments");
    mkdirSync(folder, { recursive: true });
    const partial = join(folder, `${Bun.randomUUIDv7()}.bin.${Bun.randomUUIDv7()}.partial`);
    writeFileSync(partial, "cut short");
    hearth = await startProcess(env);
    expect(existsSync(partial)).toBe(false);
    expect(hearth.output()).toContain("removed partial uploads left by an earlier run");
    const page = await api(hearth, "GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token });
    expect(page.status).toBe(200);
    expect((page.body as { content: string }[]).some((m) => m.content === "after")).toBe(true);
  }, 30_000);
});

/**
 * PostgreSQL's disk full (SQLSTATE 53100, "could not extend file"): Hearth's database lives in a
 * tablespace on a tmpfs of its own (the suite's shared cluster keeps its WAL elsewhere, so only
 * this database meets the full disk). Sends answer the same 507, and are stored again once
 * space is freed.
 */
const pgDisk = mounted && DATABASE_URL ? mountSmallDisk("0755") : null;
describe.skipIf(!pgDisk || !("dir" in pgDisk))("PostgreSQL's tablespace on a full tmpfs", () => {
  const disk = (pgDisk as { dir: string } | null)?.dir ?? "";
  const clusterUrl = DATABASE_URL.slice(0, DATABASE_URL.lastIndexOf("/"));
  const name = `hearth_disk_full_${process.pid}`;
  let dataDir = "";
  let hearth: HearthProcess;
  let owner: ClusterUser;
  let channelId: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "hearth-fault-pgdisk-"));
    const space = join(disk, "space");
    mkdirSync(space);
    Bun.spawnSync(["chown", "postgres:postgres", space]);
    const admin = new SQL(`${clusterUrl}/postgres`, { max: 1 });
    try {
      await admin.unsafe(`CREATE TABLESPACE ${name} LOCATION '${space}'`);
      await admin.unsafe(`CREATE DATABASE ${name} TABLESPACE ${name}`);
    } finally {
      await admin.close();
    }
    hearth = await startProcess({ DATA_DIR: dataDir, DATABASE_URL: `${clusterUrl}/${name}`, JWT_SECRET: "fault-disk-secret-fault-disk-secret-0123", LOG_FORMAT: "json", ...UNLIMITED_SENDS });
    owner = await register(hearth);
    ({ channelId } = await serverWith(hearth, owner, []));
  }, 60_000);
  afterAll(async () => {
    hearth?.proc.kill("SIGKILL");
    await hearth?.proc.exited;
    const admin = new SQL(`${clusterUrl}/postgres`, { max: 1 });
    try {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.unsafe(`DROP TABLESPACE IF EXISTS ${name}`);
    } finally {
      await admin.close();
    }
    Bun.spawnSync(["umount", "-l", disk]);
    rmSync(disk, { recursive: true, force: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("sends answer 507 once the tablespace's disk is full, never 500; stored again once space is freed", async () => {
    const send = (content: string) => api(hearth, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content } });
    const ballast = join(disk, "ballast");
    fillWith(ballast, Math.max(0, statfsFree(disk) - 512 * 1024));
    const statuses: number[] = [];
    for (let i = 0; i < 1000 && !statuses.includes(507); i++) {
      const res = await send(`${"y".repeat(3900)} ${i}`);
      statuses.push(res.status);
      if (res.status !== 201) expect(res.body).toEqual(FULL);
    }
    expect(statuses).not.toContain(500);
    expect(statuses).toContain(507);
    expect(await metric(hearth.url, "hearth_storage_full_errors_total")).toBeGreaterThanOrEqual(1);
    expect(logLines(hearth).filter((l) => l.msg.startsWith("insufficient storage")).length).toBeGreaterThanOrEqual(1);
    expect(logLines(hearth).filter((l) => l.level === "error")).toEqual([]);
    unlinkSync(ballast);
    const sent = await eventually(
      async () => {
        const res = await send("after");
        return res.status === 201 ? res : null;
      },
      "a send answered once space is freed",
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(sent.body.content).toBe("after");
    expect(await metric(hearth.url, "hearth_storage_writable")).toBe(1);
    if (process.env.DEBUG_DISK) console.log({ sends: statuses.length, warned: logLines(hearth).filter((l) => l.msg.startsWith("insufficient storage")).length });
  }, 60_000);
});

/**
 * An unwritable data folder: `$DATA_DIR/uploads` on a tmpfs mounted read-only (root writes
 * through any mode bits, so a read-only file system is the refusal root meets; the
 * mode-bits case is test/ops/storage-full.test.ts, skipped as root). Uploads answer
 * `507 {"error": "Insufficient storage: the data folder is not writable"}`, counted and logged
 * once, while text messages, stored in the database, go on without ending the uploads' outage;
 * remounted writable, the next upload is stored and the log says so once.
 */
const UNWRITABLE = { error: "Insufficient storage: the data folder is not writable" };
const readOnlyRoot = mounted ? mkdtempSync(join(tmpdir(), "hearth-fault-ro-")) : null;
const readOnlyMounted =
  readOnlyRoot !== null &&
  (mkdirSync(join(readOnlyRoot, "uploads")), Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700,ro", "tmpfs", join(readOnlyRoot, "uploads")]).exitCode === 0);
if (readOnlyMounted) mounts.push({ at: join(readOnlyRoot, "uploads"), folder: readOnlyRoot });
if (readOnlyRoot !== null && !readOnlyMounted) {
  rmSync(readOnlyRoot, { recursive: true, force: true });
  console.warn("disk-full.fault.ts: the read-only uploads folder could not be mounted; its scenario is skipped");
}
describe.skipIf(!readOnlyMounted)("DATA_DIR/uploads on a read-only file system", () => {
  const dataDir = readOnlyRoot!;
  let hearth: HearthProcess;
  let owner: ClusterUser;
  let channelId: string;

  beforeAll(async () => {
    hearth = await startProcess({ DATA_DIR: dataDir, JWT_SECRET: "fault-disk-secret-fault-disk-secret-0123", LOG_FORMAT: "json", ...UNLIMITED_SENDS });
    owner = await register(hearth);
    ({ channelId } = await serverWith(hearth, owner, []));
  }, 30_000);
  afterAll(async () => {
    hearth?.proc.kill("SIGKILL");
    await hearth?.proc.exited;
    Bun.spawnSync(["umount", "-l", join(dataDir, "uploads")]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("uploads answer 507 naming the unwritable folder, never 500; counted and said once while text sends go on; writable again once remounted", async () => {
    const upload = async () => {
      const form = new FormData();
      form.append("files", new File([crypto.getRandomValues(new Uint8Array(4096))], "blob.bin"));
      const response = await fetch(`${hearth.url}/api/v1/messages/${channelId}/upload`, { method: "POST", headers: { authorization: `Bearer ${owner.token}` }, body: form });
      return { status: response.status, body: await response.json() };
    };
    const send = (content: string) => api(hearth, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content } });
    const warnings = () => logLines(hearth).filter((l) => l.level === "warn" && l.msg.includes("storage")) as { msg: string; problem?: string; place?: string }[];
    for (let i = 0; i < 3; i++) expect(await upload()).toEqual({ status: 507, body: UNWRITABLE });
    // Text goes to the database, which is writable: stored, and no end of the uploads' outage.
    for (let i = 0; i < 3; i++) {
      expect((await send(`text ${i}`)).status).toBe(201);
      expect(await upload()).toEqual({ status: 507, body: UNWRITABLE });
    }
    expect(await metric(hearth.url, "hearth_storage_full_errors_total")).toBe(6);
    expect(await metric(hearth.url, "hearth_storage_writable")).toBe(0);
    expect(warnings().map((l) => [l.msg.split(":")[0], l.problem, l.place])).toEqual([["insufficient storage", "unwritable", "files"]]);
    expect(logLines(hearth).filter((l) => l.level === "error")).toEqual([]);
    expect(filesUnder(join(dataDir, "uploads"))).toEqual([]);
    const page = (await api(hearth, "GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token })).body as { content: string }[];
    expect(page.map((m) => m.content)).toEqual(["text 2", "text 1", "text 0"]);

    expect(Bun.spawnSync(["mount", "-o", "remount,rw", join(dataDir, "uploads")]).exitCode).toBe(0);
    const stored = await upload();
    expect(stored.status).toBe(201);
    expect(await metric(hearth.url, "hearth_storage_writable")).toBe(1);
    expect(warnings().map((l) => l.msg.split(":")[0])).toEqual(["insufficient storage", "storage writable again"]);
    expect(filesUnder(join(dataDir, "uploads"))).toHaveLength(1);
  }, 30_000);
});
