/**
 * Who counts as speaking (web/audio/speaking.ts): a level above the threshold, held for a while
 * after the last one, and forgotten when the speaker is gone.
 */
import { describe, expect, test } from "bun:test";
import { sameMembers, SPEAKING_HOLD_MS, SPEAKING_LEVEL, speakingNow } from "../../web/audio/speaking.ts";

const loud = SPEAKING_LEVEL * 2;
const quiet = SPEAKING_LEVEL / 2;

describe("speakingNow", () => {
  test("a level above the threshold speaks; one at or below it does not", () => {
    const heardAt = new Map<string, number>();
    const now = speakingNow(new Map([["a", loud], ["b", quiet], ["c", SPEAKING_LEVEL]]), heardAt, 1000);
    expect([...now]).toEqual(["a"]);
  });

  test("a speaker still speaks until the hold has passed since their last loud reading, then stops", () => {
    const heardAt = new Map<string, number>();
    speakingNow(new Map([["a", loud]]), heardAt, 1000);
    // The readings in between are quiet (a pause between syllables, a beep's gap).
    expect(speakingNow(new Map([["a", quiet]]), heardAt, 1100).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", quiet]]), heardAt, 1000 + SPEAKING_HOLD_MS - 1).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", quiet]]), heardAt, 1000 + SPEAKING_HOLD_MS).has("a")).toBe(false);
    // A new loud reading starts the hold again.
    expect(speakingNow(new Map([["a", loud]]), heardAt, 2000).has("a")).toBe(true);
    expect(speakingNow(new Map([["a", 0]]), heardAt, 2000 + SPEAKING_HOLD_MS / 2).has("a")).toBe(true);
  });

  test("a speaker who is gone is forgotten, and is not held if they come back quiet", () => {
    const heardAt = new Map<string, number>();
    speakingNow(new Map([["a", loud], ["b", loud]]), heardAt, 1000);
    const now = speakingNow(new Map([["b", quiet]]), heardAt, 1100);
    expect([...now]).toEqual(["b"]);
    expect(heardAt.has("a")).toBe(false);
    expect(speakingNow(new Map([["a", quiet], ["b", quiet]]), heardAt, 1200).has("a")).toBe(false);
  });

  test("sameMembers compares who, not the order", () => {
    expect(sameMembers(new Set(["a", "b"]), new Set(["b", "a"]))).toBe(true);
    expect(sameMembers(new Set(["a"]), new Set(["a", "b"]))).toBe(false);
    expect(sameMembers(new Set(["a", "c"]), new Set(["a", "b"]))).toBe(false);
    expect(sameMembers(new Set(), new Set())).toBe(true);
  });
});
