/**
 * A bot process for the browser suite (socket.io-client only, like any bot): registers the
 * commands in BOT_COMMANDS, prints each interaction it receives as one JSON line on stdout,
 * and answers them:
 * - /roll: an embed (title linked, description, colour, fields, footer, timestamp) and a
 *   "Roll again" button;
 * - a component press: a follow-up message naming the button;
 * - any other command: "<command> answered by <bot name>".
 * With BOT_SILENT=1 it answers nothing (the app must then say the command got no answer).
 *
 * Env: HEARTH_URL, BOT_TOKEN, BOT_NAME, BOT_COMMANDS (JSON array), BOT_SILENT.
 */
import { io } from "socket.io-client";

const url = process.env.HEARTH_URL!;
const token = process.env.BOT_TOKEN!;
const name = process.env.BOT_NAME ?? "bot";
const silent = process.env.BOT_SILENT === "1";
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const registered = await fetch(`${url}/api/v1/oauth2/commands`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: process.env.BOT_COMMANDS ?? "[]",
});
if (!registered.ok) {
  print({ event: "error", error: `register: ${registered.status} ${await registered.text()}` });
  process.exit(1);
}

const socket = io(url, { auth: { token }, transports: ["websocket"] });
socket.on("connect", () => print({ event: "ready" }));
socket.on("connect_error", (error) => print({ event: "error", error: error.message }));

socket.on("interaction:create", async (interaction: Record<string, any>) => {
  print({ event: "interaction", interaction });
  if (silent) return;
  let answer: Record<string, unknown>;
  if (interaction.type === "message_component") {
    answer = { content: `${interaction.user.username} pressed ${interaction.custom_id}${interaction.values ? ` (${interaction.values.join(", ")})` : ""}` };
  } else if (interaction.command === "roll") {
    const sides = Number(interaction.options.sides ?? 6);
    answer = {
      content: `Rolling for <@${interaction.user.id}>`,
      embeds: [
        {
          title: `Rolled a d${sides}`,
          url: "https://dice.example/rolls",
          description: `The die shows **${Math.min(sides, 4)}**.`,
          color: "#2F9E44",
          fields: [
            { name: "Sides", value: String(sides), inline: true },
            { name: "Dice", value: String(interaction.options.count ?? 1), inline: true },
            { name: "Note", value: "Fair and square" },
          ],
          author: { name },
          footer: { text: "Dice by the book" },
          timestamp: "2024-05-06T07:08:09.000Z",
          components: [{ type: "button", style: "success", label: "Roll again", custom_id: "roll-again" }],
        },
      ],
    };
  } else {
    answer = { content: `${interaction.command} answered by ${name}` };
  }
  const ack = await socket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: interaction.channel_id, ...answer });
  print({ event: "answered", ok: ack.ok, error: ack.error });
});

process.on("SIGTERM", () => {
  socket.close();
  process.exit(0);
});
