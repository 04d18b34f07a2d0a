/** Formatting for the reader (web/lib/format.ts) and the typing throttle (web/lib/typing.ts). */
import { expect, test } from "bun:test";
import { channelLabel, formatEmbedTimestamp, formatFileSize, formatMessageTime, formatTimeLeft, initials, inviteCodeFrom, typingText } from "../../web/lib/format.ts";
import { TYPING_SEND_EVERY_MS, TypingSender } from "../../web/lib/typing.ts";

test("an embed timestamp in the reader's locale and time zone", () => {
  const iso = "2024-05-06T07:08:09.000Z";
  expect(formatEmbedTimestamp(iso, { locale: "en-US", timeZone: "UTC" })).toBe("May 6, 2024, 7:08 AM");
  expect(formatEmbedTimestamp(iso, { locale: "de-DE", timeZone: "Europe/Berlin" })).toBe("06.05.2024, 09:08");
  expect(formatEmbedTimestamp(iso, { locale: "en-GB", timeZone: "Asia/Tokyo" })).toBe("6 May 2024, 16:08");
  expect(formatEmbedTimestamp("not a date")).toBeNull();
});

test("a message time: the time today, 'Yesterday at', else the date", () => {
  const now = new Date("2024-05-06T12:00:00Z");
  const at = (iso: string) => Date.parse(iso) / 1000;
  const utc = { locale: "en-US", timeZone: "UTC" };
  expect(formatMessageTime(at("2024-05-06T09:30:00Z"), now, utc)).toBe("9:30 AM");
  expect(formatMessageTime(at("2024-05-05T23:10:00Z"), now, utc)).toBe("Yesterday at 11:10 PM");
  expect(formatMessageTime(at("2024-04-01T08:00:00Z"), now, utc)).toBe("4/1/24, 8:00 AM");
  // The reader's zone decides what "today" is.
  expect(formatMessageTime(at("2024-05-05T23:10:00Z"), now, { locale: "en-US", timeZone: "Europe/Paris" })).toBe("1:10 AM");
});

test("file sizes, initials, typing text and invite codes", () => {
  expect([0, 1023, 1024, 1536, 10 * 1024, 5 * 1024 * 1024, 3 * 1024 ** 3].map(formatFileSize)).toEqual(["0 B", "1023 B", "1.0 KB", "1.5 KB", "10 KB", "5.0 MB", "3.0 GB"]);
  expect([initials("Hearth HQ"), initials("alice"), initials("dev_team-2"), initials("  ")]).toEqual(["HH", "AL", "DT", "?"]);
  expect(typingText([])).toBe("");
  expect(typingText(["ann"])).toBe("ann is typing…");
  expect(typingText(["ann", "bob"])).toBe("ann and bob are typing…");
  expect(typingText(["ann", "bob", "cy"])).toBe("ann, bob and cy are typing…");
  expect(typingText(["a", "b", "c", "d"])).toBe("Several people are typing…");
  expect(inviteCodeFrom(" hTKzmak9Qx ")).toBe("hTKzmak9Qx");
  expect(inviteCodeFrom("http://localhost:3000/invite/hTKzmak9Qx")).toBe("hTKzmak9Qx");
  expect(inviteCodeFrom("https://chat.example/invite/my-vanity/?x=1")).toBe("my-vanity");
  expect(inviteCodeFrom("not a code")).toBeNull();
  expect(inviteCodeFrom("")).toBeNull();
});

test("typing:start at most once per interval while typing, one stop after sending", () => {
  let now = 0;
  const sent: string[] = [];
  const typing = new TypingSender((event) => sent.push(event), () => now);
  typing.input("h");
  typing.input("he");
  now += TYPING_SEND_EVERY_MS - 1;
  typing.input("hel");
  expect(sent).toEqual(["start"]);
  now += 1;
  typing.input("hell");
  expect(sent).toEqual(["start", "start"]);
  typing.stop();
  expect(sent).toEqual(["start", "start", "stop"]);
  // Nothing to stop twice; a cleared box stops; typing again starts at once.
  typing.stop();
  typing.input("x");
  typing.input("");
  typing.input("y");
  expect(sent).toEqual(["start", "start", "stop", "start", "stop", "start"]);
  // Long after the last start, others have stopped showing it: no stop is sent.
  now += 60_000;
  typing.stop();
  expect(sent).toEqual(["start", "start", "stop", "start", "stop", "start"]);
});

test("channelLabel: a text channel with #, a voice channel as the sidebar shows it", () => {
  expect(channelLabel({ name: "general", type: "text" })).toBe("#general");
  expect(channelLabel({ name: "Lounge", type: "voice" })).toBe("Lounge");
});

test("a countdown's time left: minutes and seconds, hours, days; never negative", () => {
  const cases: [number, string][] = [[0, "0:00"], [-5, "0:00"], [9, "0:09"], [8.2, "0:09"], [245, "4:05"], [3723, "1:02:03"], [86400, "1 day 0:00:00"], [3 * 86400 + 3723, "3 days 1:02:03"]];
  for (const [seconds, text] of cases) expect(formatTimeLeft(seconds)).toBe(text);
});
