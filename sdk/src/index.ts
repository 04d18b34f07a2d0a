/**
 * @hearth/sdk: a typed client for Hearth bots. The REST operations and gateway events are
 * generated from the server's own reference documents (/api/v1/openapi.json and
 * /api/v1/asyncapi.json); voice is in `@hearth/sdk/voice`, WAV files in `@hearth/sdk/wav`, and
 * the REST and gateway clients alone (browser-safe) in `@hearth/sdk/client`.
 */
export * from "./client.js";
export { Bot, createBot, DEFAULT_AWAIT_TIMEOUT_MS, type AwaitMessageOptions, type AwaitOptions, type BotOptions, type CommandHandler, type ComponentHandler, type CustomIdMatcher } from "./bot.js";
export { HearthTimeoutError } from "./errors.js";
export { button, channelSelect, embed, linkButton, stringSelect, type EmbedInput } from "./builders.js";
export { characters, checkEmbeds, checkMessage } from "./checks.js";
export {
  checkCommand,
  commandsToWire,
  defineCommand,
  toWire,
  type CommandDefinition,
  type Id,
  type OptionDefinition,
  type OptionsOf,
  type OptionTypeName,
  type OptionValue,
} from "./commands.js";
export { CommandContext, ComponentContext, DEFAULT_DEFER_TEXT, type ComponentInteraction, type MessageInput, type SlashCommandInteraction } from "./interactions.js";
