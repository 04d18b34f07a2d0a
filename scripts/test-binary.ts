/**
 * `npm run test:binary`: builds the single binary (scripts/build-binary.ts) for this machine and
 * cross-compiled for linux-arm64, then runs the suites in test/binary/*.binary.ts against them
 * (docs/operations.md, "Single binary"). Both builds go to a temp folder, removed after, so the
 * suite neither needs nor touches a ./hearth of the developer's. For the binary's cluster mode
 * it also starts a throwaway PostgreSQL (scripts/pg-cluster.ts, the database left unmigrated:
 * the binary's own migrations run) and Redis (scripts/redis-server.ts). Everything is removed
 * after, whatever the outcome. Extra arguments go to `bun test` (e.g. one file).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, startCluster } from "./pg-cluster.ts";
import { startRedis } from "./redis-server.ts";
import { runTests } from "./run-tests.ts";

const out = mkdtempSync(join(tmpdir(), "hearth-binary-build-"));
let code = 1;
try {
  const builds: [string, string[]][] = [
    [join(out, "hearth"), []],
    [join(out, "hearth-linux-arm64"), ["--target=linux-arm64"]],
  ];
  for (const [outfile, args] of builds) {
    const build = Bun.spawn([process.execPath, join(import.meta.dir, "build-binary.ts"), `--outfile=${outfile}`, ...args], { stdio: ["ignore", "inherit", "inherit"] });
    if ((await build.exited) !== 0) throw new Error(`build:binary ${args.join(" ")} failed`);
  }
  const postgres = await startCluster();
  try {
    const redis = await startRedis();
    try {
      const databaseUrl = await createDatabase(postgres.url, "hearth_binary");
      // Named *.binary.ts so that `npm test` (bun test test/) leaves them alone.
      const suites = readdirSync("test/binary").filter((name) => name.endsWith(".binary.ts")).sort().map((name) => `./test/binary/${name}`);
      code = await runTests(
        suites,
        { HEARTH_BINARY: builds[0]![0], HEARTH_BINARY_ARM64: builds[1]![0], HEARTH_BINARY_DATABASE_URL: databaseUrl, HEARTH_BINARY_REDIS_URL: redis.url },
        60_000,
      );
    } finally {
      await redis.stop();
    }
  } finally {
    await postgres.stop();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(code);
