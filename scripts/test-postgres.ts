/**
 * `npm run test:postgres`: the whole test suite against PostgreSQL. Starts a throwaway cluster
 * (scripts/pg-cluster.ts), migrates the database `hearth_template` with Hearth's own migrations,
 * runs `bun test` with HEARTH_TEST_POSTGRES set (every test server gets a copy of the template:
 * test/helpers/database.ts), and removes the cluster after, whatever the outcome. Extra
 * arguments go to `bun test` (e.g. a file to run alone).
 */
import { openMigratedDatabase } from "../src/store/store.ts";
import { createDatabase, startCluster } from "./pg-cluster.ts";
import { runTests } from "./run-tests.ts";

const cluster = await startCluster();
let code = 1;
try {
  const template = await openMigratedDatabase(await createDatabase(cluster.url, "hearth_template"));
  await template.close();
  // Each statement is a round trip to a server here rather than a call into a library, so a
  // test gets more time than bun's default 5 s.
  code = await runTests(["test/"], { HEARTH_TEST_POSTGRES: cluster.url }, 30_000);
} finally {
  await cluster.stop();
}
process.exit(code);
