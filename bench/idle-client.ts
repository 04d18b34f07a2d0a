/**
 * Idle gateway connections for bench/connections.ts, run as its own process. Raw WebSockets:
 * for Hearth ("sio") it speaks Engine.IO v4 / Socket.IO framing by hand (the open packet,
 * `40{"token"}` and its `40{"sid"}` answer, pings "2" answered "3"); for the bare baseline
 * ("raw") a connection is ready once open. Reads its configuration as the first line on
 * stdin (a JSON object; tokens are too many for argv), prints `ready`, then on `go` opens
 * `count` connections, at most `inflight` handshakes at a time, tokens used round-robin, and
 * prints `done {connected, failed, ms, errors}`. It then stays idle until `quit`.
 *
 *   bun bench/idle-client.ts < '{proto, url, tokens?, count, inflight}\ngo\n...'
 */
interface Config {
  proto: "sio" | "raw";
  url: string;
  tokens?: string[];
  count: number;
  inflight: number;
}
const out = (line: string) => process.stdout.write(line + "\n");
const sockets: WebSocket[] = [];
const HANDSHAKE_TIMEOUT_MS = 30_000;

/** One connection, resolved once it is authenticated (sio) or open (raw). */
function open(cfg: Config, token: string | undefined): Promise<WebSocket> {
  const base = cfg.url.replace(/^http/, "ws");
  const ws = new WebSocket(cfg.proto === "sio" ? `${base}/socket.io/?EIO=4&transport=websocket` : `${base}/`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error("handshake timed out"));
    }, HANDSHAKE_TIMEOUT_MS);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(ws);
    };
    ws.onerror = () => settle(new Error("websocket error"));
    ws.onclose = (event) => settle(new Error(`closed before ready (${event.code})`));
    if (cfg.proto === "raw") {
      ws.onopen = () => {
        ws.onclose = null;
        settle();
      };
      return;
    }
    ws.onmessage = (event) => {
      const data = String(event.data);
      if (data === "2") ws.send("3"); // Engine.IO ping
      else if (data.startsWith("0{")) ws.send(`40${JSON.stringify({ token })}`);
      else if (data.startsWith("40{")) {
        ws.onclose = null;
        settle();
      } else if (data.startsWith("44")) settle(new Error(`connect refused: ${data}`));
    };
  });
}

async function openAll(cfg: Config): Promise<{ connected: number; failed: number; ms: number; errors: string[] }> {
  const errors: string[] = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(cfg.inflight, cfg.count) }, async () => {
      while (next < cfg.count) {
        const i = next++;
        try {
          sockets.push(await open(cfg, cfg.tokens?.[i % cfg.tokens.length]));
        } catch (error) {
          failed++;
          if (errors.length < 5) errors.push((error as Error).message);
        }
      }
    }),
  );
  return { connected: sockets.length, failed, ms: Math.round(performance.now() - t0), errors };
}

let cfg: Config | null = null;
for await (const line of console) {
  const cmd = line.trim();
  if (cfg === null) {
    cfg = JSON.parse(cmd) as Config;
    out("ready");
  } else if (cmd === "go") {
    out(`done ${JSON.stringify(await openAll(cfg))}`);
  } else if (cmd === "quit") {
    for (const ws of sockets) ws.close();
    process.exit(0);
  }
}
export {};
