/**
 * `npm run db:copy` of `--messages` messages (20,000) in one channel from SQLite to PostgreSQL
 * (docs/operations.md, "Moving to PostgreSQL"): s for the copy with this build's statement
 * triggers (migration 22: the message counter and each channel's newest message written once per
 * 1,000-row statement), against the same copy into a database whose messages carry the row
 * triggers of version 21 (one counter update per row, in the copy's one transaction), in the
 * same run. Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/db-copy.ts [--messages 20000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argOf, community, log, ratio, register, startHearth } from "./fixture.ts";
import { createDatabase, postgresBinDir, startCluster } from "../scripts/pg-cluster.ts";
import { copySqliteToPostgres } from "../scripts/db-copy.ts";
import { openMigratedDatabase } from "../src/store/store.ts";

const MESSAGES = Number(argOf("messages", "20000"));

/** Version 21's row triggers on messages, in place of migration 22's statement triggers. */
const ROW_TRIGGERS = `
  DROP TRIGGER messages_count_insert ON messages; DROP TRIGGER messages_count_delete ON messages;
  DROP TRIGGER messages_last_insert ON messages; DROP TRIGGER messages_last_delete ON messages;
  CREATE TRIGGER messages_count AFTER INSERT OR DELETE ON messages FOR EACH ROW EXECUTE FUNCTION platform_count('messages');
  CREATE TRIGGER messages_last_message AFTER INSERT OR DELETE ON messages FOR EACH ROW EXECUTE FUNCTION hearth_channel_last_message();
`;

if (!postgresBinDir()) {
  log("PostgreSQL is not installed (apt-get install postgresql): nothing to measure");
  process.exit(0);
}
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-db-copy-"));
const cluster = await startCluster({ settings: { fsync: "on", full_page_writes: "on" } });
try {
  const { app, api } = await startHearth(dataDir);
  const owner = await register(api, "copy_owner");
  const { serverId, channelId } = await community(app, api, owner);
  const db = app.store.db;
  await db.run(
    db.prepare<unknown, [number, string, string, string, number]>(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
       SELECT printf('0190bbbb-0000-7000-8000-%012x', i), ?2, ?3, ?4, 'message ' || i, ?5 FROM n`,
    ),
    MESSAGES,
    channelId,
    serverId,
    owner.id,
    Math.floor(Date.now() / 1000),
  );
  await app.stop();
  const file = join(dataDir, "hearth.db");

  const copy = async (name: string, prepare?: string) => {
    const url = await createDatabase(cluster.url, name);
    if (prepare) {
      const target = await openMigratedDatabase(url);
      await target.exec(prepare);
      await target.close();
    }
    const t0 = performance.now();
    await copySqliteToPostgres(file, url);
    return (performance.now() - t0) / 1000;
  };
  const statement = await copy("copy_statement_triggers");
  log(`statement triggers: ${MESSAGES.toLocaleString("en")} messages copied in ${statement.toFixed(2)} s`);
  const row = await copy("copy_row_triggers", ROW_TRIGGERS);
  log(`row triggers (version 21): ${row.toFixed(2)} s`);
  console.log(JSON.stringify({ bench: "db-copy", messages: MESSAGES, statement_triggers_s: Math.round(statement * 100) / 100, row_triggers_s: Math.round(row * 100) / 100, speedup: ratio(row, statement) }));
} finally {
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
