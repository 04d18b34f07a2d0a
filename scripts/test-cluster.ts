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

const postgres = await startCluster();
let code = 1;
try {
  const redis = await startRedis();
  try {
    const databaseUrl = await createDatabase(postgres.url, "hearth_cluster");
    await (await openMigratedDatabase(databaseUrl)).close();
    const args = process.argv.slice(2);
    // Named *.cluster.ts so that `npm test` (bun test test/) leaves them alone.
    const suites = readdirSync("test/cluster").filter((name) => name.endsWith(".cluster.ts")).sort().map((name) => `./test/cluster/${name}`);
    const child = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...(args.length ? args : suites)], {
      env: { ...process.env, HEARTH_CLUSTER_DATABASE_URL: databaseUrl, HEARTH_CLUSTER_REDIS_URL: redis.url },
      stdio: ["inherit", "inherit", "inherit"],
    });
    const stop = () => child.kill("SIGINT");
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    code = await child.exited;
  } finally {
    await redis.stop();
  }
} finally {
  await postgres.stop();
}
process.exit(code);
