// @ts-check
/**
 * A voice bot on @hearth/sdk: `/play` joins the voice channel you are in and plays a WAV file
 * there, `/stop` stops it. The file is read once at start (any WAV: 8- to 32-bit, mono or
 * stereo, any rate; @hearth/sdk/wav converts it to the 16-bit PCM voice takes).
 *
 * Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> node voice-bot.js chime.wav
 */
import { pathToFileURL } from "node:url";
import { createBot, defineCommand } from "@hearth/sdk";
import { joinVoice } from "@hearth/sdk/voice";
import { readWavFile } from "@hearth/sdk/wav";

export const play = defineCommand({ name: "play", description: "Play the sound in your voice channel" });
export const stop = defineCommand({ name: "stop", description: "Stop playing" });

/**
 * @param {string} url the Hearth base URL
 * @param {string} token the application's bot token
 * @param {string} wavPath the WAV file to play
 */
export async function startVoiceBot(url, token, wavPath) {
  const sound = await readWavFile(wavPath);
  const bot = createBot({ url, token });
  /** @type {import("@hearth/sdk/voice").Playback | null} */
  let playing = null;

  bot.command(play, async (command) => {
    // Where is the user? (null when they are in no voice channel this bot can see)
    const where = await bot.gateway.emit("bot:voice-query", { userId: command.user.id, serverId: command.serverId });
    if (!where.channelId) return command.reply("Join a voice channel first, then /play again.");
    await command.defer("Joining…");
    const voice = await joinVoice(bot, where.channelId);
    playing?.stop();
    playing = voice.play(sound);
    await command.reply(`Playing in <#${where.channelId}> (${(sound.pcm.length / sound.channels / sound.sampleRate).toFixed(1)} s)`);
    const { ended } = await playing.finished;
    if (ended === "finished") await voice.leave();
  });

  bot.command(stop, async (command) => {
    playing?.stop();
    await command.reply(playing ? "Stopped." : "Nothing is playing.");
  });

  bot.on("error", (error) => console.error(error));
  await bot.start();
  console.log(`voice bot ready as ${bot.user?.username}`);
  return bot;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.HEARTH_BOT_TOKEN;
  const wavPath = process.argv[2];
  if (!token || !wavPath) {
    console.error("Usage: HEARTH_BOT_TOKEN=<bot_token> node voice-bot.js <file.wav>");
    process.exit(1);
  }
  const bot = await startVoiceBot(process.env.HEARTH_URL ?? "http://localhost:3000", token, wavPath);
  process.on("SIGINT", () => {
    bot.stop();
    process.exit(0);
  });
}
