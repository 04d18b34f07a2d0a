/**
 * A complete Hearth bot: `/roll [sides]` answers with an embed and a "Roll again" button;
 * pressing the button edits the message with a new roll. docs/bots.md walks through it, and
 * test/examples/roll-bot.test.ts runs it against a real server, so this file stays correct.
 *
 * Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> bun examples/roll-bot.ts
 * (or with Node 20+: npx tsx examples/roll-bot.ts). Needs only `socket.io-client` and `fetch`.
 */
import { io, type Socket } from "socket.io-client";

/** The slash commands this bot registers (POST /api/v1/oauth2/commands replaces them all). */
export const COMMANDS = [
  {
    name: "roll",
    description: "Roll a die",
    options: [{ name: "sides", description: "How many sides (default 6)", type: "integer", required: false, min_value: 2, max_value: 1000 }],
  },
];

/** What `interaction:create` delivers (SPEC.md "Interaction (delivered to bots)"). */
interface Interaction {
  id: string;
  type: "slash_command" | "message_component";
  command?: string;
  options?: Record<string, string | number | boolean>;
  component_type?: string;
  custom_id?: string;
  channel_id: string;
  server_id: string;
  message_id: string;
  user: { id: string; username: string };
}

type Ack = { ok: true; [key: string]: unknown } | { ok: false; error: string };

export interface RollBot {
  socket: Socket;
  /** Disconnects the bot. */
  stop(): void;
}

export interface RollBotOptions {
  /** A number in [0, 1); `Math.random` unless a test wants fixed rolls. */
  random?: () => number;
  log?: (line: string) => void;
}

/** The embed (with its button) that shows one roll. */
function rollEmbed(sides: number, result: number, username: string) {
  return {
    title: `🎲 ${result}`,
    description: `${username} rolled a d${sides}`,
    color: "#5865F2",
    // The button carries the die in its custom_id, so a press needs no stored state.
    components: [{ type: "button", style: "primary", label: "Roll again", custom_id: `reroll:${sides}` }],
  };
}

/**
 * Registers the commands, connects with the bot token and answers interactions. Resolves
 * once the bot is connected and ready.
 */
export async function startRollBot(baseUrl: string, token: string, options: RollBotOptions = {}): Promise<RollBot> {
  const random = options.random ?? Math.random;
  const log = options.log ?? ((line: string) => console.log(line));
  const roll = (sides: number) => 1 + Math.floor(random() * sides);

  // 1. Register the slash commands over REST, with the bot token.
  const registered = await fetch(`${baseUrl}/api/v1/oauth2/commands`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(COMMANDS),
  });
  if (!registered.ok) throw new Error(`registering commands failed: ${registered.status} ${await registered.text()}`);

  // 2. Connect to the gateway. The bot is in its room `user:<bot id>` at once, which is
  //    where interactions arrive; no room joins are needed to answer them.
  const socket = io(baseUrl, { auth: { token }, transports: ["websocket"] });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(error));
  });

  const check = (what: string) => (ack: Ack) => {
    if (!ack.ok) log(`${what} failed: ${ack.error}`);
    return ack;
  };

  // 3. Answer interactions.
  socket.on("interaction:create", async (interaction: Interaction) => {
    if (interaction.type === "slash_command" && interaction.command === "roll") {
      const sides = typeof interaction.options?.sides === "number" ? interaction.options.sides : 6;
      const result = roll(sides);
      check("interaction:response")(
        await socket.emitWithAck("interaction:response", {
          interaction_id: interaction.id,
          channel_id: interaction.channel_id,
          content: `<@${interaction.user.id}> rolled **${result}**`,
          embeds: [rollEmbed(sides, result, interaction.user.username)],
        }),
      );
    } else if (interaction.type === "message_component" && interaction.custom_id?.startsWith("reroll:")) {
      const sides = Number(interaction.custom_id.slice("reroll:".length));
      const result = roll(sides);
      // The press carries the message it came from: edit it in place with the new roll.
      check("bot:edit_message")(
        await socket.emitWithAck("bot:edit_message", {
          message_id: interaction.message_id,
          channel_id: interaction.channel_id,
          content: `<@${interaction.user.id}> rolled again: **${result}**`,
          embeds: [rollEmbed(sides, result, interaction.user.username)],
        }),
      );
    }
  });

  log("roll bot ready");
  return { socket, stop: () => socket.close() };
}

// Started as a program (Bun, or Node where import.meta.main may be missing), not imported.
if (import.meta.main ?? process.argv[1]?.endsWith("roll-bot.ts")) {
  const url = process.env.HEARTH_URL ?? "http://localhost:3000";
  const token = process.env.HEARTH_BOT_TOKEN;
  if (!token) {
    console.error("Set HEARTH_BOT_TOKEN to the bot_token of your application");
    process.exit(1);
  }
  const bot = await startRollBot(url, token);
  bot.socket.on("disconnect", (reason) => console.log(`disconnected: ${reason}`));
  process.on("SIGINT", () => {
    bot.stop();
    process.exit(0);
  });
}
