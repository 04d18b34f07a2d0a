/**
 * What the REST rate limits (src/http/rest-rate-limits.ts) cost a request: the authenticated
 * `GET /api/v1/users/me/info` (or, with `--read page`, a page of 50 messages) against four
 * Hearths in this process, loaded one at a time at capacity by a separate raw load client
 * (bench/raw-load-client.ts, a few µs a request, so the server is what saturates):
 *
 * - `on`: the limiter counts every request (the limits raised so none is refused, as every bench);
 * - `off`: no REST rate limits (`restRateLimits: null`), the same code otherwise;
 * - `control`: a second `off`, loaded like the others: two Hearths in one process differ by a
 *   few percent with the same code (the A/A ratio printed), so an on/off ratio means something
 *   only beyond that;
 * - `refused`: the reads bucket is spent, so every request is answered 429: what a flooder's
 *   refused request costs the server.
 *
 * `on`, `off` and `control` alternate their order each round, so drift on a shared machine falls on all.
 * Prints a human summary on stderr and one JSON line on stdout: each mode's totals (requests a
 * second, p50/p99, server CPU per request), and the median and range of the rounds' on/off ratios.
 *
 * `--flood`: what one user's flood costs another instead. One user's `--concurrency` (20) closed-loop readers
 * of a page of 50 messages for `--seconds`, while another user reads the same page every 20 ms;
 * that user's p50/p99 alone and during the flood, with the default REST limits and without any.
 *
 *   bun bench/rest-rate-limit.ts [--seconds 3] [--rounds 2] [--concurrency 32] [--read me|page]
 *   bun bench/rest-rate-limit.ts --flood [--seconds 3] [--concurrency 20]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../src/config.ts";
import { argOf, BENCH_REST_LIMITS, community, hasFlag, log, register, runLoadClient, servedIn, sumRuns, startHearth, type LoadedRun } from "./fixture.ts";
import { medianRange, pct } from "./quantile.ts";
import { DEFAULT_REST_RATE_LIMITS } from "../src/http/rate-limit-families.ts";

/** The other user's page reads every 20 ms while `during` runs (or for `ms`): their latencies. */
async function observe(url: string, token: string, during: Promise<unknown> | number): Promise<{ p50_ms: number; p99_ms: number; n: number; statuses: Record<number, number> }> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let running = true;
  const done = typeof during === "number" ? Bun.sleep(during) : during;
  void done.then(() => (running = false));
  while (running) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    await Bun.sleep(20);
  }
  latencies.sort((a, b) => a - b);
  return { p50_ms: pct(latencies, 0.5), p99_ms: pct(latencies, 0.99), n: latencies.length, statuses };
}

async function floodBench(): Promise<void> {
  const readers = Number(argOf("concurrency", "20"));
  const rows: Record<string, unknown>[] = [];
  // The reads window of the defaults (500 per 10 s): the other user's reads stay within it.
  for (const [mode, limits] of [["defaults", { restRateLimits: { ...BENCH_REST_LIMITS.restRateLimits!, reads: DEFAULT_REST_RATE_LIMITS.reads } }], ["unlimited", { restRateLimits: null }]] as const) {
    const dir = mkdtempSync(join(tmpdir(), `hearth-bench-flood-${mode}-`));
    try {
      const { app, api } = await startHearth(dir, limits as Partial<Config>);
      const flooder = await register(api, `flooder_${mode}`);
      const other = await register(api, `reader_${mode}`);
      const { serverId, channelId } = await community(app, api, flooder);
      await app.store.members.add(serverId, other.id, "member");
      for (let i = 0; i < 50; i++) await api("POST", `/api/v1/messages/${channelId}`, { content: `message ${i} of the page` }, flooder.token);
      const page = `${app.url}/api/v1/messages/${channelId}?limit=50`;
      const alone = await observe(page, other.token, seconds * 1000);
      const flood = runLoadClient(page, flooder.token, seconds, readers, "raw");
      const during = await observe(page, other.token, flood);
      const { result } = await flood;
      rows.push({ mode, flooder: { rps: result.rps, refused: result.errors, p99_ms: result.p99_ms }, other_alone: alone, other_during: during });
      log(`flood (${mode}): the flooder's ${readers} readers ${result.rps} req/s (${result.errors} refused); the other user's read p50/p99 ${alone.p50_ms}/${alone.p99_ms} ms alone, ${during.p50_ms}/${during.p99_ms} ms during the flood`);
      await app.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify({ bench: "rest-rate-limit", scenario: "flood", seconds, readers, rows }));
}

const seconds = Number(argOf("seconds", "3"));
const rounds = Number(argOf("rounds", "2"));
const concurrency = Number(argOf("concurrency", "32"));
const read = argOf("read", "me");
if (read !== "me" && read !== "page") throw new Error("--read is me or page");

if (hasFlag("flood")) {
  await floodBench();
  process.exit(0);
}

type Mode = "on" | "off" | "control" | "refused";
const MODES: Record<Mode, Partial<Config>> = {
  on: BENCH_REST_LIMITS,
  off: { restRateLimits: null },
  control: { restRateLimits: null },
  // One read a day: spent by the first request, every other one is a 429.
  refused: { restRateLimits: { ...BENCH_REST_LIMITS.restRateLimits!, reads: { requests: 1, windowSeconds: 86_400 } } },
};

type Loaded = LoadedRun;
const served = (r: Loaded) => servedIn(r, concurrency);
const sum = (results: Loaded[]) => sumRuns(results, seconds, concurrency);

const dirs: string[] = [];
const targets = {} as Record<Mode, { url: string; token: string; stop(): Promise<void> }>;
try {
  for (const mode of Object.keys(MODES) as Mode[]) {
    const dir = mkdtempSync(join(tmpdir(), `hearth-bench-rate-${mode}-`));
    dirs.push(dir);
    const { app, api } = await startHearth(dir, MODES[mode]);
    const owner = await register(api, `bench_${mode}`);
    let path = "/api/v1/users/me/info";
    if (read === "page") {
      const { channelId } = await community(app, api, owner);
      for (let i = 0; i < 50; i++) await api("POST", `/api/v1/messages/${channelId}`, { content: `message ${i} of the page` }, owner.token);
      path = `/api/v1/messages/${channelId}?limit=50`;
    }
    targets[mode] = { url: app.url + path, token: owner.token, stop: () => app.stop() };
  }
  const load = async (mode: Mode): Promise<Loaded> => {
    const { result, cpu_us } = await runLoadClient(targets[mode].url, targets[mode].token, seconds, concurrency, "raw");
    return { ...result, cpu_us };
  };
  const results: Record<Mode, Loaded[]> = { on: [], off: [], control: [], refused: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (["on", "off", "control"] as const) : (["control", "off", "on"] as const)) results[mode].push(await load(mode));
    results.refused.push(await load("refused"));
  }
  for (const target of Object.values(targets)) await target.stop();

  const on = sum(results.on);
  const off = sum(results.off);
  const refused = sum(results.refused);
  const control = sum(results.control);
  const cpuOf = (r: Loaded) => r.cpu_us / served(r);
  const result = {
    bench: "rest-rate-limit",
    read,
    client: "raw",
    seconds,
    rounds,
    concurrency,
    limiter_on: on,
    limiter_off: off,
    refused_429: refused,
    ratio_rps: Math.round((on.rps / off.rps) * 1000) / 1000,
    ratio_cpu_per_request: Math.round((on.cpu_us_per_request / off.cpu_us_per_request) * 1000) / 1000,
    ratio_rps_rounds: medianRange(results.on.map((r, i) => r.rps / results.off[i]!.rps)),
    ratio_cpu_rounds: medianRange(results.on.map((r, i) => cpuOf(r) / cpuOf(results.off[i]!))),
    limiter_us_per_request: Math.round((on.cpu_us_per_request - off.cpu_us_per_request) * 10) / 10,
    control_ratio_rps: Math.round((control.rps / off.rps) * 1000) / 1000,
    control_ratio_cpu_per_request: Math.round((control.cpu_us_per_request / off.cpu_us_per_request) * 1000) / 1000,
    refused_cpu_vs_off: Math.round((refused.cpu_us_per_request / off.cpu_us_per_request) * 1000) / 1000,
  };
  console.error(
    `rest-rate-limit (${read}): limiter on ${on.rps} req/s (p99 ${on.p99_ms} ms, ${on.cpu_us_per_request} µs CPU/request), ` +
      `off ${off.rps} req/s (p99 ${off.p99_ms} ms, ${off.cpu_us_per_request} µs): ratio ${result.ratio_rps} (rounds ${result.ratio_rps_rounds.median}, ${result.ratio_rps_rounds.range.join("-")}), ` +
      `CPU ${result.ratio_cpu_per_request}x (+${result.limiter_us_per_request} µs); A/A control ${result.control_ratio_rps} (CPU ${result.control_ratio_cpu_per_request}x); every request refused: ${refused.rps} req/s, ${refused.cpu_us_per_request} µs CPU per 429 (${result.refused_cpu_vs_off}x an unlimited answer)`,
  );
  console.log(JSON.stringify(result));
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
