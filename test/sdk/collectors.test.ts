/**
 * `Bot.awaitComponent()` and `Bot.awaitMessage()` against a real server: a press on the bot's
 * button and a user's next message resolve them (through their filters), a timeout, an abort and
 * `stop()` reject them, and whichever way a wait ends it lets go: the next press reaches the
 * bot's `component()` handler again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { button, createBot, embed, HearthError, HearthTimeoutError, type Bot, type ComponentContext } from "../../sdk/src/index.ts";
import { addBot } from "../helpers/bots.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";

let server: TestServer;
let place: Community;
let alice: ClientSocket;
let bob: ClientSocket;
let bot: Bot;
let botUserId: string;
/** Presses that reached the `component("ask:")` handler. */
const handled: string[] = [];

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { extraMembers: 1 });
  const app = await addBot(server, place.owner, place.serverId, "Asker");
  botUserId = app.botUserId;
  bot = createBot({ url: server.url, token: app.token });
  bot.component("ask:", (press) => void handled.push(`${press.user.id} ${press.customId}`));
  await bot.start();
  await bot.joinChannel(place.channelId);
  alice = await server.connect(place.member.token);
  bob = await server.connect(place.members[1]!.token);
});
afterAll(async () => {
  bot.stop();
  await server.stop();
});

const question = () => bot.send(place.channelId, { content: "Sure?", embeds: [embed({ title: "Confirm", components: [button({ label: "Yes", custom_id: "ask:yes" })] })] });
const press = (who: ClientSocket, messageId: string) => who.emitWithAck("message:component", { message_id: messageId, custom_id: "ask:yes" });
const say = (token: string, content: string) => server.api("POST", `/api/v1/messages/${place.channelId}`, { token, body: { content } });

test("awaitComponent resolves with the press its filter takes; other presses go on to the handlers", async () => {
  const message = await question();
  const answered = bot.awaitComponent(message, { filter: (p) => p.user.id === place.member.id, timeout: 5000 });
  expect((await press(bob, message.id)).ok).toBe(true); // not Alice: the handler gets it
  await until(() => handled.length === 1, "Bob's press handled");
  expect(handled).toEqual([`${place.members[1]!.id} ask:yes`]);
  expect((await press(alice, message.id)).ok).toBe(true);
  const got: ComponentContext = await answered;
  expect(got.user.id).toBe(place.member.id);
  expect(got.messageId).toBe(message.id);
  expect(got.customId).toBe("ask:yes");
  // The context answers like a handler's.
  const edited = waitForEvent(alice, "message:update", { filter: (m) => m.id === message.id, timeout: 5000 });
  await alice.emitWithAck("channel:join", place.channelId);
  await got.update({ content: "Confirmed", embeds: [] });
  expect((await edited).content).toBe("Confirmed");
  expect(handled.length).toBe(1); // Alice's press was taken by the wait alone
});

test("awaitComponent times out with HearthTimeoutError, and then lets go of the message", async () => {
  const message = await question();
  const started = performance.now();
  const waiting = bot.awaitComponent(message.id, { timeout: 150 });
  await expect(waiting).rejects.toBeInstanceOf(HearthTimeoutError);
  await expect(waiting).rejects.toThrow(`awaitComponent: no press on message ${message.id} within 150 ms`);
  expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  handled.length = 0;
  await press(alice, message.id);
  await until(() => handled.length === 1, "the press handled once the wait is over");
});

test("an aborted awaitComponent rejects with the reason and lets go; stop() rejects what is pending", async () => {
  const message = await question();
  const controller = new AbortController();
  const waiting = bot.awaitComponent(message, { signal: controller.signal });
  controller.abort(new Error("the user walked away"));
  await expect(waiting).rejects.toThrow("the user walked away");
  handled.length = 0;
  await press(alice, message.id);
  await until(() => handled.length === 1, "the press handled after the abort");
  const aborted = new AbortController();
  aborted.abort(new Error("already"));
  await expect(bot.awaitMessage({ signal: aborted.signal })).rejects.toThrow("already");
  await expect(bot.awaitMessage({ timeout: -1 })).rejects.toThrow("awaitMessage: timeout must be a number of milliseconds");
});

test("awaitMessage resolves with the next message in the channel that passes its filter, skipping the bot's own", async () => {
  const answer = bot.awaitMessage({ channelId: place.channelId, filter: (m) => m.user_id === place.member.id, timeout: 5000 });
  await bot.send(place.channelId, "What is your name?"); // the bot's own: skipped
  expect((await say(place.members[1]!.token, "not me")).status).toBe(201); // the filter says no
  expect((await say(place.member.token, "Alice")).status).toBe(201);
  const got = await answer;
  expect(got.content).toBe("Alice");
  expect(got.user_id).toBe(place.member.id);
  const own = bot.awaitMessage({ channelId: place.channelId, includeOwn: true, timeout: 5000 });
  await bot.send(place.channelId, "mine");
  expect((await own).user_id).toBe(botUserId);
});

test("awaitMessage times out with a clear error; a filter that throws rejects with its error", async () => {
  await expect(bot.awaitMessage({ channelId: place.channelId, timeout: 100 })).rejects.toThrow(`awaitMessage: no message in channel ${place.channelId} within 100 ms`);
  const broken = bot.awaitMessage({
    filter: () => {
      throw new Error("filter broke");
    },
  });
  const sent = say(place.member.token, "anything");
  await expect(broken).rejects.toThrow("filter broke");
  expect((await sent).status).toBe(201);
});

test("stop() rejects every pending wait", async () => {
  const app = await addBot(server, place.owner, place.serverId, "Quitter");
  const other = createBot({ url: server.url, token: app.token });
  await other.start();
  const message = other.awaitMessage();
  const component = other.awaitComponent("nothing");
  other.stop();
  await expect(message).rejects.toThrow(HearthError);
  await expect(message).rejects.toThrow("the bot stopped");
  await expect(component).rejects.toThrow("the bot stopped");
});
