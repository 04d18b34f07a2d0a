/**
 * What counting requests for /metrics costs on the REST read path: authenticated
 * GET /api/v1/users/me/info against one Hearth, with the request metrics on and off in turn
 * (`app.metrics.httpEnabled`), alternating rounds so drift on a shared machine falls on both;
 * then the counting alone (`observeRequest` in a loop), which noise on the machine cannot hide.
 *
 * Load comes from a separate process: bench/raw-load-client.ts (`--client raw`, the default),
 * which costs a few µs a request so the server is what saturates, or
 * bench/load-client.ts (`--client fetch`), which runs out of CPU before this server does
 * Prints a human summary on stderr and one JSON line on stdout:
 * the totals of every round, and the median and range of the rounds' ratios (each round runs
 * both, in alternating order).
 *
 *   bun bench/metrics-overhead.ts [--seconds 3] [--rounds 2] [--concurrency 32] [--client raw|fetch]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { argOf, BENCH_REST_LIMITS, runLoadClient, servedIn, sumRuns, type LoadClient, type LoadedRun } from "./fixture.ts";
import { medianRange } from "./quantile.ts";

const seconds = Number(argOf("seconds", "3"));
const rounds = Number(argOf("rounds", "2"));
const concurrency = Number(argOf("concurrency", "32"));
const client = argOf("client", "raw") as LoadClient;
if (client !== "raw" && client !== "fetch") throw new Error("--client is raw or fetch");

/** A closed-loop load, with the server CPU (this process: Hearth runs in it) during it, in µs. */
type Loaded = LoadedRun;
async function load(url: string, token: string): Promise<Loaded> {
  const { result, cpu_us } = await runLoadClient(url, token, seconds, concurrency, client);
  return { ...result, cpu_us };
}

const served = (r: Loaded) => servedIn(r, concurrency);
const sum = (results: Loaded[]) => sumRuns(results, seconds, concurrency);

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-"));
try {
  const app = await createApp({ ...loadConfig({}), port: 0, host: "127.0.0.1", dataDir, databaseFile: join(dataDir, "hearth.db"), logLevel: "silent", authRateLimitPerMinute: 1_000_000, ...BENCH_REST_LIMITS });
  const reg = await fetch(`${app.url}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", email: "bench@example.test", password: "bench-password" }),
  });
  const { token } = (await reg.json()) as { token: string };
  const url = `${app.url}/api/v1/users/me/info`;
  const on: Loaded[] = [];
  const off: Loaded[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so neither always gets the warmer process.
    for (const enabled of round % 2 === 0 ? [true, false] : [false, true]) {
      app.metrics.httpEnabled = enabled;
      (enabled ? on : off).push(await load(url, token));
    }
  }
  app.metrics.httpEnabled = true;
  // The counting alone, without the load: what one answered request adds.
  const calls = 200_000;
  const observeStarted = performance.now();
  for (let i = 0; i < calls; i++) app.metrics.observeRequest("GET", "/api/v1/users/me/info", 200, 0.001);
  const observeUs = Math.round(((performance.now() - observeStarted) * 1000 * 1000) / calls) / 1000;
  const scrapeStarted = performance.now();
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const scrapeMs = Math.round((performance.now() - scrapeStarted) * 10) / 10;
  await app.stop();

  const metricsOn = sum(on);
  const metricsOff = sum(off);
  const roundsRps = medianRange(on.map((r, i) => r.rps / off[i]!.rps));
  const roundsCpu = medianRange(on.map((r, i) => r.cpu_us / served(r) / (off[i]!.cpu_us / served(off[i]!))));
  const result = {
    bench: "metrics-overhead",
    client,
    seconds,
    rounds,
    concurrency,
    metrics_on: metricsOn,
    metrics_off: metricsOff,
    ratio_rps: Math.round((metricsOn.rps / metricsOff.rps) * 1000) / 1000,
    ratio_cpu_per_request: Math.round((metricsOn.cpu_us_per_request / metricsOff.cpu_us_per_request) * 1000) / 1000,
    ratio_rps_rounds: roundsRps,
    ratio_cpu_rounds: roundsCpu,
    observe_us: observeUs,
    scrape_ms: scrapeMs,
    scrape_bytes: text.length,
  };
  console.error(
    `metrics-overhead (${client} client): request metrics on ${metricsOn.rps} req/s (p99 ${metricsOn.p99_ms} ms, ${metricsOn.cpu_us_per_request} µs CPU/request), ` +
      `off ${metricsOff.rps} req/s (p99 ${metricsOff.p99_ms} ms, ${metricsOff.cpu_us_per_request} µs): ratio ${result.ratio_rps} (rounds: median ${roundsRps.median}, ${roundsRps.range.join("-")}), CPU ${result.ratio_cpu_per_request}x (rounds ${roundsCpu.median}, ${roundsCpu.range.join("-")}); counting one request ${observeUs} µs; one scrape ${scrapeMs} ms, ${text.length} bytes`,
  );
  console.log(JSON.stringify(result));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
