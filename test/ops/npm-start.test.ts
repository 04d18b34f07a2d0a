/**
 * `npm start` as a host runs it (docs/operations.md, "Starting"; "Draining"): SIGTERM or
 * SIGINT sent to the npm process reaches the server (the script `exec`s bun, so no shell sits
 * between them), which drains and exits 0; npm waits for it and exits with its code, and no
 * process is left behind.
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

describe.skipIf(npm === null)("npm start", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} to npm drains the server, and npm exits with its code`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "hearth-npm-start-"));
      // As on a host: the PATH npm gives scripts finds bun in node_modules/.bin.
      const proc = Bun.spawn([npm!, "start"], {
        cwd: ROOT,
        env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info", DATABASE_URL: "" },
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
        expect(await proc.exited).toBe(0);
        await reading;
        expect(output).toContain('"msg":"draining"');
        expect(output).toContain(`"signal":"${signal}"`);
        expect(output).toContain('"msg":"stopped"');
        // The server is gone with npm, not left serving on its own.
        expect(alive(pid)).toBe(false);
      } finally {
        proc.kill("SIGKILL");
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});
