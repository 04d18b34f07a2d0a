/**
 * Voice activity (web/audio/speaking.ts): on at once at the threshold, off after the hangover;
 * and who is heard speaking, one detector per speaker, forgotten when the speaker is gone.
 */
import { describe, expect, test } from "bun:test";
import { HANGOVER_MS, sameMembers, SPEAKING_LEVEL, speakingNow, VoiceActivity } from "../../web/audio/speaking.ts";

test("voice activity: on at once above the threshold, off after the hangover", () => {
  const vad = new VoiceActivity(0.02, 400);
  expect(vad.update(0.001, 0)).toBe(false);
  expect(vad.update(0.05, 20)).toBe(true);
  expect(vad.update(0.001, 300)).toBe(true); // between syllables
  expect(vad.update(0.001, 420)).toBe(true);
  expect(vad.update(0.001, 421)).toBe(false);
  expect(vad.update(0.03, 500)).toBe(true);
});

const loud = SPEAKING_LEVEL * 2;
const quiet = SPEAKING_LEVEL / 2;

describe("speakingNow", () => {
  test("a level at or above the threshold speaks; one below it does not", () => {
    const detectors = new Map<string, VoiceActivity>();
    const now = speakingNow(new Map([["a", loud], ["b", quiet], ["c", SPEAKING_LEVEL]]), detectors, 1000);
    expect([...now].sort()).toEqual(["a", "c"]);
  });

  test("a speaker still speaks until the hangover has passed since their last loud reading, then stops", () => {
    const detectors = new Map<string, VoiceActivity>();
    speakingNow(new Map([["a", loud]]), detectors, 1000);
    // The readings in between are quiet (a pause between syllables, a beep's gap).
    expect(speakingNow(new Map([["a", quiet]]), detectors, 1100).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", quiet]]), detectors, 1000 + HANGOVER_MS).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", quiet]]), detectors, 1000 + HANGOVER_MS + 1).has("a")).toBe(false);
    // A new loud reading starts the hangover again.
    expect(speakingNow(new Map([["a", loud]]), detectors, 2000).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", 0]]), detectors, 2000 + HANGOVER_MS / 2).has("a")).toBe(true);
  });

  test("a speaker who is gone is forgotten, and is not held if they come back quiet", () => {
    const detectors = new Map<string, VoiceActivity>();
    speakingNow(new Map([["a", loud], ["b", loud]]), detectors, 1000);
    const now = speakingNow(new Map([["b", quiet]]), detectors, 1100);
    expect([...now]).toEqual(["b"]);
    expect(detectors.has("a")).toBe(false);
    expect(speakingNow(new Map([["a", quiet], ["b", quiet]]), detectors, 1200).has("a")).toBe(false);
  });

  test("sameMembers compares who, not the order", () => {
    expect(sameMembers(new Set(["a", "b"]), new Set(["b", "a"]))).toBe(true);
    expect(sameMembers(new Set(["a"]), new Set(["a", "b"]))).toBe(false);
    expect(sameMembers(new Set(["a", "c"]), new Set(["a", "b"]))).toBe(false);
    expect(sameMembers(new Set(), new Set())).toBe(true);
  });
});
