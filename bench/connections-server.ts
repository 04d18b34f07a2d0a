/**
 * The server under test of bench/connections.ts, alone in its own process so its memory is
 * its own: Hearth (file database in `dataDir`), or the baseline, a bare Bun.serve that
 * accepts raw WebSockets at any path and keeps nothing but the socket. Prints `ready <url>`,
 * then answers lines on stdin:
 *   mem   - one JSON line: process.memoryUsage() after two full collections
 *   count - the number of open gateway (or raw) connections
 *   types - one JSON line: live JS objects by type (bun:jsc heapStats) after a full collection
 *   snapshot <file> - writes a JSC heap snapshot (Bun.generateHeapSnapshot) to <file>, answers "ok"
 *   snapshot <file> - writes a JSC heap snapshot (Bun.generateHeapSnapshot) to <file>, answers "ok"
 *   quit  - exits
 *
 *   bun bench/connections-server.ts <hearth|bare> <dataDir>
 */
import { heapStats } from "bun:jsc";
import { startHearth } from "./fixture.ts";

const [mode, dataDir] = process.argv.slice(2);
if ((mode !== "hearth" && mode !== "bare") || !dataDir) throw new Error("usage: connections-server.ts <hearth|bare> <dataDir>");
const out = (line: string) => process.stdout.write(line + "\n");

let url: string;
let count: () => number;
let stop: () => Promise<void>;
if (mode === "hearth") {
  const { app } = await startHearth(dataDir);
  url = app.url;
  count = () => app.io.of("/").sockets.size;
  stop = () => app.stop();
} else {
  let open = 0;
  const bare = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req, server) => (server.upgrade(req, { data: undefined }) ? undefined : new Response("websocket only", { status: 400 })),
    websocket: {
      open() {
        open++;
      },
      message() {},
      close() {
        open--;
      },
    },
  });
  url = `http://127.0.0.1:${bare.port}`;
  count = () => open;
  stop = () => bare.stop(true);
}
out(`ready ${url}`);

for await (const line of console) {
  const cmd = line.trim();
  if (cmd === "mem") {
    Bun.gc(true);
    await Bun.sleep(200);
    Bun.gc(true);
    out(JSON.stringify(process.memoryUsage()));
  } else if (cmd === "types") {
    Bun.gc(true);
    out(JSON.stringify(heapStats().objectTypeCounts));
  } else if (cmd.startsWith("snapshot ")) {
    Bun.gc(true);
    await Bun.write(cmd.slice("snapshot ".length), JSON.stringify(Bun.generateHeapSnapshot()));
    out("ok");
  } else if (cmd.startsWith("snapshot ")) {
    Bun.gc(true);
    await Bun.write(cmd.slice("snapshot ".length), JSON.stringify(Bun.generateHeapSnapshot()));
    out("ok");
  } else if (cmd === "count") {
    out(String(count()));
  } else if (cmd === "quit") {
    // Not awaited past a second: thousands of sockets may still be closing.
    await Promise.race([stop(), Bun.sleep(1000)]);
    process.exit(0);
  }
}
