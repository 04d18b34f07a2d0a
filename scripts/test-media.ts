/**
 * `npm run test:media`: the WebRTC suites (docs/testing.md, "Media tests"), run inside a network
 * namespace made for the run: `lo` up and a veth pair with both ends in it (veth-media at
 * 10.203.0.1, veth-janus at 10.203.0.2, each accepting packets from the other's address),
 * and no route out, so no packet can reach another host. coturn (test/helpers/coturn.ts) listens and relays on HEARTH_MEDIA_IP, Janus
 * (test/helpers/janus.ts) on HEARTH_JANUS_IP; Hearth stays on 127.0.0.1 and Chromium runs in
 * the namespace too. Janus 1.1.2 gathers no ICE candidate on loopback interfaces and libnice
 * sends from the default interface, so loopback alone cannot carry its media.
 *
 * The files: every browser suite that starts a media suite (scripts/browser-suites.ts) and
 * test/media/*.test.ts; extra arguments replace them. The namespace, and whatever the run left
 * running in it, is removed when the tests end, whatever the outcome (SIGINT and SIGTERM are
 * passed on to `bun test`, and the namespace goes after it). Making a namespace needs root.
 */
import { readdirSync } from "node:fs";
import { browserSuites } from "./browser-suites.ts";
import { runTests } from "./run-tests.ts";

const MEDIA_IP = "10.203.0.1";
const JANUS_IP = "10.203.0.2";
const VETH = { media: "veth-media", janus: "veth-janus" };

const namespace = `hearth-media-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;

function ip(...args: string[]): { ok: boolean; out: string } {
  const run = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
  return { ok: run.exitCode === 0, out: `${run.stdout.toString()}${run.stderr.toString()}`.trim() };
}

function fail(message: string): never {
  console.error(`test:media: ${message}`);
  process.exit(1);
}

let made = false;
let removed = false;
/** Ends what is left in the namespace (only this run's processes can be in it), then deletes it; the veth pair goes with it. */
function removeNamespace(): void {
  if (!made || removed) return;
  removed = true;
  for (let round = 0; round < 100; round++) {
    const pids = ip("netns", "pids", namespace).out.split(/\s+/).filter(Boolean).map(Number);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    Bun.sleepSync(20);
  }
  const deleted = ip("netns", "delete", namespace);
  if (!deleted.ok) console.error(`test:media: could not delete network namespace ${namespace}: ${deleted.out}`);
}

let testing = false;
process.on("exit", removeNamespace);
// While `bun test` runs, run-tests.ts passes the signal on and the namespace goes when it ends.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (testing) return;
    removeNamespace();
    process.exit(130);
  });
}

if (process.getuid?.() !== 0) fail("the media tests run in a network namespace of their own (ip netns add), which needs root: run `npm run test:media` as root");
const added = ip("netns", "add", namespace);
if (!added.ok) fail(`could not make a network namespace (ip netns add ${namespace}: ${added.out}); it needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN`);
made = true;

const setup: string[][] = [
  ["link", "set", "lo", "up"],
  ["link", "add", VETH.media, "type", "veth", "peer", "name", VETH.janus],
  ["addr", "add", `${MEDIA_IP}/24`, "dev", VETH.media],
  ["addr", "add", `${JANUS_IP}/24`, "dev", VETH.janus],
  ["link", "set", VETH.media, "up"],
  ["link", "set", VETH.janus, "up"],
];
for (const step of setup) {
  const done = ip("-n", namespace, ...step);
  if (!done.ok) fail(`ip -n ${namespace} ${step.join(" ")}: ${done.out}`);
}
// Janus's libnice sends out of the interface its candidate is on (veth-janus), so a packet to
// coturn's 10.203.0.1 crosses the pair and arrives on veth-media with a source address of this
// namespace, which the kernel drops as martian unless the interface accepts local sources (and
// no reverse-path filter turns it away).
const sysctls = ["all", VETH.media, VETH.janus].flatMap((on) => [`net.ipv4.conf.${on}.accept_local=1`, `net.ipv4.conf.${on}.rp_filter=0`]);
const tuned = ip("netns", "exec", namespace, "sysctl", "-qw", ...sysctls);
if (!tuned.ok) fail(`sysctl in ${namespace}: ${tuned.out}`);
const defaultRoute = ip("-n", namespace, "route", "show", "default");
if (!defaultRoute.ok || defaultRoute.out !== "") fail(`the namespace has a default route: ${defaultRoute.out}`);

const mediaTests = readdirSync("test/media").filter((name) => name.endsWith(".test.ts")).sort().map((name) => `./test/media/${name}`);
testing = true;
const code = await runTests([...browserSuites().media, ...mediaTests], { HEARTH_MEDIA_IP: MEDIA_IP, HEARTH_JANUS_IP: JANUS_IP, HEARTH_MEDIA_NAMESPACE: namespace }, 60_000, ["ip", "netns", "exec", namespace]);
removeNamespace();
process.exit(code);
