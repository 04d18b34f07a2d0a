// @ts-check
/**
 * A music bot on @hearth/sdk: `/play <song>` joins the voice channel you are in and queues a file
 * from the bot's music folder or an http(s) URL (MP3, Ogg/Opus, FLAC, WAV, AAC, ... decoded by
 * ffmpeg); `/skip`, `/pause`, `/resume`, `/stop` (empties the queue and leaves), `/volume
 * <percent>` and `/queue`. It leaves when the queue runs out. It needs ffmpeg on the machine
 * (Debian and Ubuntu: `apt-get install ffmpeg`) and says so at start when it is missing.
 *
 * Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> node music-bot.js ./music
 */
import { resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { createBot, defineCommand } from "@hearth/sdk";
import { ffmpegVersion, joinVoice } from "@hearth/sdk/voice";

export const play = defineCommand({
  name: "play",
  description: "Queue a song in your voice channel",
  options: [{ name: "song", description: "A file in the bot's music folder, or an http(s) URL", type: "string", required: true }],
});
export const skip = defineCommand({ name: "skip", description: "Skip the song playing" });
export const pause = defineCommand({ name: "pause", description: "Pause the music" });
export const resume = defineCommand({ name: "resume", description: "Resume the music" });
export const stop = defineCommand({ name: "stop", description: "Stop, empty the queue and leave" });
export const volume = defineCommand({
  name: "volume",
  description: "Set the volume",
  options: [{ name: "percent", description: "0 to 200 (100: as recorded)", type: "integer", min_value: 0, max_value: 200, required: true }],
});
export const queue = defineCommand({ name: "queue", description: "Show what is playing and what comes next" });

/**
 * @param {string} url the Hearth base URL
 * @param {string} token the application's bot token
 * @param {{ musicDir?: string, ffmpeg?: string }} [options] the folder `/play` may read (default: the current one), the ffmpeg program
 */
export async function startMusicBot(url, token, options = {}) {
  const musicDir = resolve(options.musicDir ?? ".");
  // Fails at once with FfmpegNotFoundError (which says how to install it) rather than at the first /play.
  console.log(`using ${await ffmpegVersion({ ffmpeg: options.ffmpeg })}`);
  const bot = createBot({ url, token });
  /** @type {import("@hearth/sdk/voice").VoiceConnection | null} */
  let voice = null;
  /** Where the last /play came from: the bot reports there the songs it could not play. */
  let textChannelId = "";

  /**
   * What `/play` may open: an http(s) URL, or a file inside the music folder (nothing else on the
   * machine: anyone in the server can type a path).
   * @param {string} song
   */
  function locate(song) {
    if (/^https?:\/\//i.test(song)) return song;
    const path = resolve(musicDir, song);
    return path.startsWith(musicDir + sep) ? path : null;
  }

  /** @param {import("@hearth/sdk/voice").VoiceConnection} connection */
  function watch(connection) {
    connection.queue.on("error", ({ item, error }) => {
      const reason = error instanceof Error ? error.message : String(error);
      bot.send(textChannelId, `Could not play **${item.title}**: ${reason}`).catch((e) => console.error(e));
    });
    // Nothing more to play: leave (this connection, even if the bot has joined another since).
    connection.queue.on("idle", () => void connection.leave().catch((e) => console.error(e)));
  }

  bot.command(play, async (command) => {
    const source = locate(command.options.song);
    if (!source) return command.reply("Give a file from my music folder or an http(s) URL.");
    const where = await bot.gateway.emit("bot:voice-query", { userId: command.user.id, serverId: command.serverId });
    if (!where.channelId) return command.reply("Join a voice channel first, then /play again.");
    textChannelId = command.channelId;
    if (!voice?.active || voice.channelId !== where.channelId) {
      await command.defer("Joining…");
      voice = await joinVoice(bot, where.channelId);
      watch(voice);
    }
    const item = voice.queue.add(source, { title: command.options.song, ffmpeg: options.ffmpeg });
    const position = voice.queue.list().indexOf(item);
    await command.reply(position === -1 ? `Playing **${item.title}** in <#${where.channelId}>` : `Queued **${item.title}** (#${position + 1})`);
  });

  bot.command(skip, async (command) => {
    const skipped = voice?.active ? voice.queue.skip() : null;
    await command.reply(skipped ? `Skipped **${skipped.title}**` : "Nothing is playing.");
  });

  bot.command(pause, async (command) => {
    if (!voice?.active) return command.reply("Nothing is playing.");
    voice.queue.pause();
    await command.reply("Paused.");
  });

  bot.command(resume, async (command) => {
    if (!voice?.active) return command.reply("Nothing is playing.");
    voice.queue.resume();
    await command.reply("Resumed.");
  });

  bot.command(stop, async (command) => {
    if (!voice?.active) return command.reply("Nothing is playing.");
    voice.queue.stop();
    await voice.leave();
    await command.reply("Stopped.");
  });

  bot.command(volume, async (command) => {
    if (!voice?.active) return command.reply("Nothing is playing.");
    voice.queue.volume = command.options.percent / 100;
    await command.reply(`Volume: ${Math.round(voice.queue.volume * 100)}%`);
  });

  bot.command(queue, async (command) => {
    const now = voice?.active ? voice.queue.nowPlaying : null;
    if (!voice || !now) return command.reply("The queue is empty.");
    const lines = [`Now playing: **${now.item.title}**${voice.queue.isPaused ? " (paused)" : ""}`];
    for (const [n, item] of voice.queue.list().entries()) lines.push(`${n + 1}. ${item.title}`);
    await command.reply(lines.join("\n"));
  });

  bot.on("error", (error) => console.error(error));
  await bot.start();
  console.log(`music bot ready as ${bot.user?.username}`);
  return bot;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.HEARTH_BOT_TOKEN;
  if (!token) {
    console.error("Usage: HEARTH_BOT_TOKEN=<bot_token> node music-bot.js [music folder]");
    process.exit(1);
  }
  const bot = await startMusicBot(process.env.HEARTH_URL ?? "http://localhost:3000", token, { musicDir: process.argv[2] });
  process.on("SIGINT", () => {
    bot.stop();
    process.exit(0);
  });
}
