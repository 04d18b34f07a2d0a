/**
 * A voice bot process for the browser suite (socket.io-client only, like any bot). It joins
 * VOICE_CHANNEL and obeys JSON commands on stdin, one a line:
 * - `{"do": "tone", "hz": 440, "seconds": 5}`: streams a sine, 48 kHz stereo, 20 ms frames,
 *   paced on the clock (a frame every 20 ms, catching up if a timer fires late);
 * - `{"do": "listen", "on": true}`: `voice:listen`, printing the ack;
 * - `{"do": "stop"}`: stops the tone.
 * It prints `ready`, `joined`, the acks, and for the people it hears (`voice:audio-data`) one
 * `heard` line a second per person: frames, format, level and the strongest frequency.
 *
 * Env: HEARTH_URL, BOT_TOKEN, VOICE_CHANNEL.
 */
import { io } from "socket.io-client";

const url = process.env.HEARTH_URL!;
const token = process.env.BOT_TOKEN!;
const channelId = process.env.VOICE_CHANNEL!;
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const RATE = 48000;
const FRAME = 960; // 20 ms

const socket = io(url, { auth: { token }, transports: ["websocket"] });
socket.on("connect_error", (error) => print({ event: "error", error: error.message }));
socket.on("connect", async () => {
  print({ event: "ready" });
  const ack = await socket.emitWithAck("voice:join", { channelId });
  print({ event: "joined", ok: ack.ok, error: ack.error });
});
socket.on("voice:error", (p) => print({ event: "voice-error", error: p.error }));
socket.on("voice:listening", (p) => print({ event: "listening", ...p }));

let tone: ReturnType<typeof setInterval> | null = null;
function startTone(hz: number, seconds: number): void {
  stopTone();
  const started = performance.now();
  let sent = 0;
  let phase = 0;
  const total = Math.round((seconds * 1000) / 20);
  const sendDue = () => {
    const due = Math.min(total, Math.floor((performance.now() - started) / 20) + 1);
    for (; sent < due; sent++) {
      const pcm = new Int16Array(FRAME * 2);
      for (let i = 0; i < FRAME; i++, phase++) {
        const v = Math.round(Math.sin((2 * Math.PI * hz * phase) / RATE) * 0.4 * 32767);
        pcm[2 * i] = v;
        pcm[2 * i + 1] = v;
      }
      socket.emit("bot:audio-data", { channelId, pcm: new Uint8Array(pcm.buffer), sampleRate: RATE, channels: 2 });
    }
    if (sent >= total) {
      stopTone();
      print({ event: "tone-done", frames: sent });
    }
  };
  sendDue();
  tone = setInterval(sendDue, 10);
}
function stopTone(): void {
  if (tone) clearInterval(tone);
  tone = null;
}

interface Heard {
  frames: number;
  samples: number;
  sum: number;
  crossings: number;
  last: number;
  sampleRate: number;
  channels: number;
}
const heard = new Map<string, Heard>();
socket.on("voice:audio-data", (p: { pcm: Buffer; sampleRate: number; channels: number; userId: string; channelId: string }) => {
  const bytes = new Uint8Array(p.pcm);
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  let h = heard.get(p.userId);
  if (!h) heard.set(p.userId, (h = { frames: 0, samples: 0, sum: 0, crossings: 0, last: 0, sampleRate: p.sampleRate, channels: p.channels }));
  h.frames++;
  for (let i = 0; i < pcm.length; i += p.channels) {
    const v = pcm[i]! / 32768;
    h.sum += v * v;
    if (h.last < 0 && v >= 0) h.crossings++;
    h.last = v;
    h.samples++;
  }
});
const totals = new Map<string, number>();
setInterval(() => {
  for (const [userId, h] of heard) {
    const total = (totals.get(userId) ?? 0) + h.frames;
    totals.set(userId, total);
    const seconds = h.samples / h.sampleRate;
    print({
      event: "heard",
      userId,
      frames: h.frames,
      total,
      sampleRate: h.sampleRate,
      channels: h.channels,
      rms: Math.sqrt(h.sum / Math.max(1, h.samples)),
      // Zero crossings upward per second: the frequency of a tone.
      hz: seconds > 0 ? Math.round(h.crossings / seconds) : 0,
    });
  }
  heard.clear();
}, 1000);

let input = "";
process.stdin.on("data", async (chunk) => {
  input += chunk.toString();
  let newline: number;
  while ((newline = input.indexOf("\n")) !== -1) {
    const command = JSON.parse(input.slice(0, newline)) as Record<string, any>;
    input = input.slice(newline + 1);
    if (command.do === "tone") startTone(command.hz ?? 440, command.seconds ?? 5);
    else if (command.do === "stop") stopTone();
    else if (command.do === "listen") {
      const ack = await socket.emitWithAck("voice:listen", { channelId, listening: command.on !== false });
      print({ event: "listen-ack", ...ack });
    }
  }
});

process.on("SIGTERM", () => {
  socket.close();
  process.exit(0);
});
