import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config.ts";
import { keyHint } from "../../../src/domain/ai/keys.ts";
import { completionsUrl } from "../../../src/domain/ai/provider.ts";
import { secondsUntilReset, utcDay } from "../../../src/domain/ai/quota.ts";

// Pure rules of the AI assistant (docs/ai.md).
describe("daily quota days", () => {
  test.each([
    ["2026-11-23T00:00:00.000Z", "2026-11-23", 86_400],
    ["2026-11-23T23:59:59.000Z", "2026-11-23", 1],
    ["2026-11-23T23:59:59.900Z", "2026-11-23", 1],
    ["2026-11-23T12:00:00.000Z", "2026-11-23", 43_200],
    ["2026-12-31T23:00:00.000Z", "2026-12-31", 3600],
  ])("%s is day %s and resets in %i s", (at, day, seconds) => {
    expect(utcDay(new Date(at))).toBe(day);
    expect(secondsUntilReset(new Date(at))).toBe(seconds);
  });
});

describe("key hints never show more than 4 characters", () => {
  test.each([
    ["", null],
    ["short", "…"],
    ["elevenchars", "…"],
    ["sk-abcdefghijklmnop", "…mnop"],
  ])("%j -> %j", (key, hint) => {
    expect(keyHint(key)).toBe(hint);
  });
});

describe("completions URL", () => {
  test.each([
    ["https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"],
    ["http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions"],
    ["http://127.0.0.1:8000/v1//", "http://127.0.0.1:8000/v1/chat/completions"],
  ])("%s", (base, url) => {
    expect(completionsUrl(base)).toBe(url);
  });
});

describe("AI_PROVIDER_TIMEOUT_MS", () => {
  test("defaults to 60 s and reads the environment", () => {
    expect(loadConfig({}).aiProviderTimeoutMs).toBe(60_000);
    expect(loadConfig({ AI_PROVIDER_TIMEOUT_MS: "1500" }).aiProviderTimeoutMs).toBe(1500);
  });

  test.each([
    ["50", "AI_PROVIDER_TIMEOUT_MS must be at least 100"],
    ["600001", "AI_PROVIDER_TIMEOUT_MS must be at most 600000"],
    ["soon", "AI_PROVIDER_TIMEOUT_MS must be a whole number"],
  ])("refuses %s", (value, message) => {
    expect(() => loadConfig({ AI_PROVIDER_TIMEOUT_MS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ AI_PROVIDER_TIMEOUT_MS: value })).toThrow(message);
  });
});
