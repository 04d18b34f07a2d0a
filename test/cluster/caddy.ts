/**
 * Caddy in front of a test node, with the Caddyfile docs/operations.md gives operators ("Behind
 * a reverse proxy"): the block is read from the page and only its site address becomes a
 * loopback one, served with Caddy's internal CA (`tls internal`) instead of a public certificate.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/pg-cluster.ts";

export const CADDY = Bun.which("caddy") ?? "/usr/bin/caddy";

export interface Caddy {
  url: string;
  /** Caddy's internal root certificate, which the clients trust. */
  ca: string;
  stop(): Promise<void>;
}

export function documentedCaddyfile(): string {
  const page = readFileSync(resolve(import.meta.dir, "../../docs/operations.md"), "utf8");
  const block = /```caddy\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error("docs/operations.md has no ```caddy block");
  return block[1]!.replace(/^ {2}/gm, "");
}

export async function startCaddy(upstreamPort: number): Promise<Caddy> {
  const port = freePort();
  const dir = mkdtempSync(join(tmpdir(), "hearth-caddy-"));
  const site = documentedCaddyfile();
  if (!/^chat\.example\.org \{$/m.test(site) || !site.includes("reverse_proxy 127.0.0.1:3000")) {
    throw new Error("the documented Caddyfile changed shape: update test/cluster/caddy.ts");
  }
  const config = [
    `{\n\tadmin off\n\tskip_install_trust\n\tstorage file_system ${dir}\n\thttp_port ${freePort()}\n\thttps_port ${port}\n}`,
    site.replace(/^chat\.example\.org \{$/m, `https://127.0.0.1:${port} {\n\ttls internal`).replace("127.0.0.1:3000", `127.0.0.1:${upstreamPort}`),
  ].join("\n");
  const file = join(dir, "Caddyfile");
  writeFileSync(file, config);
  const child = Bun.spawn([CADDY, "run", "--config", file, "--adapter", "caddyfile"], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    stdout: "ignore",
    stderr: "pipe",
  });
  let errors = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) errors += decoder.decode(chunk, { stream: true });
  })();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `https://127.0.0.1:${port}`;
  const rootFile = join(dir, "pki/authorities/local/root.crt");
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const ca = readFileSync(rootFile, "utf8");
      if ((await fetch(`${url}/api/v1`, { tls: { ca } })).ok) return { url, ca, stop };
    } catch {
      // not up yet
    }
    await Bun.sleep(100);
  }
  await stop();
  throw new Error(`caddy did not start: ${errors}`);
}
