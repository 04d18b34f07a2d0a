/**
 * `npm start` as a host runs it (docs/operations.md, "Starting"; "Draining"): SIGTERM or
 * SIGINT sent to the npm process reaches the server (the script `exec`s bun, so no shell sits
 * between them), which drains and exits 0; npm waits for it and exits with its code, and no
 * process is left behind. And the log (docs/operations.md, "Logging"): npm prints its banner
 * before the server starts, `npm start --silent` nothing, so that stdout is JSON lines only.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const npm = Bun.which("npm");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start <args>` until the server's listening line, then `signal` to npm: npm's exit code and stdout. */
async function startThenSignal(args: string[], signal: "SIGTERM" | "SIGINT"): Promise<{ code: number; output: string; serverPid: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-npm-start-"));
  // As on a host: the PATH npm gives scripts finds bun in node_modules/.bin. LOG_FORMAT unset:
  // stdout is a pipe, so the default is json.
  const env: Record<string, string | undefined> = { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info", DATABASE_URL: "" };
  delete env.LOG_FORMAT;
  const proc = Bun.spawn([npm!, "start", ...args], {
    cwd: ROOT,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const listening = Promise.withResolvers<{ url: string; pid: number }>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      output += decoder.decode(chunk, { stream: true });
      const line = output.split("\n").find((l) => l.includes("Hearth listening"));
      if (line) {
        const fields = JSON.parse(line) as { msg: string; pid: number };
        listening.resolve({ url: /listening on (http:\/\/\S+)/.exec(fields.msg)![1]!, pid: fields.pid });
      }
    }
  })();
  try {
    const { url, pid } = await Promise.race([listening.promise, proc.exited.then(() => Promise.reject(new Error(`npm start exited: ${output}`)))]);
    expect(pid).not.toBe(proc.pid);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    proc.kill(signal);
    const code = await proc.exited;
    await reading;
    return { code, output, serverPid: pid };
  } finally {
    proc.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.skipIf(npm === null)("npm start", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} to npm drains the server, and npm exits with its code`, async () => {
      const { code, output, serverPid } = await startThenSignal([], signal);
      expect(code).toBe(0);
      expect(output).toContain('"msg":"draining"');
      expect(output).toContain(`"signal":"${signal}"`);
      expect(output).toContain('"msg":"stopped"');
      // The server is gone with npm, not left serving on its own.
      expect(alive(serverPid)).toBe(false);
      // npm's own banner comes first (the reason for --silent below).
      expect(output).toStartWith("\n> hearth@");
    }, 60_000);
  }

  test("npm start --silent: stdout is the server's JSON lines only, from the first line to the drain's last", async () => {
    const { code, output, serverPid } = await startThenSignal(["--silent"], "SIGTERM");
    expect(code).toBe(0);
    expect(alive(serverPid)).toBe(false);
    const lines = output.split("\n");
    expect(lines.at(-1)).toBe("");
    const entries = lines.slice(0, -1).map((line) => JSON.parse(line) as { msg: string });
    expect(entries[0]!.msg).toStartWith("Hearth listening on ");
    expect(entries.map((entry) => entry.msg)).toContain("draining");
    expect(entries.at(-1)!.msg).toBe("stopped");
  }, 60_000);
});
