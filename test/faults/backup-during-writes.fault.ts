/**
 * An online SQLite backup while Hearth writes (docs/operations.md, "Failure modes", "A backup
 * during writes"): Hearth runs as its own process on a database of 200,000 messages (so that
 * the copy takes a while), 8 senders post continuously, and `npm run db:backup`'s script
 * (scripts/db-backup.ts, `VACUUM INTO`) runs beside it. The backup must pass SQLite's integrity
 * check, a Hearth started on a copy of it must serve every message acknowledged before the
 * backup began, and the sends must go on while it runs.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database as SQLite } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMigratedDatabase } from "../../src/store/store.ts";
import { addBulkMessages } from "../helpers/bulk-messages.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { letTimePass } from "../helpers/wait.ts";
import { register, serverWith } from "../cluster/nodes.ts";
import { channelMessageIds, quantile, startSenders, UNLIMITED_SENDS } from "./traffic.ts";

const SENDERS = 8;
const FILLER_MESSAGES = 200_000;
const ROOT = resolve(import.meta.dir, "../..");

describe("npm run db:backup on SQLite while 8 senders write", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-fault-backup-"));
  const restoredDir = mkdtempSync(join(tmpdir(), "hearth-fault-restored-"));
  const backupFile = join(mkdtempSync(join(tmpdir(), "hearth-fault-backup-file-")), "hearth-backup.db");
  const env = { DATA_DIR: dataDir, JWT_SECRET: "fault-backup-secret-fault-backup-secret-0001", ...UNLIMITED_SENDS };
  const running: HearthProcess[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const hearth = await startProcess({ ...env, ...extra });
    running.push(hearth);
    return hearth;
  };
  const stop = async (hearth: HearthProcess) => {
    hearth.proc.kill("SIGTERM");
    await hearth.proc.exited;
  };

  afterAll(async () => {
    for (const hearth of running) {
      hearth.proc.kill("SIGKILL");
      await hearth.proc.exited;
    }
    for (const dir of [dataDir, restoredDir, resolve(backupFile, "..")]) rmSync(dir, { recursive: true, force: true });
  });

  test("the backup passes integrity_check, restores with every message acknowledged before it began, and sends go on during it", async () => {
    // The users, the channel written to and a filler channel, then the filler rows written into
    // the stopped server's file (a real process has no in-process store to fill).
    let hearth = await start();
    const owner = await register(hearth);
    const members = await Promise.all(Array.from({ length: SENDERS - 1 }, () => register(hearth)));
    const { channelId } = await serverWith(hearth, owner, members);
    const filler = await serverWith(hearth, owner, []);
    await stop(hearth);
    const db = await openMigratedDatabase(join(dataDir, "hearth.db"));
    try {
      await addBulkMessages({ app: { store: { db } } }, { ...filler, userId: owner.id }, FILLER_MESSAGES);
    } finally {
      await db.close();
    }
    hearth = await start();

    const senders = startSenders({ url: hearth.url, channelId, tokens: [owner, ...members].map((u) => u.token), tag: "backup" });
    // A process just started answers its first sends slower (several times the steady p50 here),
    // so "before" is the last 1.5 s of 3 s of sends.
    await letTimePass(3_000, "sends flow before the backup");
    const acknowledgedBefore = senders.acknowledged();
    const backupStartedAt = senders.now();
    const backup = Bun.spawn([process.execPath, "scripts/db-backup.ts", backupFile], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([backup.exited, new Response(backup.stdout).text(), new Response(backup.stderr).text()]);
    const backupEndedAt = senders.now();
    await letTimePass(500, "sends flow after the backup");
    await senders.stop();
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toStartWith(`Backed up ${join(dataDir, "hearth.db")} to ${backupFile}.`);

    const { sends } = senders;
    expect(sends.filter((s) => s.status !== 201).map((s) => `${s.status} ${JSON.stringify(s.body)}`)).toEqual([]);
    const latency = (from: number, to: number) => sends.filter((s) => s.startedAt >= from && s.endedAt <= to).map((s) => s.endedAt - s.startedAt);
    const before = latency(backupStartedAt - 1_500, backupStartedAt);
    const during = latency(backupStartedAt, backupEndedAt);
    // Writes went on while the backup read the database: sends were asked and acknowledged inside it.
    expect(during.length).toBeGreaterThan(SENDERS);

    // Consistent: SQLite's own check of every page and index.
    const copy = new SQLite(backupFile, { readonly: true });
    try {
      expect(copy.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      expect(copy.query("SELECT count(*) AS n FROM messages WHERE channel_id = ?").get(filler.channelId)).toEqual({ n: FILLER_MESSAGES });
    } finally {
      copy.close();
    }

    // Restorable as docs/operations.md "Backups" says: the file as hearth.db, with the secrets key.
    copyFileSync(backupFile, join(restoredDir, "hearth.db"));
    if (existsSync(join(dataDir, "secrets.key"))) copyFileSync(join(dataDir, "secrets.key"), join(restoredDir, "secrets.key"));
    const restored = await start({ DATA_DIR: restoredDir });
    const stored = new Set(await channelMessageIds(restored.url, owner.token, channelId));
    expect(acknowledgedBefore.length).toBeGreaterThan(SENDERS);
    expect(acknowledgedBefore.filter((id) => !stored.has(id))).toEqual([]);
    // A snapshot of one moment: nothing in it that was not sent.
    const sent = new Set(sends.flatMap((s) => (s.id ? [s.id] : [])));
    expect([...stored].filter((id) => !sent.has(id))).toEqual([]);

    console.log(
      `backup-during-writes: backup of ${FILLER_MESSAGES} + ${stored.size} messages took ${Math.round(backupEndedAt - backupStartedAt)} ms (process start included); ` +
        `${sends.length} sends, all acknowledged; p50 ${quantile(before, 0.5)} ms before (${before.length} sends), ${quantile(during, 0.5)} ms during (${during.length} sends), ` +
        `p99 ${quantile(before, 0.99)} / ${quantile(during, 0.99)} ms; the restored copy has all ${acknowledgedBefore.length} acknowledged before it began`,
    );
  }, 90_000);
});
