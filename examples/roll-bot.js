// @ts-check
/**
 * A complete Hearth bot on @hearth/sdk: `/roll [sides]` answers with an embed and a
 * "Roll again" button; pressing the button edits the message with a new roll.
 *
 * Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> node roll-bot.js
 * (Node 20+, in a folder with "type": "module" and @hearth/sdk installed: docs/bots.md).
 */
import { pathToFileURL } from "node:url";
import { button, createBot, defineCommand, embed } from "@hearth/sdk";

/** The slash command. Its options are typed: in the handler, `options.sides` is a number or undefined. */
export const roll = defineCommand({
  name: "roll",
  description: "Roll a die",
  options: [{ name: "sides", description: "How many sides (default 6)", type: "integer", min_value: 2, max_value: 1000 }],
});

/** The embed (with its button) that shows one roll; the button carries the die in its custom_id. */
function rollEmbed(/** @type {number} */ sides, /** @type {number} */ result, /** @type {string} */ username) {
  return embed({
    title: `🎲 ${result}`,
    description: `${username} rolled a d${sides}`,
    color: "#5865F2",
    components: [button({ label: "Roll again", custom_id: `reroll:${sides}` })],
  });
}

/**
 * Registers /roll, connects and answers; resolves with the started bot.
 * @param {string} url the Hearth base URL
 * @param {string} token the application's bot token
 * @param {() => number} random a number in [0, 1): Math.random unless a test wants fixed rolls
 */
export async function startRollBot(url, token, random = Math.random) {
  const rollDie = (/** @type {number} */ sides) => 1 + Math.floor(random() * sides);
  const bot = createBot({ url, token });

  bot.command(roll, async (command) => {
    const sides = command.options.sides ?? 6;
    const result = rollDie(sides);
    await command.reply({
      content: `<@${command.user.id}> rolled **${result}**`,
      embeds: [rollEmbed(sides, result, command.user.username)],
    });
  });

  // A press on "Roll again" (only the bot that wrote the message gets it): edit that message.
  bot.component("reroll:", async (press) => {
    const sides = Number(press.customId.slice("reroll:".length));
    const result = rollDie(sides);
    await press.update({
      content: `<@${press.user.id}> rolled again: **${result}**`,
      embeds: [rollEmbed(sides, result, press.user.username)],
    });
  });

  bot.on("error", (error) => console.error(error));
  bot.on("resumed", ({ downtimeMs }) => console.log(`reconnected after ${downtimeMs} ms`));
  await bot.start();
  console.log(`roll bot ready as ${bot.user?.username}`);
  return bot;
}

// Started as a program (`node roll-bot.js`), not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.HEARTH_BOT_TOKEN;
  if (!token) {
    console.error("Set HEARTH_BOT_TOKEN to the bot_token of your application");
    process.exit(1);
  }
  const bot = await startRollBot(process.env.HEARTH_URL ?? "http://localhost:3000", token);
  process.on("SIGINT", () => {
    bot.stop();
    process.exit(0);
  });
}
