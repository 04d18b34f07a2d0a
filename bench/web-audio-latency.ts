/**
 * The web app's added audio latency: how long a bot's PCM frame waits in the page
 * between reaching it (the `bot:audio-data` event on the main thread) and the AudioWorklet
 * playing its first sample. A bot process streams a 440 Hz tone (20 ms frames of 48 kHz
 * stereo, paced on its clock) into a voice channel; Debian's Chromium, headless, has the web
 * app joined to it. The page's player measures each frame's delay on the audio clock
 * (web/audio/jitter-buffer.ts) and exposes it through `window.hearthVoice()`.
 *
 * Run: `bun bench/web-audio-latency.ts [--seconds 20]`. Needs /usr/bin/chromium (or CHROMIUM_PATH).
 * Prints a summary on stderr and one JSON line on stdout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { createApp } from "../src/app.ts";
import { apiFor, argOf, hearthConfig, log, pct, register } from "./fixture.ts";

const SECONDS = Number(argOf("seconds", "20"));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"];

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-web-audio-"));
const app = await createApp(hearthConfig(dataDir));
const api = apiFor(app.url);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
let bot: { kill(): void } | null = null;
try {
  const owner = await register(api, "latency_owner");
  const me = await api<Record<string, unknown>>("GET", "/api/v1/users/me/info", undefined, owner.token);
  const server = await api<{ id: string }>("POST", "/api/v1/servers", { name: "Latency" }, owner.token);
  const channel = await api<{ id: string }>("POST", `/api/v1/channels/${server.id}`, { name: "Lounge", type: "voice" }, owner.token);
  const application = await api<{ application: { id: string }; bot_token: string }>("POST", "/api/v1/oauth2/applications", { name: "Tone", description: "plays a tone" }, owner.token);
  await api("POST", `/api/v1/oauth2/applications/${application.application.id}/servers/${server.id}`, {}, owner.token);

  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 800 } });
  await context.addInitScript((value: string) => localStorage.setItem("hearth.session", value), JSON.stringify({ token: owner.token, user: me }));
  const page = await context.newPage();
  await page.goto(`/channels/${server.id}/${channel.id}`);
  await page.getByRole("button", { name: "Join voice" }).click();
  await page.getByRole("toolbar", { name: "Voice controls" }).waitFor();

  // The browser suite's voice bot: joins, then streams the tone when told.
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "test", "web", "browser", "voice-bot.ts")], {
    env: { ...process.env, HEARTH_URL: app.url, BOT_TOKEN: application.bot_token, VOICE_CHANNEL: channel.id },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  bot = child;
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  for (let seen = ""; !seen.includes('"joined"'); ) seen += decoder.decode((await reader.read()).value);
  child.stdin.write(`${JSON.stringify({ do: "tone", hz: 440, seconds: SECONDS })}\n`);
  child.stdin.flush();
  log(`streaming a 440 Hz tone for ${SECONDS} s into the page...`);
  // Read while the tone still plays (its strongest frequency), a second before it ends.
  await Bun.sleep(Math.max(1, SECONDS - 1) * 1000);

  const d = await page.evaluate(() => (globalThis as unknown as { hearthVoice: () => any }).hearthVoice());
  const speaker = Object.values(d.voice.audio.speakers as Record<string, any>).find((s) => s.kind === "frames");
  if (!speaker) throw new Error("the page played no frames");
  const delays = [...(speaker.delays as number[])].sort((a, b) => a - b);
  const arrivals = speaker.arrivals as number[];
  const gaps = arrivals
    .slice(1)
    .map((t, i) => t - arrivals[i]!)
    .sort((a, b) => a - b);
  const result = {
    bench: "web-audio-latency",
    seconds: SECONDS,
    frame_ms: 20,
    frames: speaker.frames,
    played_s: Math.round((speaker.played / d.voice.audio.sampleRate) * 10) / 10,
    dropped_s: Math.round((speaker.dropped / d.voice.audio.sampleRate) * 100) / 100,
    drops: speaker.drops,
    underruns: speaker.underruns,
    dominant_hz: speaker.dominantHz,
    added_delay_ms: { n: delays.length, p50: pct(delays, 0.5), p95: pct(delays, 0.95), p99: pct(delays, 0.99), max: pct(delays, 1) },
    arrival_gap_ms: { n: gaps.length, p50: pct(gaps, 0.5), p99: pct(gaps, 0.99), max: pct(gaps, 1) },
    output_base_latency_ms: Math.round(d.voice.audio.baseLatency * 10000) / 10,
  };
  log(
    `frames ${result.frames}, played ${result.played_s} s, dropped ${result.dropped_s} s in ${result.drops} drops, ${result.underruns} underruns, strongest ${result.dominant_hz} Hz\n` +
      `added delay (arrival -> worklet output): p50 ${result.added_delay_ms.p50} ms, p95 ${result.added_delay_ms.p95}, p99 ${result.added_delay_ms.p99}, max ${result.added_delay_ms.max} (n ${result.added_delay_ms.n})\n` +
      `frame arrival gaps on the page's main thread: p50 ${result.arrival_gap_ms.p50} ms, p99 ${result.arrival_gap_ms.p99}, max ${result.arrival_gap_ms.max}; output device base latency ${result.output_base_latency_ms} ms (not included)`,
  );
  console.log(JSON.stringify(result));
} finally {
  bot?.kill();
  await browser.close();
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
