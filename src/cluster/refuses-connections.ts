import { connect } from "node:net";

/**
 * Whether nothing listens at `url` any more: a TCP connection to it is refused (or reset before
 * it opens). A node killed with SIGKILL, or whose machine is up without it, refuses at once; a
 * node that is merely slow or paused still accepts (the kernel does), so it is never taken for
 * dead here. A timeout is not a refusal: an unreachable machine is left to the heartbeat TTL.
 */
export function refusesConnections(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || (protocol === "https:" ? 443 : 80)) });
    const done = (refused: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(false));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED" || error.code === "ECONNRESET"));
  });
}
