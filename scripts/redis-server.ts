/**
 * A throwaway Redis for the cluster suite: Debian's `redis-server` on a free loopback port, in a
 * temporary folder, with no persistence; `stop()` ends it and removes the folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./pg-cluster.ts";

export interface ThrowawayRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  stop(): Promise<void>;
}

export function redisServerPath(): string | null {
  return Bun.which("redis-server") ?? (Bun.file("/usr/bin/redis-server").size > 0 ? "/usr/bin/redis-server" : null);
}

export async function startRedis(): Promise<ThrowawayRedis> {
  const bin = redisServerPath();
  if (!bin) throw new Error("redis-server is not installed (Debian: apt-get install redis-server)");
  const dir = mkdtempSync(join(tmpdir(), "hearth-redis-"));
  const port = freePort();
  const child = Bun.spawn(
    [bin, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", join(dir, "redis.log")],
    { stdout: "ignore", stderr: "inherit" },
  );
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once it answers PING.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      socket.end();
      return { url: `redis://127.0.0.1:${port}`, stop };
    } catch {
      await Bun.sleep(50);
    }
  }
  await stop();
  throw new Error(`redis-server did not start on port ${port}`);
}
