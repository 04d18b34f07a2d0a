/** What the voice browser suites share: a server with a voice channel, finding the room and its tiles, the page's voice diagnostics. */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { addBot } from "../../helpers/bots.ts";
import { addMember, createServer, createVoiceChannel, type VoiceChannelFields } from "../../helpers/community.ts";
import type { TestUser } from "../../helpers/server.ts";
import { spawnBot, type BotProcess } from "./bot-process.ts";
import type { Person, WebSuite } from "./harness.ts";

/** A server "Voice Club" owned by `owner` with a voice channel ("Lounge" unless named), `people` as members. */
export async function voiceServer(suite: WebSuite, owner: TestUser, people: TestUser[] = [], fields: VoiceChannelFields = {}) {
  const serverId = await createServer(suite.server, owner, "Voice Club");
  for (const person of people) await addMember(suite.server, serverId, person);
  const channelId = await createVoiceChannel(suite.server, owner, serverId, { name: "Lounge", chat_enabled: true, ...fields });
  return { serverId, channelId };
}

/** A bot "Tuner" in the server, running test/web/browser/voice-bot.ts, joined to `channelId`. */
export async function voiceBot(suite: WebSuite, owner: TestUser, serverId: string, channelId: string): Promise<BotProcess> {
  const bot = await addBot(suite.server, owner, serverId, "Tuner");
  const process = await spawnBot(suite.server.url, bot, { commands: [], script: "voice-bot.ts", env: { VOICE_CHANNEL: channelId } });
  const joined = await process.waitFor((line) => line.event === "joined");
  expect(joined.ok).toBe(true);
  return process;
}

export const room = (page: Page, name = "Lounge") => page.getByRole("region", { name: `Voice: ${name}` });
export const tile = (page: Page, name: string | RegExp, list = "In voice", roomName = "Lounge") =>
  room(page, roomName).getByRole("list", { name: list }).getByRole("listitem", { name });
/** A participant's options panel (opened with "Options for <name>" on their tile). */
export const options = (page: Page, name: string, roomName = "Lounge") => room(page, roomName).getByRole("group", { name: `Options for ${name}` });
export const controls = (page: Page, roomName = "Lounge") => room(page, roomName).getByRole("toolbar", { name: "Voice controls" });

/** What the page's voice diagnostics say (window.hearthVoice). */
export const diagnostics = (page: Page) => page.evaluate(() => (globalThis as unknown as { hearthVoice: () => any }).hearthVoice());

/** Opens the voice channel's page and joins it. */
export async function joinVoice(person: Person, serverId: string, channelId: string, name = "Lounge"): Promise<void> {
  await person.page.goto(`/channels/${serverId}/${channelId}`);
  await room(person.page, name).getByRole("button", { name: "Join voice" }).click();
  await controls(person.page, name).waitFor();
}

/**
 * Closes every page of the test that ended: live audio contexts, microphones and peer
 * connections of earlier tests would otherwise keep running and slow the next ones.
 */
export async function closePages(suite: WebSuite): Promise<void> {
  for (const context of suite.browser.contexts()) await context.close().catch(() => {});
}
