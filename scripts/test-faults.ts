/**
 * `npm run test:faults`: the fault suite (docs/operations.md, "Failure modes"). Real processes
 * meet real faults: SIGKILL under concurrent sends, PostgreSQL and Redis stopped and started,
 * a cluster node and a voice room's home node killed, a full disk, a backup during writes.
 *
 * Like the cluster suite it starts a throwaway PostgreSQL with one migrated database and a
 * throwaway Redis, shared by the files that only kill Hearth processes (they import
 * test/cluster/nodes.ts). A file that stops PostgreSQL or Redis starts its own, so the others
 * never see the outage. The files are test/faults/*.fault.ts; extra arguments go to `bun test`.
 */
import { readdirSync } from "node:fs";
import { openMigratedDatabase } from "../src/store/store.ts";
import { createDatabase, startCluster } from "./pg-cluster.ts";
import { startRedis } from "./redis-server.ts";
import { runTests } from "./run-tests.ts";

const postgres = await startCluster();
let code = 1;
try {
  const redis = await startRedis();
  try {
    const databaseUrl = await createDatabase(postgres.url, "hearth_faults");
    await (await openMigratedDatabase(databaseUrl)).close();
    // Named *.fault.ts so that `npm test` (bun test test/) leaves them alone.
    const suites = readdirSync("test/faults").filter((name) => name.endsWith(".fault.ts")).sort().map((name) => `./test/faults/${name}`);
    code = await runTests(suites, { HEARTH_CLUSTER_DATABASE_URL: databaseUrl, HEARTH_CLUSTER_REDIS_URL: redis.url }, 120_000);
  } finally {
    await redis.stop();
  }
} finally {
  await postgres.stop();
}
process.exit(code);
