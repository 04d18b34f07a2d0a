/**
 * The network namespace the media tests and benches run in (docs/testing.md, "Media tests"):
 * `lo` up and a veth pair with both ends in it (veth-media at 10.203.0.1, veth-janus at
 * 10.203.0.2), and no route out, so no packet can reach another host. coturn
 * (test/helpers/coturn.ts) listens and relays on HEARTH_MEDIA_IP, Janus (test/helpers/janus.ts)
 * on HEARTH_JANUS_IP; Hearth stays on 127.0.0.1 and Chromium runs in the namespace too. Janus
 * 1.1.2 gathers no ICE candidate on loopback interfaces and libnice sends from the default
 * interface, so loopback alone cannot carry its media.
 *
 * `runInMediaNamespace` makes the namespace, runs a command in it with those variables set
 * (passing SIGINT and SIGTERM on), and removes the namespace and whatever the run left running in
 * it when the command ends, whatever the outcome. Making a namespace needs root.
 */
const MEDIA_IP = "10.203.0.1";
const JANUS_IP = "10.203.0.2";
const VETH = { media: "veth-media", janus: "veth-janus" };

function ip(...args: string[]): { ok: boolean; out: string } {
  const run = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
  return { ok: run.exitCode === 0, out: `${run.stdout.toString()}${run.stderr.toString()}`.trim() };
}

/** Runs `command` inside a fresh media namespace; resolves with its exit code. `who` names the caller in messages. */
export async function runInMediaNamespace(command: string[], who: string): Promise<number> {
  const namespace = `hearth-media-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const fail = (message: string): never => {
    console.error(`${who}: ${message}`);
    process.exit(1);
  };
  let made = false;
  let removed = false;
  /** Ends what is left in the namespace (only this run's processes can be in it), then deletes it; the veth pair goes with it. */
  const remove = () => {
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
    if (!deleted.ok) console.error(`${who}: could not delete network namespace ${namespace}: ${deleted.out}`);
  };
  let child: ReturnType<typeof Bun.spawn> | null = null;
  process.on("exit", remove);
  // While the command runs, the signal goes to it and the namespace goes when it ends.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (child) return void child.kill("SIGINT");
      remove();
      process.exit(130);
    });
  }

  if (process.getuid?.() !== 0) fail("this runs in a network namespace of its own (ip netns add), which needs root: run it as root");
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

  child = Bun.spawn(["ip", "netns", "exec", namespace, ...command], {
    env: { ...process.env, HEARTH_MEDIA_IP: MEDIA_IP, HEARTH_JANUS_IP: JANUS_IP, HEARTH_MEDIA_NAMESPACE: namespace },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const code = await child.exited;
  remove();
  return code;
}
