/**
 * What a handler gets for an interaction: the interaction, typed options, and the ways to
 * answer it (docs/interactions.md).
 *
 * On Hearth an interaction never expires and may be answered any number of times, each answer a
 * new message; a bot may edit its own messages. So:
 * - `reply()` answers with a new message (`interaction:response`);
 * - `defer()` answers at once with a placeholder ("Thinking…") that the next `reply()` (or
 *   `edit()`) replaces by editing it: the user sees at once that the bot is on it, and the
 *   channel keeps one message. There is no deadline to beat, so defer only for the user's sake,
 *   when the answer takes more than a moment;
 * - `edit()` changes the last answer; `followUp()` always adds a new message;
 * - on a component press, `update()` edits the message that carries the component.
 */
import { checkMessage } from "./checks.js";
import type { Gateway } from "./gateway.js";
import type * as S from "./generated/schemas.js";
import type { CommandDefinition, OptionsOf } from "./commands.js";
import type { OutgoingMessage } from "./rest.js";
import { retryingSend, withNonce } from "./nonce.js";

export type SlashCommandInteraction = Extract<S.Interaction, { type: "slash_command" }>;
export type ComponentInteraction = Extract<S.Interaction, { type: "message_component" }>;

/** A message to send: text alone, or content and embeds. */
export type MessageInput = string | OutgoingMessage;

const asMessage = (input: MessageInput): OutgoingMessage => (typeof input === "string" ? { content: input } : input);

/** The placeholder `defer()` shows when given nothing else. */
export const DEFAULT_DEFER_TEXT = "Thinking…";

class InteractionContext<I extends S.Interaction> {
  /** The last answer this context sent (or the deferred placeholder), which `edit()` changes. */
  private last: S.Message | null = null;
  private deferred = false;

  constructor(
    protected readonly gateway: Gateway,
    readonly interaction: I,
  ) {}

  get user(): I["user"] {
    return this.interaction.user;
  }
  get channelId(): string {
    return this.interaction.channel_id;
  }
  get serverId(): string {
    return this.interaction.server_id;
  }

  /** Answers with a new message, or, after `defer()`, replaces the placeholder with it. */
  async reply(input: MessageInput): Promise<S.Message> {
    if (this.deferred && this.last) {
      this.deferred = false;
      return this.edit(input);
    }
    return (this.last = await this.respond(input));
  }

  /** Shows a placeholder now; the next `reply()` or `edit()` replaces it. */
  async defer(placeholder: MessageInput = DEFAULT_DEFER_TEXT): Promise<S.Message> {
    this.last = await this.respond(placeholder);
    this.deferred = true;
    return this.last;
  }

  /** Changes the last answer (what is not given is kept). */
  async edit(input: MessageInput): Promise<S.Message> {
    if (!this.last) throw new Error("edit(): nothing answered yet; reply() first");
    const message = asMessage(input);
    checkMessage(message, { edit: true });
    this.deferred = false;
    const ack = await this.gateway.emit("bot:edit_message", { message_id: this.last.id, channel_id: this.channelId, ...message });
    return (this.last = ack.message);
  }

  /** Another new message answering the same interaction. */
  async followUp(input: MessageInput): Promise<S.Message> {
    return (this.last = await this.respond(input));
  }

  /** Deletes the last answer. */
  async deleteReply(): Promise<void> {
    if (!this.last) return;
    await this.gateway.emit("bot:delete_message", { message_id: this.last.id, channel_id: this.channelId });
    this.last = null;
  }

  private async respond(input: MessageInput): Promise<S.Message> {
    const message = asMessage(input);
    checkMessage(message);
    const payload = { interaction_id: this.interaction.id, channel_id: this.channelId, ...withNonce(message) };
    return (await retryingSend(() => this.gateway.emit("interaction:response", payload))).message;
  }
}

/** A slash command run by a user, with its options typed from the command's definition. */
export class CommandContext<C extends CommandDefinition = CommandDefinition> extends InteractionContext<SlashCommandInteraction> {
  /** The parsed options (docs/commands.md): present when given, typed from the definition. */
  readonly options: OptionsOf<C>;
  constructor(gateway: Gateway, interaction: SlashCommandInteraction) {
    super(gateway, interaction);
    this.options = interaction.options as OptionsOf<C>;
  }
  get command(): string {
    return this.interaction.command;
  }
  /** The text after the command name, normalized (docs/commands.md). */
  get args(): string {
    return this.interaction.args;
  }
}

/** A press on a button or a pick in a select of one of the bot's messages. */
export class ComponentContext extends InteractionContext<ComponentInteraction> {
  get customId(): string {
    return this.interaction.custom_id;
  }
  /** A string select's chosen values (empty for a button). */
  get values(): string[] {
    return this.interaction.values ?? [];
  }
  /** A channel select's chosen channels. */
  get selectedChannels(): NonNullable<ComponentInteraction["selected_channels"]> {
    return this.interaction.selected_channels ?? [];
  }
  /** The message carrying the component. */
  get messageId(): string {
    return this.interaction.message_id;
  }

  /** Edits the message carrying the component (a new roll, a disabled button, a changed embed). */
  async update(input: MessageInput): Promise<S.Message> {
    const message = asMessage(input);
    checkMessage(message, { edit: true });
    const ack = await this.gateway.emit("bot:edit_message", { message_id: this.messageId, channel_id: this.channelId, ...message });
    return ack.message;
  }
}
