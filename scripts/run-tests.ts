/**
 * Runs `bun test` on `files` (or the files named on this script's command line) in a child
 * process with `env` added, passing SIGINT/SIGTERM on to it; resolves with its exit code.
 * Used by the suites that first start services of their own (test-postgres.ts, test-cluster.ts).
 */
export async function runTests(files: string[], env: Record<string, string>, timeoutMs: number): Promise<number> {
  const args = process.argv.slice(2);
  const child = Bun.spawn([process.execPath, "test", "--timeout", String(timeoutMs), ...(args.length ? args : files)], {
    env: { ...process.env, ...env },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return await child.exited;
}
