/**
 * Slash commands on the SDK against a real server: typed definitions registered with the
 * reference's type codes, options typed from the definition (compile-time checks below), and
 * the ways to answer: reply, defer then reply, edit, follow-up, and update on a component press.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { button, commandsToWire, createBot, defineCommand, HearthLimitError, stringSelect, type Bot, type OptionsOf } from "../../sdk/src/index.ts";
import { community, type Community } from "../helpers/community.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";

const everything = defineCommand({
  name: "all",
  description: "Every option type",
  options: [
    { name: "text", type: "string", required: true },
    { name: "count", type: "integer" },
    { name: "ratio", type: "number" },
    { name: "loud", type: "boolean" },
    { name: "who", type: "user" },
    { name: "where", type: "channel" },
    { name: "role", type: "role" },
    { name: "mode", type: "string", choices: [{ name: "Easy", value: "e" }, { name: "Hard", value: "h" }] },
  ],
});

// Compile-time: each option's type follows from the definition (npm run typecheck fails otherwise).
type Options = OptionsOf<typeof everything>;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>() => undefined as unknown as T;
assertType<Equal<Options["text"], string>>();
assertType<Equal<Options["count"], number | undefined>>();
assertType<Equal<Options["ratio"], number | undefined>>();
assertType<Equal<Options["loud"], boolean | undefined>>();
assertType<Equal<Options["who"], string | undefined>>();
assertType<Equal<Options["mode"], "e" | "h" | undefined>>();
assertType<Equal<OptionsOf<{ name: "ping" }>, { value?: string }>>();
// @ts-expect-error: no such option
assertType<Equal<Options["nope"], never>>();

let server: TestServer;
let place: Community & { bot: { token: string; botUserId: string } };
let socket: ClientSocket;
let bot: Bot;

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { bot: true });
  socket = await server.connect(place.member.token);
  await socket.emitWithAck("channel:join", place.channelId);
});
afterAll(async () => {
  bot?.stop();
  await server.stop();
});

const say = (content: string) => server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.member.token, body: { content } });
const fromBot = (event: "message:new" | "message:update") => waitForEvent(socket, event, { filter: (m) => m.user_id === place.bot.botUserId });

test("definitions are sent with the reference's type codes, and the handler gets the parsed options", async () => {
  expect(commandsToWire([everything])[0]!.options!.map((o) => o.type)).toEqual([3, 4, 10, 5, 6, 7, 8, 3]);
  const received: unknown[] = [];
  bot = createBot({ url: server.url, token: place.bot.token });
  bot.command(everything, async (command) => {
    received.push(command.options);
    await command.reply(`text=${command.options.text} count=${command.options.count ?? "-"}`);
  });
  bot.command(defineCommand({ name: "slow", description: "Takes a moment" }), async (command) => {
    await command.defer();
    await command.reply("done");
    await command.edit({ embeds: [{ title: "and an embed" }] });
    await command.followUp("one more thing");
  });
  bot.command(defineCommand({ name: "menu" }), (command) =>
    command.reply({ embeds: [{ title: "Pick", components: [stringSelect({ custom_id: "flavour", options: [{ label: "Mint", value: "mint" }, { label: "Lime", value: "lime" }] }), button({ label: "Go", custom_id: "go:1" })] }] }),
  );
  bot.component("flavour", (press) => press.update({ content: `you picked ${press.values.join(",")}` }));
  bot.component(/^go:/, (press) => press.reply(`go ${press.customId}`));
  await bot.start();

  const registered = await server.api("GET", `/api/v1/oauth2/servers/${place.serverId}/commands`, { token: place.member.token });
  expect(registered.body.map((c: { name: string }) => c.name).sort()).toEqual(["all", "menu", "slow"]);

  const answer = fromBot("message:new");
  expect((await say(`/all "hello there" 3 --who <@${place.member.id}> --mode Hard`)).status).toBe(201);
  expect((await answer).content).toBe("text=hello there count=3");
  expect(received).toEqual([{ text: "hello there", count: 3, who: place.member.id, mode: "h" }]);
});

test("defer() shows a placeholder that reply() replaces; edit() changes it again; followUp() adds a message", async () => {
  const created = recordEvents(socket, "message:new");
  const updates = recordEvents(socket, "message:update");
  expect((await say("/slow")).status).toBe(201);
  await until(() => created.filter((m) => m.user_id === place.bot.botUserId).length >= 2, "the placeholder and the follow-up");
  const fromTheBot = created.filter((m) => m.user_id === place.bot.botUserId);
  expect(fromTheBot.map((m) => m.content)).toEqual(["Thinking…", "one more thing"]);
  const placeholder = fromTheBot[0]!;
  expect(updates.filter((m) => m.id === placeholder.id).map((m) => [m.content, m.embeds.length])).toEqual([
    ["done", 0],
    ["done", 1],
  ]);
});

test("component presses reach the matching handler: update() edits the message, reply() answers anew", async () => {
  const menu = fromBot("message:new");
  await say("/menu");
  const message = await menu;
  const updated = fromBot("message:update");
  expect((await socket.emitWithAck("message:component", { message_id: message.id, custom_id: "flavour", values: ["lime"] })).ok).toBe(true);
  expect((await updated).content).toBe("you picked lime");
  const answered = fromBot("message:new");
  expect((await socket.emitWithAck("message:component", { message_id: message.id, custom_id: "go:1" })).ok).toBe(true);
  expect((await answered).content).toBe("go go:1");
});

test("definitions over the spec's limits are refused before anything is sent", () => {
  expect(() => defineCommand({ name: "has space" })).toThrow(HearthLimitError);
  expect(() => defineCommand({ name: "x", description: "d".repeat(101) })).toThrow("description: must be at most 100 characters");
  expect(() => defineCommand({ name: "x", options: [{ name: "__bot", type: "string" }] })).toThrow("options.0.name: __bot is reserved");
  expect(() => defineCommand({ name: "x", options: Array.from({ length: 26 }, (_, i) => ({ name: `o${i}`, type: "string" as const })) })).toThrow("options: at most 25 options");
  expect(() => commandsToWire([{ name: "a" }, { name: "A" }])).toThrow("1.name: Duplicate command name: a");
  expect(() => commandsToWire(Array.from({ length: 51 }, (_, i) => ({ name: `c${i}` })))).toThrow("at most 50 commands");
  expect(() => createBot({ url: server.url, token: "t" }).command({ name: "a" }, () => {}).command({ name: "a" }, () => {})).toThrow("command /a is defined twice");
});
