/**
 * `npm run test:cluster`: cluster mode against real services (docs/operations.md, "Running
 * several nodes"). Starts a throwaway PostgreSQL (scripts/pg-cluster.ts) with one migrated
 * database and a throwaway Redis (scripts/redis-server.ts), then runs the suites in
 * test/cluster/*.cluster.ts, which start Hearth node processes on them
 * (test/cluster/nodes.ts). Everything is removed after, whatever the outcome. Extra arguments
 * go to `bun test` (e.g. one file).
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
    const databaseUrl = await createDatabase(postgres.url, "hearth_cluster");
    await (await openMigratedDatabase(databaseUrl)).close();
    // Named *.cluster.ts so that `npm test` (bun test test/) leaves them alone.
    const suites = readdirSync("test/cluster").filter((name) => name.endsWith(".cluster.ts")).sort().map((name) => `./test/cluster/${name}`);
    code = await runTests(suites, { HEARTH_CLUSTER_DATABASE_URL: databaseUrl, HEARTH_CLUSTER_REDIS_URL: redis.url }, 60_000);
  } finally {
    await redis.stop();
  }
} finally {
  await postgres.stop();
}
process.exit(code);
