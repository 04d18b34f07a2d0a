/**
 * A throwaway coturn (Debian's `turnserver`, installed by .ci/run; its system service is never
 * started) with a generated configuration in a temp dir: TURN over UDP and TCP on one port,
 * TURN REST API credentials checked against `secret` (`use-auth-secret`), no TLS, no CLI.
 * It listens and relays on HEARTH_MEDIA_IP, the veth address of the network namespace
 * `npm run test:media` runs in (scripts/test-media.ts, no route out), and on 127.0.0.1
 * elsewhere (`allow-loopback-peers` lets it relay between loopback addresses). Every packet
 * stays on this machine.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/pg-cluster.ts";

export const TURNSERVER = "/usr/bin/turnserver";
export const coturnInstalled = existsSync(TURNSERVER);

export interface Coturn {
  port: number;
  secret: string;
  /** The address it listens and relays on: HEARTH_MEDIA_IP, or 127.0.0.1. */
  ip: string;
  /** `turn:<ip>:<port>?transport=udp`. */
  url: string;
  /** The UDP ports coturn relays from (its `min-port` to `max-port`). */
  relayPorts: [number, number];
  /** What coturn logged so far (allocations name their user). */
  log(): string;
  stop(): Promise<void>;
}

export async function startCoturn(secret = `coturn-test-secret-${crypto.randomUUID()}`): Promise<Coturn> {
  if (!coturnInstalled) throw new Error(`${TURNSERVER} is missing: apt-get install coturn (the WebRTC browser suites relay through it; .ci/run installs it)`);
  const ip = process.env.HEARTH_MEDIA_IP ?? "127.0.0.1";
  const dir = mkdtempSync(join(tmpdir(), "hearth-coturn-"));
  const port = freePort();
  // A relay range of its own, away from the ports the kernel hands out to everyone else.
  const relayPorts: [number, number] = [20000 + (port % 20000), 20000 + (port % 20000) + 200];
  const logFile = join(dir, "turn.log");
  const config = join(dir, "turnserver.conf");
  writeFileSync(
    config,
    [
      `listening-ip=${ip}`,
      `relay-ip=${ip}`,
      `listening-port=${port}`,
      `min-port=${relayPorts[0]}`,
      `max-port=${relayPorts[1]}`,
      `use-auth-secret`,
      `static-auth-secret=${secret}`,
      `realm=hearth.test`,
      `fingerprint`,
      // Outside the namespace the peers' relay addresses are loopback ones, which coturn refuses by default.
      ...(ip === "127.0.0.1" ? [`allow-loopback-peers`] : []),
      `no-multicast-peers`,
      `no-cli`,
      `no-tls`,
      `no-dtls`,
      `no-software-attribute`,
      `userdb=${join(dir, "turndb")}`,
      `pidfile=${join(dir, "turnserver.pid")}`,
      `log-file=${logFile}`,
      `simple-log`,
      `verbose`,
    ].join("\n") + "\n",
  );
  const child = spawn(TURNSERVER, ["-c", config], { stdio: "ignore" });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  // Listening once a TCP connection to its port is accepted and its UDP listeners are open (logged after).
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`turnserver exited (${child.exitCode}):\n${log()}`);
    const up = await Bun.connect({ hostname: ip, port, socket: { data() {} } }).then(
      (socket) => (socket.end(), true),
      () => false,
    );
    if (up && log().includes("Total General servers")) break;
    if (tries > 100) throw new Error(`turnserver did not listen on ${port}:\n${log()}`);
    await Bun.sleep(50);
  }
  return {
    port,
    secret,
    ip,
    url: `turn:${ip}:${port}?transport=udp`,
    relayPorts,
    log,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
