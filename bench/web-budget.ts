/**
 * The web app's budget, measured in Debian's Chromium driven by playwright-core
 * against a real Hearth (file database, in this process):
 *   first load - the JavaScript the browser downloads for `/` with a session (the chat opens),
 *                as transferred: gzipped bytes from Resource Timing (`encodedBodySize`), against
 *                150 KB (153,600 bytes). The chunks loaded on demand (the developer portal,
 *                the user settings, the bot invite page) are listed apart: they are not part
 *                of the first load.
 *   history    - a channel with 10,000 messages: message nodes (`article`) in the DOM when it
 *                opens, and the most seen while scrolling up through the whole history (every
 *                older page loaded by scrolling, as a reader does) and back down to the newest.
 *   burst      - 200 `message:new` per second in the open channel (another member posting over
 *                REST) for 10 s: the page's main-thread long tasks (PerformanceObserver
 *                "longtask"), the delay of real key presses in the composer (one every 100 ms,
 *                from the key event to its handler, and to the next animation frame), frame
 *                gaps, and how long after the last post the log shows it. Baseline: the same key
 *                presses with no burst, in the same run.
 * Prints a human summary on stderr and one JSON line on stdout. The sizes are budgets: the
 * bench exits 1 when the first load is over 150 KB of gzipped JS or the DOM holds more message
 * nodes than a few screens; timings are printed, never judged (the machine may be shared).
 *
 *   bun bench/web-budget.ts [--messages 10000] [--burst-seconds 10] [--rate 200] [--quick]
 *   (quick: 500 messages, a 2 s burst, a 2 s baseline; about 25 s on a quiet machine)
 * Without Chromium (CHROMIUM_PATH or /usr/bin/chromium) it says so and exits 0 with `skipped`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_FLAGS } from "../test/web/browser/harness.ts";
import { argOf, community, hasFlag, latency, log, register, startHearth, type Account, type Api } from "./fixture.ts";

const QUICK = hasFlag("quick");
const MESSAGES = Number(argOf("messages", QUICK ? "500" : "10000"));
const BURST_SECONDS = Number(argOf("burst-seconds", QUICK ? "2" : "10"));
const BASELINE_SECONDS = QUICK ? 2 : 5;
const RATE = Number(argOf("rate", "200"));
/** 150 KB of gzipped JavaScript on the first load (docs/web.md). */
const FIRST_LOAD_BUDGET = 150 * 1024;
/** More message nodes than this means the log renders what is not in view (a screen holds ~20). */
const DOM_MESSAGES_BUDGET = 150;
const KEY_EVERY_MS = 100;
const SEED_CONCURRENCY = 32;

interface ScriptFile {
  name: string;
  gzip: number;
  bytes: number;
}

/** The scripts the page downloaded so far (Resource Timing), by file name. */
async function scripts(page: Page): Promise<ScriptFile[]> {
  return (await page.evaluate(`performance.getEntriesByType("resource")
    .filter((e) => /\\/assets\\/[^/]+\\.js$/.test(new URL(e.name).pathname))
    .map((e) => ({ name: new URL(e.name).pathname.split("/").pop(), gzip: e.encodedBodySize, bytes: e.decodedBodySize }))`)) as ScriptFile[];
}
const sum = (files: ScriptFile[], key: "gzip" | "bytes") => files.reduce((n, f) => n + f[key], 0);

/** A page with `account`'s session in localStorage, as the app keeps it. */
async function personPage(browser: Browser, url: string, account: Account & { user: unknown }): Promise<Page> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
  await context.addInitScript((session: string) => localStorage.setItem("hearth.session", session), JSON.stringify({ token: account.token, user: account.user }));
  const page = await context.newPage();
  page.on("pageerror", (error) => log(`[page error] ${error.message}`));
  return page;
}

const frames = (page: Page) => page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
const messageNodes = (page: Page) => page.locator('[role="log"] article').count();
const domElements = (page: Page) => page.evaluate("document.getElementsByTagName('*').length") as Promise<number>;

/** Posts `count` messages with up to SEED_CONCURRENCY in flight. */
async function seed(api: Api, token: string, channelId: string, count: number): Promise<void> {
  let next = 1;
  const worker = async () => {
    while (next <= count) {
      const i = next++;
      await api("POST", `/api/v1/messages/${channelId}`, { content: `history ${i}` }, token);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

/**
 * In the page: long tasks, key presses (event to handler, event to the next frame) and the
 * gaps between animation frames, recorded between start() and stop().
 */
const PROBE = `window.__budget = (() => {
  let recording = false;
  const longtasks = [], keys = [], gaps = [];
  new PerformanceObserver((list) => { if (recording) for (const e of list.getEntries()) longtasks.push(e.duration); }).observe({ type: "longtask" });
  addEventListener("keydown", (event) => {
    if (!recording) return;
    const delay = performance.now() - event.timeStamp;
    requestAnimationFrame(() => keys.push({ delay, frame: performance.now() - event.timeStamp }));
  }, true);
  let last = performance.now();
  const loop = (t) => { if (recording) gaps.push(t - last); last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  return {
    start() { longtasks.length = 0; keys.length = 0; gaps.length = 0; recording = true; },
    stop() { recording = false; return { longtasks: [...longtasks], keys: [...keys], gaps: [...gaps] }; },
  };
})()`;

interface Probe {
  longtasks: number[];
  keys: { delay: number; frame: number }[];
  gaps: number[];
  /** Each key press as the bench saw it: from sending it to Chromium having handled it. */
  presses: number[];
}

/** Presses a key in the composer every KEY_EVERY_MS for `seconds`, with the probe recording. */
async function typeWhile(page: Page, seconds: number, during?: () => Promise<void>): Promise<Probe> {
  await page.evaluate("window.__budget.start()");
  const presses: number[] = [];
  const typing = (async () => {
    const end = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < end; i++) {
      const t0 = performance.now();
      await page.keyboard.press(i % 40 === 39 ? "Backspace" : "x");
      presses.push(performance.now() - t0);
      await Bun.sleep(Math.max(0, KEY_EVERY_MS - (performance.now() - t0)));
    }
  })();
  await Promise.all([typing, during?.()]);
  await frames(page);
  return { ...((await page.evaluate("window.__budget.stop()")) as Omit<Probe, "presses">), presses };
}

function summarize(probe: Probe) {
  const tasks = probe.longtasks;
  const gaps = [...probe.gaps].sort((a, b) => a - b);
  return {
    longtasks: { n: tasks.length, total_ms: Math.round(tasks.reduce((a, b) => a + b, 0)), max_ms: Math.round(Math.max(0, ...tasks)) },
    key_press: latency(probe.presses),
    key_delay: latency(probe.keys.map((k) => k.delay)),
    key_to_frame: latency(probe.keys.map((k) => k.frame)),
    frame_gap: latency(gaps),
    frames_over_50ms: gaps.filter((g) => g > 50).length,
  };
}

if (!existsSync(CHROMIUM)) {
  log(`web-budget skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  console.log(JSON.stringify({ bench: "web-budget", skipped: true, reason: `no Chromium at ${CHROMIUM}` }));
  process.exit(0);
}

const started = performance.now();
const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-web-"));
let browser: Browser | null = null;
let exitCode = 0;
try {
  const { app, api } = await startHearth(dataDir);
  const url = app.url;
  const reader = await register(api, "reader");
  const talker = await register(api, "talker");
  const readerUser = await api("GET", "/api/v1/users/me/info", undefined, reader.token);
  const { serverId, channelId } = await community(app, api, reader);
  const invite = await api<{ code: string }>("POST", `/api/v1/servers/${serverId}/invites`, {}, reader.token);
  await api("POST", `/api/v1/servers/join/${invite.code}`, undefined, talker.token);
  const seedStart = performance.now();
  await seed(api, talker.token, channelId, MESSAGES);
  log(`seeded ${MESSAGES} messages in ${Math.round(performance.now() - seedStart)} ms`);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const account = { ...reader, user: readerUser };

  // 1. First load: `/` with a session (the app builds on this first request, then serves it).
  await fetch(`${url}/`);
  const first = await personPage(browser, url, account);
  await first.goto("/");
  await first.getByRole("navigation", { name: "Servers", exact: true }).getByRole("link", { name: "bench" }).waitFor();
  await Bun.sleep(500);
  const firstFiles = await scripts(first);
  const firstLoad = {
    js_gzip_bytes: sum(firstFiles, "gzip"),
    js_bytes: sum(firstFiles, "bytes"),
    files: firstFiles,
    budget_bytes: FIRST_LOAD_BUDGET,
    within_budget: sum(firstFiles, "gzip") <= FIRST_LOAD_BUDGET,
  };
  // The pages loaded on demand: what they add to what the first load already has.
  const loaded = new Set(firstFiles.map((f) => f.name));
  const onDemand: Record<string, number> = {};
  for (const path of ["/developers", "/settings/account", `/invite?bot=${readerUser && (readerUser as { id: string }).id}`]) {
    await first.goto(path);
    await first.getByRole("main").waitFor();
    await Bun.sleep(300);
    onDemand[path.split("?")[0]!] = sum((await scripts(first)).filter((f) => !loaded.has(f.name)), "gzip");
  }
  await first.context().close();
  log(`first load: ${firstLoad.js_gzip_bytes} B of gzipped JS (${firstLoad.js_bytes} B unpacked) in ${firstFiles.length} file(s), budget ${FIRST_LOAD_BUDGET} B; on demand: ${JSON.stringify(onDemand)}`);

  // 2. The channel with MESSAGES messages: open it, scroll up through all of it, then back down.
  const page = await personPage(browser, url, account);
  let pagesLoaded = 0;
  let reactionLookups = 0;
  page.on("response", (response) => {
    if (/\/api\/v1\/messages\/[^/?]+\?before=/.test(response.url())) pagesLoaded++;
    if (/\/api\/v1\/messages\/[^/]+\/reactions\//.test(response.url())) reactionLookups++;
  });
  await page.goto(`/channels/${serverId}/${channelId}`);
  const logBox = page.getByRole("log", { name: "Messages", exact: true });
  await logBox.getByText(`history ${MESSAGES}`, { exact: true }).waitFor();
  await frames(page);
  const onOpen = await messageNodes(page);
  let mostNodes = onOpen;
  let mostElements = await domElements(page);
  const intro = page.getByRole("heading", { name: "Welcome to #general!" });
  const upStart = performance.now();
  while ((await intro.count()) === 0) {
    if (performance.now() - upStart > 600_000) throw new Error("scrolling up did not reach the start of the history");
    await logBox.evaluate((el) => void (el.scrollTop = 0));
    await Bun.sleep(40);
    mostNodes = Math.max(mostNodes, await messageNodes(page));
  }
  const scrollUpMs = Math.round(performance.now() - upStart);
  await logBox.getByText("history 1", { exact: true }).waitFor();
  mostElements = Math.max(mostElements, await domElements(page));
  // Back down, two screens at a time, to the newest.
  let steps = 0;
  for (;;) {
    const done = await logBox.evaluate((el) => {
      el.scrollTop += el.clientHeight * 2;
      return el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
    });
    await frames(page);
    steps++;
    mostNodes = Math.max(mostNodes, await messageNodes(page));
    if (steps % 20 === 0) mostElements = Math.max(mostElements, await domElements(page));
    if (done || steps > 20_000) break;
  }
  await logBox.getByText(`history ${MESSAGES}`, { exact: true }).waitFor();
  const history = {
    messages: MESSAGES,
    older_pages_loaded: pagesLoaded,
    reaction_lookups: reactionLookups,
    dom_messages_on_open: onOpen,
    dom_messages_max: mostNodes,
    dom_elements_max: mostElements,
    scroll_up_through_ms: scrollUpMs,
    scroll_down_steps: steps,
    budget_dom_messages: DOM_MESSAGES_BUDGET,
    within_budget: mostNodes <= DOM_MESSAGES_BUDGET,
  };
  log(
    `history: ${MESSAGES} messages, ${pagesLoaded} older pages loaded by scrolling up (${scrollUpMs} ms, ${reactionLookups} reaction lookups in all); message nodes in the DOM: ${onOpen} on open, at most ${mostNodes} (all elements at most ${mostElements})`,
  );

  await page.context().close();

  // 3. The burst: the channel opened anew (nothing left over from scrolling, such as reaction
  // lookups of the messages scrolled past), the reader at the newest message, the focus in the composer.
  const live = await personPage(browser, url, account);
  await live.goto(`/channels/${serverId}/${channelId}`);
  const liveLog = live.getByRole("log", { name: "Messages", exact: true });
  await liveLog.getByText(`history ${MESSAGES}`, { exact: true }).waitFor();
  await Bun.sleep(1000);
  await live.evaluate(PROBE);
  const composer = live.getByRole("textbox", { name: "Message #general", exact: true });
  await composer.click();
  const baseline = summarize(await typeWhile(live, BASELINE_SECONDS));
  await composer.fill("");
  const total = Math.round(RATE * BURST_SECONDS);
  let errors = 0;
  let lastPostAt = 0;
  const burst = async () => {
    const t0 = performance.now();
    const posts: Promise<unknown>[] = [];
    for (let i = 1; i <= total; i++) {
      const wait = t0 + ((i - 1) * 1000) / RATE - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      posts.push(
        api("POST", `/api/v1/messages/${channelId}`, { content: `burst ${i}` }, talker.token).catch(() => {
          errors++;
        }),
      );
    }
    await Promise.all(posts);
    lastPostAt = performance.now();
  };
  const during = summarize(await typeWhile(live, BURST_SECONDS, burst));
  await liveLog.getByText(`burst ${total}`, { exact: true }).waitFor({ timeout: 60_000 });
  const caughtUpMs = Math.round(performance.now() - lastPostAt);
  const burstNodes = await messageNodes(live);
  const burstResult = { rate: RATE, seconds: BURST_SECONDS, sent: total, errors, caught_up_ms: caughtUpMs, dom_messages_after: burstNodes, ...during, baseline };
  log(
    `burst: ${total} messages at ${RATE}/s (${errors} errors); long tasks ${during.longtasks.n} (total ${during.longtasks.total_ms} ms, max ${during.longtasks.max_ms} ms) vs ${baseline.longtasks.n} idle; ` +
      `key press p50 ${during.key_press.p50_ms} / p99 ${during.key_press.p99_ms} ms (idle p99 ${baseline.key_press.p99_ms}); key delay p50 ${during.key_delay.p50_ms} / p99 ${during.key_delay.p99_ms} / max ${during.key_delay.max_ms} ms (idle p99 ${baseline.key_delay.p99_ms}); ` +
      `key to frame p99 ${during.key_to_frame.p99_ms} ms (idle ${baseline.key_to_frame.p99_ms}); frames over 50 ms: ${during.frames_over_50ms}; ` +
      `the log showed the last one ${caughtUpMs} ms after it was posted`,
  );

  const withinBudget = firstLoad.within_budget && history.within_budget && burstNodes <= DOM_MESSAGES_BUDGET;
  if (!withinBudget) {
    log("OVER BUDGET");
    exitCode = 1;
  }
  log(`web-budget done in ${Math.round((performance.now() - started) / 1000)} s`);
  console.log(JSON.stringify({ bench: "web-budget", quick: QUICK, within_budget: withinBudget, first_load: firstLoad, on_demand_js_gzip_bytes: onDemand, history, burst: burstResult }));
  await app.stop();
} finally {
  await browser?.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
