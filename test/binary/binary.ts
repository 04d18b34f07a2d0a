/**
 * What the binary suites (test/binary/*.binary.ts, run by scripts/test-binary.ts) share: the
 * built files, a folder holding nothing but a copy of one, and clients that reach a process by
 * its URL (fetch, socket.io-client).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";

export type { ClientSocket };

/** The linux-x64 build (this machine's) and the linux-arm64 one. */
export const BUILT = process.env.HEARTH_BINARY ?? "";
export const BUILT_ARM64 = process.env.HEARTH_BINARY_ARM64 ?? "";
if (!existsSync(BUILT) || !existsSync(BUILT_ARM64)) throw new Error("the binary suites run under npm run test:binary (scripts/test-binary.ts)");

/**
 * A new temp folder with only `from` copied in (as `hearth`) and an empty `data/`: started
 * there, the binary has no sources, node_modules or bun next to it.
 */
export function binaryFolder(from = BUILT): { folder: string; binary: string; dataDir: string } {
  const folder = mkdtempSync(join(tmpdir(), "hearth-binary-run-"));
  const binary = join(folder, "hearth");
  copyFileSync(from, binary);
  mkdirSync(join(folder, "data"));
  return { folder, binary, dataDir: join(folder, "data") };
}

export async function api<T = any>(url: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, body: ((response.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : text) as T };
}

/** A connected socket.io-client socket (websocket, no reconnection), added to `opened`. */
export function connect(url: string, token: string, opened: ClientSocket[]): Promise<ClientSocket> {
  const socket = connectClient(url, { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true });
  opened.push(socket);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

/** Every pid whose executable is `executable`: what of a binary is still running. */
export function processesOf(executable: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/exe`) === executable) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** The JSON log lines of a process's stdout. */
export function logLines(output: string): { msg: string; signal?: string }[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; signal?: string });
}
