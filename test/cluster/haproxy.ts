/**
 * HAProxy in front of test nodes, with the configuration docs/operations.md gives operators
 * ("Load balancer"): the block is read from the page, only its `bind` address and `server`
 * lines are replaced with loopback ones, so the example operators copy is the one tested.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import { freePort } from "../../scripts/pg-cluster.ts";

export const HAPROXY = Bun.which("haproxy") ?? "/usr/sbin/haproxy";

export interface Haproxy {
  url: string;
  stop(): Promise<void>;
}

/** The example configuration of docs/operations.md. */
export function documentedConfig(): string {
  const page = readFileSync(resolve(import.meta.dir, "../../docs/operations.md"), "utf8");
  const block = /```haproxy\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error("docs/operations.md has no ```haproxy block");
  return block[1]!;
}

export async function startHaproxy(nodes: { name: string; port: number }[]): Promise<Haproxy> {
  const port = freePort();
  const servers = nodes.map((node) => `    server ${node.name} 127.0.0.1:${node.port} cookie ${node.name}`).join("\n");
  let config = documentedConfig().replace(/^(\s*)bind :80$/m, `$1bind 127.0.0.1:${port}`);
  const lines = config.split("\n");
  const first = lines.findIndex((line) => /^\s*server /.test(line));
  if (first < 0 || !config.includes(`127.0.0.1:${port}`)) throw new Error("the documented configuration changed shape: update test/cluster/haproxy.ts");
  config = [...lines.slice(0, first), servers, ...lines.slice(first).filter((line) => !/^\s*server /.test(line))].join("\n");
  const dir = mkdtempSync(join(tmpdir(), "hearth-haproxy-"));
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  const child = Bun.spawn([HAPROXY, "-db", "-f", file], { stdout: "ignore", stderr: "pipe" });
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/api/v1`)).ok) return { url, stop };
    } catch {
      // not up yet
    }
    await Bun.sleep(100);
  }
  const errors = child.exitCode !== null ? await new Response(child.stderr).text() : "";
  await stop();
  throw new Error(`haproxy did not start: ${errors}`);
}

/**
 * A WebSocket client through HAProxy, pinned to `node` by the stickiness cookie, reconnecting on
 * loss with session resume (docs/gateway.md, "Resume"); added to `opened` for the caller to close.
 */
export function pinnedClient(proxy: Haproxy, node: { name: string }, token: string, opened: ClientSocket[]): Promise<ClientSocket> {
  const socket = connectClient(proxy.url, {
    auth: { token, resume: true },
    transports: ["websocket"],
    extraHeaders: { cookie: `HEARTH_NODE=${node.name}` },
    reconnection: true,
    reconnectionDelay: 200,
    reconnectionDelayMax: 1000,
    forceNew: true,
  });
  opened.push(socket);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}
