/**
 * A throwaway Redis for the cluster and fault suites: Debian's `redis-server` on a free loopback
 * port, in a temporary folder, with no persistence unless `appendOnly` is asked for; `stop()`
 * ends it and removes the folder. `halt()` kills it (SIGKILL, as a crash would) and `resume()`
 * starts it again on the same port and folder: with `appendOnly` it comes back with its data,
 * without it comes back empty.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./pg-cluster.ts";

export interface ThrowawayRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Kills it at once (SIGKILL); resolves once the process is gone. */
  halt(): Promise<void>;
  /** Starts it again after `halt`, on the same port; resolves once it answers. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisOptions {
  /** Persist to an append-only file fsynced every write (a restart keeps the data). */
  appendOnly?: boolean;
}

export function redisServerPath(): string | null {
  return Bun.which("redis-server") ?? (Bun.file("/usr/bin/redis-server").size > 0 ? "/usr/bin/redis-server" : null);
}

export async function startRedis(options: RedisOptions = {}): Promise<ThrowawayRedis> {
  const bin = redisServerPath();
  if (!bin) throw new Error("redis-server is not installed (Debian: apt-get install redis-server)");
  const dir = mkdtempSync(join(tmpdir(), "hearth-redis-"));
  const port = freePort();
  const persistence = options.appendOnly ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  const args = [bin, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", ...persistence, "--daemonize", "no", "--logfile", join(dir, "redis.log")];
  let child: Subprocess | null = null;

  async function launch(): Promise<void> {
    const started = Bun.spawn(args, { stdout: "ignore", stderr: "inherit" });
    child = started;
    // Ready once it answers PING (a loaded append-only file is read before that).
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (started.exitCode !== null) break;
      if (await answersPing(port)) return;
      await Bun.sleep(50);
    }
    started.kill("SIGKILL");
    await started.exited;
    throw new Error(`redis-server did not start on port ${port}`);
  }

  const end = async (signal: "SIGTERM" | "SIGKILL") => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill(signal);
    await running.exited;
  };
  try {
    await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    halt: () => end("SIGKILL"),
    resume: launch,
    async stop() {
      await end("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answersPing(port: number): Promise<boolean> {
  const reply = Promise.withResolvers<boolean>();
  try {
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data(_socket, data) {
          reply.resolve(data.toString().startsWith("+PONG"));
        },
        close() {
          reply.resolve(false);
        },
        error() {
          reply.resolve(false);
        },
      },
    });
    socket.write("PING\r\n");
    const timer = setTimeout(() => reply.resolve(false), 1000);
    const answered = await reply.promise;
    clearTimeout(timer);
    socket.end();
    return answered;
  } catch {
    return false;
  }
}
