/**
 * A bot: the REST client and the gateway with one token, slash commands registered from typed
 * definitions and routed to their handlers, component presses routed by `custom_id`, waits for
 * the next press or message (`awaitComponent`, `awaitMessage`), and the presence kept across
 * reconnects.
 */
import { Waiters, type AwaitOptions } from "./collectors.js";
import { commandsToWire, defineCommand, type CommandDefinition } from "./commands.js";
import { checkMessage } from "./checks.js";
import { HearthError } from "./errors.js";
export { DEFAULT_AWAIT_TIMEOUT_MS, type AwaitOptions } from "./collectors.js";
import { Gateway, type GatewayEventName, type Listener, type ReconnectOptions } from "./gateway.js";
import type * as S from "./generated/schemas.js";
import { CommandContext, ComponentContext, type MessageInput } from "./interactions.js";
import { RestClient, type FetchLike, type OutgoingMessage } from "./rest.js";
import { retryingSend, withNonce } from "./nonce.js";

export interface BotOptions {
  /** The Hearth base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** The application's bot token. */
  token: string;
  /** Reconnection backoff, or `false` to stay disconnected after a drop. */
  reconnect?: ReconnectOptions | false;
  /** Socket.IO transports (default WebSocket only). */
  transports?: ("websocket" | "polling")[];
  /** `false`: gateway emits do not wait for the instance's event limits (GatewayOptions.pace). */
  pace?: boolean;
  /**
   * Register the defined commands at start (default true). `POST /api/v1/oauth2/commands`
   * replaces all the application's global commands with this list.
   */
  registerCommands?: boolean;
  /** Another fetch for REST calls. */
  fetch?: FetchLike;
  /**
   * Receive every message of every server the bot is in (`subscribeAll()` at start, in one
   * gateway event, kept across reconnects; docs/gateway.md "Bulk subscriptions"). Default false:
   * a bot that only answers slash commands needs no rooms.
   */
  subscribeAll?: boolean;
}

export type CommandHandler<C extends CommandDefinition> = (context: CommandContext<C>) => unknown | Promise<unknown>;
export type ComponentHandler = (context: ComponentContext) => unknown | Promise<unknown>;
/** Which presses a component handler takes: a custom_id prefix, a pattern, or a test. */
export type CustomIdMatcher = string | RegExp | ((customId: string) => boolean);

export interface AwaitMessageOptions extends AwaitOptions<S.Message> {
  /** Only messages in this channel (default: any channel the bot receives). */
  channelId?: string;
  /** Take the bot's own messages too (default: skipped, so a prompt the bot just sent does not answer itself). */
  includeOwn?: boolean;
}

type Presence = { status: S.BotPresence["status"]; activity?: S.Activity | null };

export class Bot {
  readonly rest: RestClient;
  readonly gateway: Gateway;
  /** The bot's own user (after `start()`). */
  user: { id: string; username: string } | null = null;
  private readonly options: BotOptions;
  private readonly commands = new Map<string, { definition: CommandDefinition; handler: CommandHandler<CommandDefinition> }>();
  private readonly components: { matcher: CustomIdMatcher; handler: ComponentHandler }[] = [];
  private presence: Presence | null = null;
  private readonly componentWaits = new Waiters<ComponentContext>();
  private readonly messageWaits = new Waiters<S.Message>();

  constructor(options: BotOptions) {
    this.options = options;
    this.rest = new RestClient({ baseUrl: options.url, token: options.token, fetch: options.fetch });
    this.gateway = new Gateway({ baseUrl: options.url, token: options.token, reconnect: options.reconnect, transports: options.transports, pace: options.pace });
    this.gateway.on("interaction:create", (interaction) => this.dispatch(interaction));
    this.gateway.on("message:new", (message) => void this.messageWaits.offer(message));
    // The server keeps an activity only while the bot is connected: send it again after a drop.
    this.gateway.onResume("presence", async () => {
      if (this.presence) await this.rest.setPresence(this.presence.status, this.presence.activity);
    });
  }

  /** Adds a slash command and its handler; `options` in the handler are typed from the definition. */
  command<const C extends CommandDefinition>(definition: C, handler: CommandHandler<C>): this {
    defineCommand(definition);
    const name = definition.name.toLowerCase();
    if (this.commands.has(name)) throw new HearthError(`command /${name} is defined twice`);
    this.commands.set(name, { definition, handler: handler as CommandHandler<CommandDefinition> });
    return this;
  }

  /** Handles presses on the bot's components whose custom_id matches (a string is a prefix). */
  component(matcher: CustomIdMatcher, handler: ComponentHandler): this {
    this.components.push({ matcher, handler });
    return this;
  }

  /** Listens to a gateway event (`message:new`, ...) or a lifecycle event (`ready`, `resumed`, `error`, ...). */
  on<E extends GatewayEventName>(event: E, listener: Listener<E>): () => void {
    return this.gateway.on(event, listener);
  }

  /** The definitions added with `command()`, as they are registered. */
  definitions(): CommandDefinition[] {
    return [...this.commands.values()].map((entry) => entry.definition);
  }

  /** Registers the commands (unless told not to), connects, and resolves when ready. */
  async start(): Promise<this> {
    const me = await this.rest.request("getMe");
    this.user = { id: me.id, username: me.username };
    if (this.options.registerCommands !== false && this.commands.size > 0) {
      await this.rest.request("registerGlobalCommands", { body: commandsToWire(this.definitions()) });
    }
    // The instance's own event limits, which the gateway paces its emits by (an older server publishes none).
    const platform = await this.rest.request("getPlatformConfig");
    if (platform.gateway_limits) this.gateway.setLimits(platform.gateway_limits.kinds);
    // And its REST buckets, which the REST client queues its calls by.
    if (platform.rest_limits) this.rest.setRateLimits(platform.rest_limits);
    await this.gateway.connect();
    if (this.options.subscribeAll) await this.gateway.subscribeAll();
    return this;
  }

  /** Disconnects for good; pending `awaitComponent()` and `awaitMessage()` calls reject. */
  stop(): void {
    const stopped = new HearthError("the bot stopped");
    this.componentWaits.rejectAll(stopped);
    this.messageWaits.rejectAll(stopped);
    this.gateway.close();
  }

  /**
   * The next press on a button or pick in a select of `message` (one of the bot's messages, or
   * its id) that passes `filter` (e.g. `(press) => press.user.id === command.user.id`), as a
   * context to answer it with (`update()`, `reply()`). Rejects with `HearthTimeoutError` after
   * `timeout` (default 60 s), with the reason when `signal` aborts, or when the bot stops. A
   * press taken here does not also reach the `component()` handlers; one that does not pass the
   * filter goes on to them.
   */
  awaitComponent(message: string | { id: string }, options: AwaitOptions<ComponentContext> = {}): Promise<ComponentContext> {
    const messageId = typeof message === "string" ? message : message.id;
    return this.componentWaits.wait("awaitComponent", `no press on message ${messageId}`, (press) => press.messageId === messageId, options);
  }

  /**
   * The next `message:new` that passes `filter` (in `channelId` when given), e.g. a user's answer
   * to a question. The bot must receive that channel's messages: `joinChannel()`, `subscribeAll()`
   * or `joinAllChannels()` first. The bot's own messages are skipped unless `includeOwn`. Rejects
   * like `awaitComponent()`.
   */
  awaitMessage(options: AwaitMessageOptions = {}): Promise<S.Message> {
    const { channelId, includeOwn = false, ...rest } = options;
    const where = channelId ? ` in channel ${channelId}` : "";
    return this.messageWaits.wait(
      "awaitMessage",
      `no message${where}`,
      (m) => (!channelId || m.channel_id === channelId) && (includeOwn || m.user_id !== this.user?.id),
      rest,
    );
  }

  /** Sets the status and activity; both are sent again after every reconnect. */
  async setPresence(status: Presence["status"], activity?: S.Activity | null): Promise<S.BotPresence> {
    this.presence = { status, activity: activity === undefined ? this.presence?.activity : activity };
    return this.rest.setPresence(status, activity);
  }

  /** Sends a message to a channel over the gateway (`bot:send_message`). */
  async send(channelId: string, input: MessageInput): Promise<S.Message> {
    const message: OutgoingMessage = typeof input === "string" ? { content: input } : input;
    checkMessage(message);
    const payload = { channel_id: channelId, ...withNonce(message) };
    return (await retryingSend(() => this.gateway.emit("bot:send_message", payload))).message;
  }

  joinServer(serverId: string): Promise<void> {
    return this.gateway.joinServer(serverId);
  }

  /**
   * Every server the bot is in and every channel it may view, and those added later, in one
   * gateway event (Gateway.subscribeAll): `message:new` from all of them, without joining rooms
   * one by one. Kept across reconnects.
   */
  subscribeAll(options: { channels?: boolean } = {}): Promise<{ servers: string[]; channels: string[] }> {
    return this.gateway.subscribeAll(options);
  }

  /** Every channel of one server the bot may view, and those added there later (Gateway.joinAllChannels). */
  joinAllChannels(serverId: string): Promise<string[]> {
    return this.gateway.joinAllChannels(serverId);
  }

  joinChannel(channelId: string): Promise<void> {
    return this.gateway.joinChannel(channelId);
  }

  private async dispatch(interaction: S.Interaction): Promise<void> {
    if (interaction.type === "slash_command") {
      const entry = this.commands.get(interaction.command.toLowerCase());
      if (entry) await entry.handler(new CommandContext(this.gateway, interaction));
      return;
    }
    const press = new ComponentContext(this.gateway, interaction);
    if (this.componentWaits.offer(press)) return;
    const id = interaction.custom_id;
    const entry = this.components.find(({ matcher }) =>
      typeof matcher === "string" ? id.startsWith(matcher) : matcher instanceof RegExp ? matcher.test(id) : matcher(id),
    );
    if (entry) await entry.handler(press);
  }
}

/** A bot for this URL and token: add commands with `.command()`, then `await bot.start()`. */
export function createBot(options: BotOptions): Bot {
  return new Bot(options);
}
