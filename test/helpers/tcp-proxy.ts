import type { Socket } from "bun";

interface Link {
  upstream: Socket<undefined> | null;
  /** What the client sent before the upstream connection was open. */
  pending: Uint8Array[];
  closed: boolean;
}

/**
 * A stand-in for a load balancer, at the TCP level: each connection goes to the first backend
 * (by port, on 127.0.0.1) that accepts it, so a node that stops listening is skipped, as a
 * balancer with retries and redispatch does. Bytes are passed through untouched, except while
 * `swallowAnswers(true)`: then what the backends send is dropped (requests arrive and are
 * handled, their answers are lost, as when a connection dies after the request was sent).
 */
export function startTcpProxy(backendPorts: number[]) {
  let swallowing = false;
  const listener = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { upstream: null, pending: [], closed: false };
        void (async () => {
          for (const port of backendPorts) {
            let upstream: Socket<undefined>;
            try {
              upstream = await Bun.connect({
                hostname: "127.0.0.1",
                port,
                socket: {
                  data(_socket, chunk) {
                    if (!swallowing) client.write(chunk);
                  },
                  close() {
                    client.end();
                  },
                  error() {
                    client.end();
                  },
                },
              });
            } catch {
              continue; // refused: the next backend
            }
            if (client.data.closed) return void upstream.end();
            client.data.upstream = upstream;
            for (const chunk of client.data.pending) upstream.write(chunk);
            client.data.pending = [];
            return;
          }
          client.end();
        })();
      },
      data(client, chunk) {
        if (client.data.upstream) client.data.upstream.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        client.data.closed = true;
        client.data.upstream?.end();
      },
      error(client) {
        client.data.closed = true;
        client.data.upstream?.end();
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    stop: () => listener.stop(true),
    swallowAnswers: (on: boolean) => {
      swallowing = on;
    },
  };
}
