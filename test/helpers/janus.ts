/**
 * A throwaway Janus (Debian's `janus` 1.1, installed by .ci/run; its system service is never
 * started) with a generated configuration in a temp dir: the VideoRoom plugin only (string room
 * ids, rooms created with the admin key only), the Janus API over WebSocket and the Admin API
 * over HTTP only, stored-token authentication (tokens added through the Admin API), ICE on the
 * network namespace's veth address only, no STUN, no event handlers or loggers.
 *
 * It runs only under `npm run test:media` (scripts/test-media.ts): Janus 1.1.2 gathers no ICE
 * candidate on a loopback interface, and libnice sends from the default interface, so it is
 * given the namespace's HEARTH_JANUS_IP (or HEARTH_MEDIA_IP), an address of a veth interface in
 * a namespace with no route out (docs/testing.md, "Media tests").
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";

export const JANUS = "/usr/bin/janus";
/** Debian's folder of Janus's plugins, transports, event handlers and loggers (`/usr/lib/<triplet>/janus`). */
const LIBRARIES = (() => {
  const lib = "/usr/lib";
  if (!existsSync(lib)) return null;
  const triplet = readdirSync(lib).find((name) => existsSync(join(lib, name, "janus", "plugins", "libjanus_videoroom.so")));
  return triplet ? join(lib, triplet, "janus") : null;
})();
export const janusInstalled = existsSync(JANUS) && LIBRARIES !== null;

export const VIDEOROOM = "janus.plugin.videoroom";
/** The only plugin and transports loaded; every other library in Debian's folders is disabled. */
const KEEP = { plugins: ["libjanus_videoroom.so"], transports: ["libjanus_websockets.so", "libjanus_http.so"], events: [], loggers: [] } as const;

export interface Janus {
  /** `ws://<ip>:<port>`: the Janus API over WebSocket (subprotocol "janus-protocol"), for browsers and Hearth. */
  url: string;
  /** `http://<ip>:<port>/admin`: the Janus Admin API over HTTP. */
  adminUrl: string;
  /** The Admin API's `admin_secret`, also the VideoRoom's `admin_key` (creating rooms needs it). */
  secret: string;
  /** The address its WebSocket, Admin API and ICE candidates are on. */
  ip: string;
  /** The UDP ports its ICE candidates come from (`rtp_port_range`). */
  rtpPorts: [number, number];
  /** What Janus logged so far. */
  log(): string;
  stop(): Promise<void>;
  /** SIGKILL, for the tests of a Janus that dies; `stop()` still removes its folder. */
  kill(): Promise<void>;
}

/** The veth interface that holds `ip` in this namespace (Janus's `ice_enforce_list` names it). */
function interfaceOf(ip: string): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (addresses?.some((address) => address.address === ip)) return name;
  }
  throw new Error(`no interface of this network namespace has the address ${ip}`);
}

/** A TCP port nothing listens on at `ip` (the namespace is ours alone, so the race is with our own processes). */
function freePortOn(ip: string): number {
  const probe = Bun.listen({ hostname: ip, port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Every `.so` of `folder` but `keep`, as a `disable` list. */
function disableAllBut(folder: string, keep: readonly string[]): string {
  return readdirSync(folder).filter((name) => name.endsWith(".so") && !keep.includes(name)).sort().join(",");
}

const jcfgString = (value: string) => JSON.stringify(value);

let started = 0;

export async function startJanus(options: { secret?: string } = {}): Promise<Janus> {
  if (!janusInstalled || !LIBRARIES) throw new Error(`${JANUS} or its plugins are missing: apt-get install janus (the media suites need it; .ci/run installs it)`);
  const ip = process.env.HEARTH_JANUS_IP ?? process.env.HEARTH_MEDIA_IP;
  if (!ip) throw new Error("startJanus needs HEARTH_JANUS_IP or HEARTH_MEDIA_IP, an address of a veth interface: run the test with `npm run test:media -- <file>` (Janus gathers no ICE candidate on loopback)");
  const iface = interfaceOf(ip);
  const secret = options.secret ?? `janus-test-secret-${crypto.randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), "hearth-janus-"));
  const wsPort = freePortOn(ip);
  const adminPort = freePortOn(ip);
  // A range of its own per instance, above coturn's relay ports (20000-40399, test/helpers/coturn.ts).
  const base = 41000 + ((wsPort + started++) % 40) * 200;
  const rtpPorts: [number, number] = [base, base + 199];
  const logFile = join(dir, "janus.log");
  const outFile = join(dir, "janus.out");
  const files: Record<string, string> = {
    "janus.jcfg": `general: {
  configs_folder = ${jcfgString(dir)}
  plugins_folder = ${jcfgString(join(LIBRARIES, "plugins"))}
  transports_folder = ${jcfgString(join(LIBRARIES, "transports"))}
  events_folder = ${jcfgString(join(LIBRARIES, "events"))}
  loggers_folder = ${jcfgString(join(LIBRARIES, "loggers"))}
  log_to_stdout = false
  log_to_file = ${jcfgString(logFile)}
  debug_level = 4
  debug_timestamps = true
  debug_colors = false
  # The address put in SDP (Janus otherwise looks for the default route's, and there is none).
  interface = ${jcfgString(ip)}
  server_name = "hearth-test"
  session_timeout = 60
  admin_secret = ${jcfgString(secret)}
  # Stored tokens (no token_auth_secret): Hearth adds one per join through the Admin API.
  token_auth = true
}
media: {
  rtp_port_range = "${rtpPorts[0]}-${rtpPorts[1]}"
}
nat: {
  ice_lite = false
  ice_tcp = false
  ice_enforce_list = ${jcfgString(iface)}
  nice_debug = false
  # The pages are relay only and send no .local candidate; resolving one would only wait on a multicast nobody answers.
  ignore_mdns = true
}
plugins: {
  disable = ${jcfgString(disableAllBut(join(LIBRARIES, "plugins"), KEEP.plugins))}
}
transports: {
  disable = ${jcfgString(disableAllBut(join(LIBRARIES, "transports"), KEEP.transports))}
}
loggers: {
  disable = ${jcfgString(disableAllBut(join(LIBRARIES, "loggers"), KEEP.loggers))}
}
events: {
  broadcast = false
  disable = ${jcfgString(disableAllBut(join(LIBRARIES, "events"), KEEP.events))}
}
`,
    "janus.transport.websockets.jcfg": `general: {
  json = "compact"
  ws = true
  ws_port = ${wsPort}
  ws_ip = ${jcfgString(ip)}
  wss = false
}
admin: {
  admin_ws = false
  admin_wss = false
}
`,
    "janus.transport.http.jcfg": `general: {
  json = "compact"
  http = false
  https = false
}
admin: {
  admin_http = true
  admin_port = ${adminPort}
  admin_ip = ${jcfgString(ip)}
  admin_base_path = "/admin"
  admin_https = false
}
`,
    // No static rooms: Hearth creates one per active voice channel, named by the channel's UUID.
    "janus.plugin.videoroom.jcfg": `general: {
  string_ids = true
  admin_key = ${jcfgString(secret)}
  lock_rtp_forward = true
}
`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);

  const out = openSync(outFile, "w");
  const child = spawn(JANUS, ["-C", join(dir, "janus.jcfg"), "-F", dir], { stdio: ["ignore", out, out] });
  closeSync(out);
  const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");
  const log = () => read(logFile);
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
  const running = () => child.exitCode === null && child.signalCode === null;
  const url = `ws://${ip}:${wsPort}`;
  const adminUrl = `http://${ip}:${adminPort}/admin`;

  const janus: Janus = {
    url,
    adminUrl,
    secret,
    ip,
    rtpPorts,
    log,
    async stop() {
      if (running()) {
        child.kill("SIGTERM");
        const late = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(late);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async kill() {
      if (running()) child.kill("SIGKILL");
      await exited;
    },
  };

  // Up once the Admin API answers `info` and the WebSocket transport answers a Janus API `info`.
  try {
    for (let tries = 0; ; tries++) {
      if (!running()) throw new Error(`janus exited (${child.exitCode ?? child.signalCode})`);
      if ((await adminInfo(adminUrl)) && (await websocketInfo(url))) break;
      if (tries > 200) throw new Error(`janus did not answer on ${url} and ${adminUrl}`);
      await Bun.sleep(50);
    }
  } catch (error) {
    const output = `${read(outFile)}\n${log()}`;
    await janus.stop();
    throw new Error(`${(error as Error).message}:\n${output}`);
  }
  return janus;
}

async function adminInfo(adminUrl: string): Promise<boolean> {
  try {
    const response = await fetch(adminUrl, { method: "POST", body: JSON.stringify({ janus: "info", transaction: "ready" }), signal: AbortSignal.timeout(1000) });
    return ((await response.json()) as { janus?: string }).janus === "server_info";
  } catch {
    return false;
  }
}

function websocketInfo(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, "janus-protocol");
    const done = (up: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(up);
    };
    const timer = setTimeout(() => done(false), 1000);
    socket.onopen = () => socket.send(JSON.stringify({ janus: "info", transaction: "ready" }));
    socket.onmessage = (event) => done(JSON.parse(String(event.data)).janus === "server_info");
    socket.onerror = () => done(false);
  });
}
