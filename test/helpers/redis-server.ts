import { createAdapter } from "@socket.io/redis-streams-adapter";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { ServerOptions } from "socket.io";
import { freePort } from "../../scripts/pg-cluster.ts";

/** Debian's redis-server (apt-get install redis-server). */
export const REDIS_SERVER = "/usr/bin/redis-server";
export const redisServerInstalled = existsSync(REDIS_SERVER);

export interface RedisServer {
  url: string;
  /** A Socket.IO Redis streams adapter on this server, and the clients it uses (closed by `stop`). */
  adapter(): NonNullable<ServerOptions["adapter"]>;
  stop(): Promise<void>;
}

/** A throwaway redis-server on 127.0.0.1, no persistence, in a temp dir. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "hearth-redis-"));
  const port = freePort();
  const child = spawn(REDIS_SERVER, ["--bind", "127.0.0.1", "--port", String(port), "--dir", dir, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const clients: Redis[] = [];
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused until the server listens: the loop below retries.
  probe.on("error", () => {});
  for (let tries = 0; ; tries++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (tries > 100) throw new Error(`redis-server did not start on ${url}: ${String(error)}`);
      await Bun.sleep(50);
    }
  }
  probe.disconnect();
  return {
    url,
    adapter() {
      const client = new Redis(url);
      clients.push(client);
      // Short blocking reads, so a closed adapter's reader stops soon.
      return createAdapter(client, { blockTimeInMs: 500 });
    },
    async stop() {
      for (const client of clients) client.disconnect();
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
