// @ts-check
/**
 * An echo bot on @hearth/sdk: `/echo` joins the voice channel you are in; from then on, whatever
 * it hears (each speaker, until they pause) it records and plays back. `/leave` makes it leave.
 *
 * It hears the people in the room (it joins with `listen: true`, so their pages send it their
 * microphone; the room shows it as "Listening") and other bots (see docs/bots.md, "Voice").
 *
 * Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> node echo-bot.js
 */
import { pathToFileURL } from "node:url";
import { createBot, defineCommand } from "@hearth/sdk";
import { joinFrames, joinVoice } from "@hearth/sdk/voice";

export const echo = defineCommand({ name: "echo", description: "Join your voice channel and repeat what is said" });
export const leave = defineCommand({ name: "leave", description: "Leave the voice channel" });

/**
 * @param {string} url the Hearth base URL
 * @param {string} token the application's bot token
 * @param {{pauseMs?: number}} options how long a pause ends a recording (default 700 ms)
 */
export async function startEchoBot(url, token, { pauseMs = 700 } = {}) {
  const bot = createBot({ url, token });
  /** @type {import("@hearth/sdk/voice").VoiceConnection | null} */
  let voice = null;

  /** Records each utterance (a speaker's frames until they pause) and plays it back. */
  async function echoLoop(/** @type {import("@hearth/sdk/voice").VoiceConnection} */ connection) {
    for await (const speaker of connection.speakers({ idleMs: pauseMs })) {
      const recorded = [];
      for await (const frame of speaker.frames) recorded.push(frame);
      if (!connection.active) return;
      const audio = joinFrames(recorded);
      console.log(`echoing ${recorded.length} frames from ${speaker.kind} ${speaker.userId}`);
      await connection.play(audio).finished;
    }
  }

  bot.command(echo, async (command) => {
    const where = await bot.gateway.emit("bot:voice-query", { userId: command.user.id, serverId: command.serverId });
    if (!where.channelId) return command.reply("Join a voice channel first, then /echo again.");
    voice = await joinVoice(bot, where.channelId, { listen: true });
    echoLoop(voice).catch((error) => console.error(error));
    await command.reply(`Listening in <#${where.channelId}>: speak, pause, and hear yourself.`);
  });

  bot.command(leave, async (command) => {
    await voice?.leave();
    voice = null;
    await command.reply("Left the voice channel.");
  });

  bot.on("error", (error) => console.error(error));
  await bot.start();
  console.log(`echo bot ready as ${bot.user?.username}`);
  return bot;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.HEARTH_BOT_TOKEN;
  if (!token) {
    console.error("Set HEARTH_BOT_TOKEN to the bot_token of your application");
    process.exit(1);
  }
  const bot = await startEchoBot(process.env.HEARTH_URL ?? "http://localhost:3000", token);
  process.on("SIGINT", () => {
    bot.stop();
    process.exit(0);
  });
}
