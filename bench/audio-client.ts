/**
 * A light audio client for bench/audio-relay.ts, run as its own process. Raw WebSockets:
 * Engine.IO v4 / Socket.IO framing by hand for Hearth ("sio"), bare binary for the raw Bun
 * baseline ("raw"). Driven by lines on stdin, answers with lines on stdout.
 *
 *   bun bench/audio-client.ts '<json {role, proto, url, tokens, channelId}>'
 *
 * role "recv": one connection per token (raw: `count` connections), joined to the voice room;
 *   commands `reset` (zero the counters) and `report` (one JSON line: frames, bytes, orphans,
 *   latencies in ms). The first 8 bytes of each frame are the sender's clock (epoch ms, f64).
 * role "send": one connection; `go <rate> <seconds>` streams 3840-byte frames at `rate`/s and
 *   answers `done <sent>`.
 */
const cfg = JSON.parse(process.argv[2]!) as {
  role: "recv" | "send";
  proto: "sio" | "raw";
  url: string; // http://host:port
  tokens?: string[];
  count?: number;
  channelId?: string;
};
const FRAME_BYTES = 3840;
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(line + "\n");

let frames = 0;
let bytes = 0;
let orphans = 0;
let latencies: number[] = [];
/** Connections whose last audio message was a header still waiting for its data. */
const dangling = new Set<WebSocket>();

/** Opens one connection; resolves once it is ready to send or receive audio. */
function open(token: string | null): Promise<WebSocket> {
  const base = cfg.url.replace(/^http/, "ws");
  const ws = new WebSocket(cfg.proto === "sio" ? `${base}/socket.io/?EIO=4&transport=websocket` : `${base}/?role=${cfg.role}`);
  ws.binaryType = "arraybuffer";
  let expectBinary = false;
  return new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error("websocket error"));
    if (cfg.proto === "raw") ws.onopen = () => resolve(ws);
    ws.onmessage = (event) => {
      const data = event.data;
      if (typeof data === "string") {
        if (data === "2") return ws.send("3"); // Engine.IO ping
        if (data.startsWith("0{")) return ws.send(`40${JSON.stringify({ token })}`);
        if (data.startsWith("40{")) return ws.send(`420${JSON.stringify(["voice:join", { channelId: cfg.channelId }])}`);
        if (data.startsWith("430")) {
          const [ack] = JSON.parse(data.slice(3));
          return ack?.ok ? resolve(ws) : reject(new Error(`voice:join: ${JSON.stringify(ack)}`));
        }
        if (data.startsWith("44")) return reject(new Error(`connect refused: ${data}`));
        if (data.startsWith('451-["bot:audio-data"')) {
          if (expectBinary) orphans++; // a header whose data never came
          expectBinary = true;
          dangling.add(ws);
        }
        return;
      }
      if (cfg.role !== "recv") return;
      const buf = data as ArrayBuffer;
      if (cfg.proto === "sio") {
        if (!expectBinary) {
          orphans++; // data without its header
          return;
        }
        expectBinary = false;
        dangling.delete(ws);
      }
      frames++;
      bytes += buf.byteLength;
      latencies.push(now() - new DataView(buf).getFloat64(0, true));
    };
  });
}

const sockets: WebSocket[] = [];
if (cfg.proto === "sio") for (const token of cfg.tokens!) sockets.push(await open(token));
else for (let i = 0; i < (cfg.count ?? 1); i++) sockets.push(await open(null));
out("ready");

async function stream(ws: WebSocket, rate: number, seconds: number): Promise<number> {
  const pcm = new Uint8Array(FRAME_BYTES);
  for (let i = 8; i < FRAME_BYTES; i++) pcm[i] = (i * 31) & 0xff;
  const view = new DataView(pcm.buffer);
  const header = `451-${JSON.stringify(["bot:audio-data", { channelId: cfg.channelId, pcm: { _placeholder: true, num: 0 } }])}`;
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    while (sent < due) {
      view.setFloat64(0, now(), true);
      if (cfg.proto === "sio") ws.send(header);
      ws.send(pcm);
      sent++;
    }
    await Bun.sleep(2);
  }
  return sent;
}

for await (const line of console) {
  const [cmd, a, b] = line.trim().split(" ");
  if (cmd === "reset") {
    frames = bytes = orphans = 0;
    latencies = [];
    out("ok");
  } else if (cmd === "report") {
    out(JSON.stringify({ frames, bytes, orphans, dangling: dangling.size, latencies }));
  } else if (cmd === "go") {
    out(`done ${await stream(sockets[0]!, Number(a), Number(b))}`);
  } else if (cmd === "quit") {
    for (const ws of sockets) ws.close();
    process.exit(0);
  }
}
export {};
