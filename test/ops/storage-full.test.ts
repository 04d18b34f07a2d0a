/**
 * Disk full or unwritable (docs/operations.md, "Failure modes"), the parts that need no root: a
 * SQLite database that may not grow (`PRAGMA max_page_count`, SQLite's own SQLITE_FULL) answers
 * `507 {"error": "Insufficient storage: the disk is full"}` to sends and uploads, never a 500,
 * leaves no upload file behind, counts and logs it, and recovers once it may grow again; /readyz
 * fails while free space under DATA_DIR is below DATA_DIR_MIN_FREE_MB (a floor set above what
 * the disk has); partial uploads of an earlier run are swept at start. A real full disk is
 * test/faults/disk-full.fault.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, utimesSync, writeFileSync, existsSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { loadConfig } from "../../src/config.ts";
import { SqliteDatabase } from "../../src/store/sqlite/sqlite-database.ts";
import { STORAGE_MESSAGES, StorageHealth, storageProblem } from "../../src/store/storage-full.ts";
import { sweepPartialUploads } from "../../src/domain/shared/upload-sweep.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { community } from "../helpers/community.ts";
import { fileForm, PNG_1X1 } from "../helpers/images.ts";

const FULL = { error: "Insufficient storage: the disk is full" };
const onSqlite = !process.env.HEARTH_TEST_POSTGRES;

/** Every file under `dir`, recursively (none when it does not exist). */
const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)) : [];

describe("what counts as a storage failure", () => {
  test("SQLite's full, read-only, cannot-open and I/O errors, file-system codes and PostgreSQL's disk_full; nothing else", () => {
    expect(storageProblem({ code: "SQLITE_FULL" })).toBe("full");
    expect(storageProblem({ code: "ENOSPC" })).toBe("full");
    expect(storageProblem({ code: "EDQUOT" })).toBe("full");
    expect(storageProblem({ errno: "53100" })).toBe("full");
    for (const code of ["SQLITE_READONLY", "SQLITE_READONLY_DBMOVED", "SQLITE_CANTOPEN", "SQLITE_IOERR_WRITE", "EROFS", "EACCES", "EPERM"]) {
      expect(storageProblem({ code })).toBe("unwritable");
    }
    for (const error of [{ code: "SQLITE_CONSTRAINT_UNIQUE" }, { code: "ECONNREFUSED" }, { errno: "53300" }, new Error("x"), null]) {
      expect(storageProblem(error)).toBeNull();
    }
    expect(STORAGE_MESSAGES).toEqual({ full: FULL.error, unwritable: "Insufficient storage: the data folder is not writable" });
  });

  test("the database and the uploaded files are watched apart: a write stored in one does not end the other's outage", async () => {
    const health = new StorageHealth();
    const changes: boolean[] = [];
    health.state.onChange((available) => void changes.push(available));
    const full = Object.assign(new Error("no space"), { code: "ENOSPC" });
    const failing = () => Promise.reject(full);
    await expect(health.guard(failing, undefined, "files")).rejects.toThrow(STORAGE_MESSAGES.full);
    expect([health.failing, health.failingAt("files"), health.failingAt("database"), health.place]).toEqual([true, true, false, "files"]);
    // Text messages stored in the database meanwhile: the uploads' outage goes on, said once.
    for (let i = 0; i < 3; i++) {
      health.guard(() => "stored");
      await expect(health.guard(failing, undefined, "files")).rejects.toThrow(STORAGE_MESSAGES.full);
    }
    expect(changes).toEqual([false]);
    // Both places refuse; the database's recovery alone does not end it.
    const sqliteFull = () => {
      throw Object.assign(new Error("full"), { code: "SQLITE_FULL" });
    };
    expect(() => health.guard(sqliteFull)).toThrow(STORAGE_MESSAGES.full);
    health.guard(() => "stored");
    expect([health.failing, changes]).toEqual([true, [false]]);
    await health.guard(() => Promise.resolve("stored"), undefined, "files");
    expect([health.failing, changes, health.errors]).toEqual([false, [false, true], 5]);
  });

  test("DATA_DIR_MIN_FREE_MB: 64 MB unless set, 0 turns the check off, anything but a whole number is refused", () => {
    expect(loadConfig({}).dataDirMinFreeBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ DATA_DIR_MIN_FREE_MB: "0" }).dataDirMinFreeBytes).toBe(0);
    expect(loadConfig({ DATA_DIR_MIN_FREE_MB: "512" }).dataDirMinFreeBytes).toBe(512 * 1024 * 1024);
    expect(() => loadConfig({ DATA_DIR_MIN_FREE_MB: "lots" })).toThrow("DATA_DIR_MIN_FREE_MB must be a whole number");
    expect(() => loadConfig({ DATA_DIR_MIN_FREE_MB: "-1" })).toThrow("DATA_DIR_MIN_FREE_MB must be a whole number");
  });
});

describe.skipIf(!onSqlite)("SQLite may not grow (SQLITE_FULL)", () => {
  let server: TestServer;
  let owner: TestUser;
  let channelId: string;
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const capture = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: capture("debug"), info: capture("info"), warn: capture("warn"), error: capture("error") };
  let native: SqliteDatabase["native"];

  beforeAll(async () => {
    server = await startServer({}, { logger });
    if (!(server.app.store.db instanceof SqliteDatabase)) throw new Error("expected SQLite");
    native = server.app.store.db.native;
    ({ owner, channelId } = await community(server));
  });
  afterAll(() => server?.stop());

  const send = (content: string) => server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content } });
  const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(String((await server.api("GET", "/metrics")).body))?.[1]);

  test("sends and uploads answer 507 with the documented error, never 500; no file is left; counted and logged; all answers once it may grow", async () => {
    const pages = native.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
    native.exec(`PRAGMA max_page_count = ${pages}`);
    const big = "x".repeat(3000);
    let refused = 0;
    for (let i = 0; i < 300 && refused === 0; i++) {
      const res = await send(`${big} ${i}`);
      expect([201, 507]).toContain(res.status);
      if (res.status === 507) {
        expect(res.body).toEqual(FULL);
        refused++;
      }
    }
    expect(refused).toBe(1);
    for (let i = 0; i < 3; i++) {
      const res = await send(`${big} during ${i}`);
      expect(res.status).toBe(507);
      expect(res.body).toEqual(FULL);
    }
    const form = fileForm("files", PNG_1X1, "a.png");
    form.append("content", `${big} during upload`);
    const upload = await server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: owner.token, raw: form });
    expect(upload.status).toBe(507);
    expect(upload.body).toEqual(FULL);
    // The file was written, then removed when the send it belonged to was refused.
    expect(filesUnder(join(server.dataDir, "uploads"))).toEqual([]);

    expect(await metric("hearth_storage_full_errors_total")).toBeGreaterThanOrEqual(5);
    expect(await metric("hearth_storage_writable")).toBe(0);
    const warned = lines.filter((l) => l.message.startsWith("insufficient storage"));
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned[0]!.fields?.problem).toBe("full");
    expect(lines.filter((l) => l.level === "error")).toEqual([]);

    native.exec("PRAGMA max_page_count = 1073741823");
    const after = await send("after");
    expect(after.status).toBe(201);
    expect(await metric("hearth_storage_writable")).toBe(1);
    expect(lines.filter((l) => l.message.startsWith("storage writable again")).length).toBeGreaterThanOrEqual(1);
    const page = (await server.api("GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token })).body as { content: string }[];
    expect(page.filter((m) => m.content.includes("during"))).toEqual([]);
    expect(native.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  });
});

describe("free space under DATA_DIR", () => {
  test("below DATA_DIR_MIN_FREE_MB /readyz answers 503 naming the disk; the gauge shows the free bytes; 0 leaves the check out", async () => {
    const probe = mkdtempSync(join(tmpdir(), "hearth-floor-"));
    const stats = statfsSync(probe);
    rmSync(probe, { recursive: true });
    const free = stats.bavail * stats.bsize;
    const server = await startServer({ dataDirMinFreeBytes: free + 1024 ** 3 });
    try {
      const res = await server.api("GET", "/readyz");
      expect(res.status).toBe(503);
      expect(res.body.error).toMatch(/^not ready: disk: \d+ MB free under DATA_DIR, below DATA_DIR_MIN_FREE_MB \(\d+ MB\)$/);
      const gauge = Number(/^hearth_data_dir_free_bytes (\d+)$/m.exec(String((await server.api("GET", "/metrics")).body))?.[1]);
      // Others write to this disk too: within a gigabyte of what was measured.
      expect(Math.abs(gauge - free)).toBeLessThan(1024 ** 3);
    } finally {
      await server.stop();
    }
    const unchecked = await startServer({ dataDirMinFreeBytes: 0 });
    try {
      expect((await unchecked.api("GET", "/readyz")).body).toEqual({ status: "ready", checks: { database: "ok" } });
    } finally {
      await unchecked.stop();
    }
  });
});

describe("partial uploads", () => {
  test("the start sweeps files still named *.partial under DATA_DIR/uploads; complete files stay", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hearth-sweep-"));
    const folder = join(dataDir, "uploads", "attachments");
    mkdirSync(folder, { recursive: true });
    const complete = join(folder, "0190aaaa-0000-7000-8000-000000000000.png");
    const partial = join(folder, "0190aaaa-0000-7000-8000-000000000001.png.0190bbbb-0000-7000-8000-000000000000.partial");
    writeFileSync(complete, PNG_1X1);
    writeFileSync(partial, PNG_1X1.subarray(0, 10));
    const server = await startServer({ dataDir });
    try {
      expect(filesUnder(join(dataDir, "uploads"))).toEqual([complete]);
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("with a grace period (cluster mode) a young partial file is left for the node writing it", async () => {
    const root = mkdtempSync(join(tmpdir(), "hearth-sweep-"));
    try {
      mkdirSync(join(root, "avatars"));
      const young = join(root, "avatars", "a.png.1.partial");
      const old = join(root, "avatars", "b.png.2.partial");
      writeFileSync(young, "x");
      writeFileSync(old, "x");
      utimesSync(old, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      expect(await sweepPartialUploads(root, 60_000)).toBe(1);
      expect(filesUnder(root)).toEqual([young]);
      expect(await sweepPartialUploads(join(root, "missing"))).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // Root writes anywhere, so the refusal cannot be shown as root.
  test.skipIf(process.getuid?.() === 0)("an uploads folder the server may not write: 507 naming the folder, not a 500", async () => {
    const server = await startServer();
    const folder = join(server.dataDir, "uploads", "attachments");
    try {
      const { owner, channelId } = await community(server);
      mkdirSync(folder, { recursive: true });
      chmodSync(folder, 0o500);
      const res = await server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: owner.token, raw: fileForm("files", PNG_1X1, "a.png") });
      expect(res.status).toBe(507);
      expect(res.body).toEqual({ error: "Insufficient storage: the data folder is not writable" });
    } finally {
      chmodSync(folder, 0o700);
      await server.stop();
    }
  });
});
