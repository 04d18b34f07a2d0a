/**
 * Slash commands in the composer, end to end: the issue's /roll scenario (a bot process, the
 * rule-7 ranking, inline options, an embed with a button, the press and its follow-up), two
 * bots sharing /ping, pickers, choices by name, the missing-option message, "no answer", and
 * doing all of it by keyboard.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { history } from "../../helpers/bot-platform.ts";
import { addBot } from "../../helpers/bots.ts";
import { addMember, createServer } from "../../helpers/community.ts";
import { spawnBot, type BotProcess } from "./bot-process.ts";
import { accessibleNames, eventually, isFocused, messageWith, startWebSuite, type WebSuite } from "./harness.ts";
import { quietWindow } from "../../helpers/wait.ts";

let suite: WebSuite;
const bots: BotProcess[] = [];
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(async () => {
  for (const bot of bots) bot.stop();
  await suite.stop();
});

async function serverWithChannel(ownerName?: string) {
  const owner = await suite.server.register(ownerName);
  const serverId = await createServer(suite.server, owner, "Game night");
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  return { owner, serverId, channelId: general!.id };
}

test("/roll: ranked first for /ro, options filled inline, the bot's embed and button, and the press's follow-up", async () => {
  const { owner, serverId, channelId } = await serverWithChannel();
  const dice = await addBot(suite.server, owner, serverId, "Dice");
  const helper = await addBot(suite.server, owner, serverId, "Helper");
  const rollBot = await spawnBot(suite.server.url, dice, {
    commands: [
      {
        name: "roll",
        description: "Roll some dice",
        options: [
          { name: "sides", description: "Sides of each die", type: "integer", required: true, min_value: 2 },
          { name: "count", description: "How many dice", type: "integer" },
        ],
      },
      { name: "throw", description: "Throw a die across the table" },
    ],
  });
  bots.push(rollBot);
  const other = await spawnBot(suite.server.url, helper, {
    commands: [
      { name: "help", description: "Everything about rolls" },
      { name: "ping", description: "Check the bot is alive" },
    ],
  });
  bots.push(other);

  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.click();
  await box.pressSequentially("/ro");
  const list = page.getByRole("listbox", { name: "Commands", exact: true });
  await list.waitFor();
  // Rule 7: name prefix (roll), then name contains (throw), then description (help); ping is left out.
  await eventually(async () => {
    const names = await accessibleNames(list, "option");
    expect(names.map((n) => n.split(" ")[0])).toEqual(["/roll", "/throw", "/help"]);
  });
  const first = list.getByRole("option").first();
  expect(await first.getAttribute("aria-selected")).toBe("true");
  expect(await first.textContent()).toContain("Dice");
  expect(await first.textContent()).toContain("Roll some dice");
  await suite.shot(page, "commands-1-ranked");

  await box.press("Enter");
  const sides = page.getByRole("spinbutton", { name: "sides" });
  await sides.waitFor();
  expect(await isFocused(sides)).toBe(true);
  await sides.fill("20");
  await page.getByRole("spinbutton", { name: "count" }).fill("3");
  await suite.shot(page, "commands-2-options");
  await page.keyboard.press("Enter");

  const received = await rollBot.waitFor((l) => l.event === "interaction" && l.interaction.type === "slash_command");
  expect(received.interaction.command).toBe("roll");
  expect(received.interaction.options).toEqual({ sides: 20, count: 3 });
  expect(received.interaction.args).toBe("20 3");

  // The answer: the embed as the spec describes it, and its button.
  const answer = messageWith(page, "Rolled a d20");
  await answer.waitFor();
  await messageWith(page, "/roll 20 3").waitFor();
  expect(await answer.locator(".badge.bot").textContent()).toBe("BOT");
  const title = answer.getByRole("link", { name: "Rolled a d20" });
  expect(await title.getAttribute("href")).toBe("https://dice.example/rolls");
  expect(await answer.textContent()).toContain("The die shows");
  expect(await answer.getByText("Fair and square").isVisible()).toBe(true);
  expect(await answer.getByText("Dice by the book").isVisible()).toBe(true);
  expect(await answer.locator("time[datetime='2024-05-06T07:08:09.000Z']").textContent()).toBe("May 6, 2024, 7:08 AM");
  expect(await answer.locator(".embed").getAttribute("data-color")).toBe("#2F9E44");
  // The bot's mention of the person reads as their name.
  expect(await answer.textContent()).toContain(`Rolling for @${owner.username}`);
  await suite.shot(page, "commands-3-embed");

  await answer.getByRole("button", { name: "Roll again" }).click();
  const press = await rollBot.waitFor((l) => l.event === "interaction" && l.interaction.type === "message_component");
  expect(press.interaction.custom_id).toBe("roll-again");
  expect(press.interaction.component_type).toBe("button");
  expect(press.interaction.user.id).toBe(owner.id);
  await messageWith(page, `${owner.username} pressed roll-again`).waitFor();
  await suite.shot(page, "commands-4-follow-up");
  // Nobody but the authoring bot heard the press.
  expect(other.interactions).toEqual([]);
});

test("two bots with /ping: the person picks the second one's, and only that bot receives it", async () => {
  const { owner, serverId, channelId } = await serverWithChannel();
  const first = await spawnBot(suite.server.url, await addBot(suite.server, owner, serverId, "PingAlpha"), { commands: [{ name: "ping", description: "Alpha pings" }] });
  const second = await spawnBot(suite.server.url, await addBot(suite.server, owner, serverId, "PingBeta"), { commands: [{ name: "ping", description: "Beta pings" }] });
  bots.push(first, second);

  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.click();
  await box.pressSequentially("/ping");
  const options = page.getByRole("listbox", { name: "Commands", exact: true }).getByRole("option");
  await eventually(async () => expect(await options.count()).toBe(2));
  expect(await options.nth(0).textContent()).toContain("PingAlpha");
  expect(await options.nth(1).textContent()).toContain("PingBeta");
  for (const name of await accessibleNames(page.getByRole("listbox", { name: "Commands", exact: true }), "option")) expect(name.startsWith("/ping ")).toBe(true);
  await box.press("ArrowDown");
  expect(await options.nth(1).getAttribute("aria-selected")).toBe("true");
  await suite.shot(page, "commands-5-two-bots");
  await box.press("Enter");
  // The chosen command says whose it is.
  await page.getByRole("form", { name: "/ping options" }).getByText("PingBeta").waitFor();
  await page.keyboard.press("Enter");

  const got = await second.waitFor((l) => l.event === "interaction");
  expect(got.interaction.command).toBe("ping");
  await messageWith(page, "ping answered by PingBeta").waitFor();
  await quietWindow(); // the other bot's process: nothing later from it to wait for
  expect(first.interactions).toEqual([]);
  // History keeps the command without the routing flag.
  const stored = await history(suite.server, owner.token, channelId);
  expect(stored.some((m) => m.content === "/ping")).toBe(true);
  expect(stored.some((m) => String(m.content).includes("__bot"))).toBe(false);
});

test("pickers and choices, by keyboard alone: declared USER, inferred channel and role, a choice by name", async () => {
  const { owner, serverId, channelId } = await serverWithChannel();
  const bob = await suite.server.register("bob_picker");
  await addMember(suite.server, serverId, bob);
  const role = await suite.server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "Moderators", color: "#E8590C", permissions: 0 } });
  expect(role.status).toBe(201);
  const giver = await spawnBot(suite.server.url, await addBot(suite.server, owner, serverId, "Giver"), {
    commands: [
      {
        name: "give",
        description: "Give a prize",
        options: [
          { name: "target", description: "Who wins", type: "user", required: true },
          { name: "channel", description: "Where to announce" },
          { name: "role", description: "Role to grant" },
          { name: "mode", description: "How", required: true, choices: [{ name: "Hard Mode", value: "h" }, { name: "Easy", value: "e" }] },
        ],
      },
    ],
  });
  bots.push(giver);

  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.focus();
  await page.keyboard.type("/gi");
  await page.getByRole("listbox", { name: "Commands", exact: true }).waitFor();
  await page.keyboard.press("Tab"); // Tab chooses, as Enter does

  const target = page.getByRole("combobox", { name: "target" });
  await target.waitFor();
  expect(await isFocused(target)).toBe(true);
  await page.keyboard.type("bob");
  await page.getByRole("listbox", { name: "Members", exact: true }).getByRole("option", { name: /@bob_picker/ }).waitFor();
  await page.keyboard.press("Enter");
  expect(await target.inputValue()).toBe("@bob_picker");

  await page.keyboard.press("Tab");
  const channel = page.getByRole("combobox", { name: "channel" });
  expect(await isFocused(channel)).toBe(true);
  await page.keyboard.type("gen");
  await page.getByRole("listbox", { name: "Channels", exact: true }).waitFor();
  await page.keyboard.press("Enter");
  expect(await channel.inputValue()).toBe("#general");

  await page.keyboard.press("Tab");
  await page.keyboard.type("Mod");
  await page.getByRole("listbox", { name: "Roles" }).waitFor();
  await suite.shot(page, "commands-6-role-picker");
  await page.keyboard.press("Enter");
  expect(await page.getByRole("combobox", { name: "role" }).inputValue()).toBe("@Moderators");

  await page.keyboard.press("Tab");
  const mode = page.getByRole("combobox", { name: "mode" });
  expect(await isFocused(mode)).toBe(true);
  expect(await mode.locator("option").allTextContents()).toEqual(["Choose…", "Hard Mode", "Easy"]);
  await page.keyboard.press("ArrowDown");
  expect(await mode.inputValue()).toBe("h");
  await suite.shot(page, "commands-7-filled");
  await page.keyboard.press("Enter");

  const got = await giver.waitFor((l) => l.event === "interaction");
  expect(got.interaction.options).toEqual({ target: bob.id, channel: channelId, role: role.body.id, mode: "h" });
  // The command line in history shows names, not ids.
  await messageWith(page, "/give @bob_picker #general @Moderators h").waitFor();
  // Back in the text box, ready for the next message.
  await eventually(async () => expect(await isFocused(box)).toBe(true));
});

test("a missing required option is named before anything is sent; Escape goes back to the text box", async () => {
  const { owner, serverId, channelId } = await serverWithChannel();
  const dice = await spawnBot(suite.server.url, await addBot(suite.server, owner, serverId, "Dice2"), {
    commands: [{ name: "roll", description: "Roll", options: [{ name: "sides", description: "Sides", type: "integer", required: true }] }],
  });
  bots.push(dice);
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.click();
  await box.pressSequentially("/roll");
  await page.getByRole("listbox", { name: "Commands", exact: true }).waitFor();
  await box.press("Enter");
  const sides = page.getByRole("spinbutton", { name: "sides" });
  await sides.waitFor();
  // Focus moves with the form, not a frame later: a key pressed at once reaches the field.
  expect(await isFocused(sides)).toBe(true);
  await page.keyboard.press("Enter");
  const alert = page.getByRole("alert").filter({ hasText: "Missing required option: sides" });
  await alert.waitFor();
  expect(await isFocused(sides)).toBe(true);
  await suite.shot(page, "commands-8-missing-option");
  await quietWindow();
  expect(dice.interactions).toEqual([]);
  expect(await history(suite.server, owner.token, channelId)).toEqual([]);

  await page.keyboard.press("Escape");
  await box.waitFor();
  expect(await box.inputValue()).toBe("/roll");
  expect(await isFocused(box)).toBe(true);
});

test("a command no bot answers says so after a few seconds", async () => {
  const { owner, serverId, channelId } = await serverWithChannel();
  const quiet = await spawnBot(suite.server.url, await addBot(suite.server, owner, serverId, "Sleepy"), {
    commands: [{ name: "nap", description: "Does nothing" }],
    silent: true,
  });
  bots.push(quiet);
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.click();
  await box.pressSequentially("/nap");
  await page.getByRole("listbox", { name: "Commands", exact: true }).waitFor();
  await box.press("Enter");
  await page.getByRole("button", { name: "Send /nap" }).waitFor();
  await page.keyboard.press("Enter");
  await quiet.waitFor((l) => l.event === "interaction");
  const command = messageWith(page, "/nap");
  await command.waitFor();
  expect(await command.getByRole("status").count()).toBe(0);
  await command.getByRole("status").filter({ hasText: "Sleepy did not answer /nap." }).waitFor({ timeout: 10_000 });
  await suite.shot(page, "commands-9-no-answer");
});
