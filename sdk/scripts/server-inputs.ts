/**
 * What the SDK is generated from: the two reference documents a running Hearth serves, and the
 * server's tables the SDK checks against before sending (copied by value into the package).
 * Used by `npm run sdk:generate` (./generate-main.ts) and by test/sdk/generated.test.ts.
 */
import { CHANNEL_COUNTS, DEFAULT_CHANNELS, DEFAULT_SAMPLE_RATE, SAMPLE_RATES } from "../../src/audio/frames.ts";
import { OPTION_TYPES } from "../../src/domain/bots/command-args.ts";
import { LIMITS } from "../../src/domain/shared/limits.ts";
import { DEFAULT_EVENT_LIMITS, EVENT_KIND } from "../../src/gateway/event-limits.ts";
import type { GeneratorInput } from "./generate.ts";
import type { Schema } from "./schema-to-ts.ts";

/** The server's constants the SDK needs, under the names the generated module exports. */
export const SERVER_CONSTANTS = {
  /** src/domain/shared/limits.ts: every limit (embeds, messages, commands, audio frames). */
  LIMITS,
  /** src/domain/bots/command-args.ts: the option type codes a command definition sends. */
  OPTION_TYPES,
  /** src/audio/frames.ts: the PCM formats `bot:audio-data` accepts. */
  SAMPLE_RATES,
  DEFAULT_SAMPLE_RATE,
  CHANNEL_COUNTS,
  DEFAULT_CHANNELS,
  /** src/gateway/event-limits.ts: each client event's kind, and each kind's default limit per socket (the SDK paces its emits by them until the server publishes its own). */
  EVENT_KIND,
  DEFAULT_EVENT_LIMITS,
};

async function fetchJson(url: string): Promise<Schema> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as Schema;
}

export async function serverInputs(baseUrl: string): Promise<GeneratorInput> {
  const [openapi, asyncapi] = await Promise.all([fetchJson(`${baseUrl}/api/v1/openapi.json`), fetchJson(`${baseUrl}/api/v1/asyncapi.json`)]);
  return { openapi, asyncapi, constants: SERVER_CONSTANTS };
}
