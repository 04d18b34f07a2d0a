/**
 * Runs `bun test` on `files` (or the files named on this script's command line) in a child
 * process with `env` added, passing SIGINT/SIGTERM on to it; resolves with its exit code.
 * Used by the suites that first start services of their own (test-postgres.ts, test-cluster.ts)
 * or run somewhere of their own: `prefix` comes before bun's command line (test-media.ts runs
 * it inside a network namespace with `ip netns exec <name>`).
 */
export async function runTests(files: string[], env: Record<string, string>, timeoutMs: number, prefix: string[] = []): Promise<number> {
  const args = process.argv.slice(2);
  const child = Bun.spawn([...prefix, process.execPath, "test", "--timeout", String(timeoutMs), ...(args.length ? args : files)], {
    env: { ...process.env, ...env },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return await child.exited;
}
