/**
 * A light audio client for bench/audio-relay.ts, run as its own process. Raw WebSockets:
 * Engine.IO v4 / Socket.IO framing by hand for Hearth ("sio"), bare binary for the raw Bun
 * baseline ("raw"). Driven by lines on stdin, answers with lines on stdout.
 *
 *   bun bench/audio-client.ts '<json {role, proto, url, tokens, channelId}>'
 *
 * role "recv": one connection per token (raw: one per entry of `channels`, else `count`), joined
 *   to the voice room (raw: `?room=`, a topic of the bare relay);
 *   commands `reset` (zero the counters) and `report` (one JSON line: frames, bytes, orphans,
 *   latencies in ms). The first 8 bytes of each frame are the sender's clock (epoch ms, f64).
 * role "send": one connection per token (optionally each in its own room, `channels`);
 *   `go <rate> <seconds>` streams 3840-byte frames at `rate`/s on each and answers
 *   `done <sent> <cpu µs>` (frames per connection, and this process's CPU while streaming).
 */
const cfg = JSON.parse(process.argv[2]!) as {
  role: "recv" | "send";
  proto: "sio" | "raw";
  url: string; // http://host:port
  tokens?: string[];
  count?: number;
  channelId?: string;
  /** raw, role "send": the sender also hears the room (as a Hearth sender, a voice participant, does). */
  listen?: boolean;
  /** One voice channel per token (several rooms from one process); defaults to channelId. */
  channels?: string[];
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
function open(token: string | null, channelId = cfg.channelId): Promise<WebSocket> {
  const base = cfg.url.replace(/^http/, "ws");
  const ws = new WebSocket(
    cfg.proto === "sio" ? `${base}/socket.io/?EIO=4&transport=websocket` : `${base}/?role=${cfg.role}&room=${encodeURIComponent(channelId ?? "")}${cfg.listen ? "&listen=1" : ""}`,
  );
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
        if (data.startsWith("40{")) return ws.send(`420${JSON.stringify(["voice:join", { channelId }])}`);
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
const channelOf = new Map<WebSocket, string | undefined>();
if (cfg.proto === "sio")
  for (const [i, token] of cfg.tokens!.entries()) {
    const channelId = cfg.channels?.[i] ?? cfg.channelId;
    const ws = await open(token, channelId);
    sockets.push(ws);
    channelOf.set(ws, channelId);
  }
else if (cfg.channels)
  for (const channelId of cfg.channels) {
    const ws = await open(null, channelId);
    sockets.push(ws);
    channelOf.set(ws, channelId);
  }
else for (let i = 0; i < (cfg.count ?? 1); i++) sockets.push(await open(null));
out("ready");

/** Streams on every socket of this process (one frame per socket per tick), each to its own room. */
async function stream(all: WebSocket[], rate: number, seconds: number): Promise<number> {
  const pcm = new Uint8Array(FRAME_BYTES);
  for (let i = 8; i < FRAME_BYTES; i++) pcm[i] = (i * 31) & 0xff;
  const view = new DataView(pcm.buffer);
  const headers = all.map(
    (ws) => `451-${JSON.stringify(["bot:audio-data", { channelId: channelOf.get(ws) ?? cfg.channelId, pcm: { _placeholder: true, num: 0 } }])}`,
  );
  const total = Math.round(rate * seconds);
  // Several connections (one bot per room) are not in phase: connection k runs k/n of a
  // frame period behind the first, as independent bots would.
  const n = all.length;
  const done = new Array<number>(n).fill(0);
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const ticks = ((performance.now() - start) / 1000) * rate;
    for (let k = 0; k < n; k++) {
      const due = Math.min(total, Math.floor(ticks - k / n) + 1);
      while (done[k]! < due) {
        view.setFloat64(0, now(), true);
        if (cfg.proto === "sio") all[k]!.send(headers[k]!);
        all[k]!.send(pcm);
        done[k]!++;
      }
    }
    sent = Math.min(...done);
    await Bun.sleep(n > 1 ? 1 : 2);
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
    const cpu0 = process.cpuUsage();
    const sent = await stream(sockets, Number(a), Number(b));
    const cpu = process.cpuUsage(cpu0);
    out(`done ${sent} ${cpu.user + cpu.system}`);
  } else if (cmd === "quit") {
    for (const ws of sockets) ws.close();
    process.exit(0);
  }
}
export {};
