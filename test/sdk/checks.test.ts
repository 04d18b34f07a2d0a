/**
 * The SDK refuses before sending what the server would refuse, in the server's words: each bad
 * message below is sent to a real server too, and the SDK's HearthLimitError must read like the
 * server's 400. The builders check at once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { button, channelSelect, checkMessage, embed, HearthLimitError, LIMITS, linkButton, stringSelect } from "../../sdk/src/index.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let place: Community & { bot: { token: string } };
beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
});
afterAll(() => server.stop());

const E = LIMITS.embed;
const BAD: Record<string, unknown>[] = [
  { content: "x".repeat(LIMITS.message.contentLength + 1) },
  { embeds: Array.from({ length: E.embedsPerMessage + 1 }, () => ({ title: "t" })) },
  { embeds: [{ title: "t".repeat(E.title + 1) }] },
  { embeds: [{ description: "d".repeat(E.description + 1) }] },
  { embeds: [{ fields: [{ name: "", value: "v" }] }] },
  { embeds: [{ fields: [{ name: "n", value: "v".repeat(E.fieldValue + 1) }] }] },
  { embeds: [{ fields: Array.from({ length: E.fields + 1 }, () => ({ name: "n", value: "v" })) }] },
  { embeds: [{ description: "d".repeat(4000), fields: [{ name: "n".repeat(256), value: "v".repeat(1024) }, { name: "n".repeat(256), value: "v".repeat(1024) }] }] },
  { embeds: [{ title: "t", color: "red" }] },
  { embeds: [{ title: "t", url: "ftp://example.com" }] },
  { embeds: [{ footer: { text: "" } }] },
  { embeds: [{}] },
  { embeds: [{ components: [{ type: "button", label: "l".repeat(E.buttonLabel + 1), custom_id: "a" }] }] },
  { embeds: [{ components: [{ type: "button", label: "Go", style: "link", custom_id: "a", url: "https://example.com" }] }] },
  { embeds: [{ components: [{ type: "button", label: "Go", custom_id: "a" }] }, { components: [{ type: "button", label: "Again", custom_id: "a" }] }] },
  { embeds: [{ components: [{ type: "string_select", custom_id: "s", options: [] }] }] },
  { embeds: [{ components: [{ type: "string_select", custom_id: "s", options: [{ label: "A", value: "a" }, { label: "B", value: "a" }] }] }] },
  { embeds: [{ components: [{ type: "string_select", custom_id: "s", options: [{ label: "A", value: "a" }], max_values: 2 }] }] },
  { embeds: [{ components: [{ type: "channel_select", custom_id: "c", channel_types: ["text", "forum"] }] }] },
  { embeds: [{ components: [{ type: "slider", custom_id: "c" }] }] },
];

test("each bad message is refused by the SDK with the server's own message", async () => {
  for (const message of BAD) {
    const answer = await server.api("POST", `/api/v1/oauth2/bot/channels/${place.channelId}/messages`, { token: place.bot.token, body: message });
    expect(answer.status).toBe(400);
    let sdk: unknown = null;
    try {
      checkMessage(message);
    } catch (error) {
      sdk = error;
    }
    expect(sdk).toBeInstanceOf(HearthLimitError);
    expect({ message: (sdk as Error).message }).toEqual({ message: answer.body.error });
  }
});

test("a good message passes both", async () => {
  const message = {
    content: "hi",
    embeds: [embed({ title: "🎲", color: 0x5865f2, timestamp: new Date(0), fields: [{ name: "a", value: "b", inline: true }], components: [button({ label: "Go", custom_id: "go" }), linkButton({ label: "Docs", url: "https://example.com" })] })],
  };
  expect(() => checkMessage(message)).not.toThrow();
  const answer = await server.api("POST", `/api/v1/oauth2/bot/channels/${place.channelId}/messages`, { token: place.bot.token, body: message });
  expect(answer.status).toBe(201);
  expect(answer.body.embeds).toEqual(message.embeds);
  expect(message.embeds[0]!.color).toBe("#5865F2");
});

test("builders check where they are written, naming the field", () => {
  expect(() => embed({ title: "t".repeat(257) })).toThrow("embeds.0.title: must be at most 256 characters");
  expect(() => button({ label: "", custom_id: "x" })).toThrow("label: must be 1-80 characters");
  expect(() => button({ label: "Go", custom_id: "x".repeat(101) })).toThrow("custom_id: must be 1-100 characters");
  expect(() => linkButton({ label: "Go", url: "javascript:alert(1)" })).toThrow("url: must be an http(s) URL");
  expect(() => stringSelect({ custom_id: "s", options: [] })).toThrow("options: must contain at least 1 option");
  expect(() => channelSelect({ custom_id: "c", min_values: 3, max_values: 2 })).toThrow("min_values: must not exceed max_values");
  expect(() => embed({ color: 0x1000000 })).toThrow("color: must be an integer 0-16777215");
  // Emoji count as one character each, as on the server.
  expect(() => embed({ title: "🎲".repeat(256) })).not.toThrow();
});
