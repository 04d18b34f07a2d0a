import { join } from "node:path";

/** The repository's root: builds and compose files are named from it. */
export const ROOT = join(import.meta.dir, "..", "..");

/** Runs `podman ...args` in the repository's root: its exit code, stdout (trimmed) and stderr. */
export function podman(...args: string[]): { code: number; out: string; err: string } {
  const result = Bun.spawnSync(["podman", ...args], { stdout: "pipe", stderr: "pipe", cwd: ROOT });
  return { code: result.exitCode ?? 1, out: result.stdout.toString().trim(), err: result.stderr.toString() };
}

/** `podman(...args)`'s stdout, or an error with everything it printed. */
export function must(...args: string[]): string {
  const result = podman(...args);
  if (result.code !== 0) throw new Error(`podman ${args.join(" ")}: ${result.code}\n${result.out}\n${result.err}`);
  return result.out;
}
