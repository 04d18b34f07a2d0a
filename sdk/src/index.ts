/**
 * @hearth/sdk: a typed client for Hearth bots. The REST operations and gateway events are
 * generated from the server's own reference documents (/api/v1/openapi.json and
 * /api/v1/asyncapi.json); voice is in `@hearth/sdk/voice`, WAV files in `@hearth/sdk/wav`.
 */
export { Bot, createBot, type BotOptions, type CommandHandler, type ComponentHandler, type CustomIdMatcher } from "./bot.js";
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
export { HearthAckError, HearthApiError, HearthError, HearthLimitError } from "./errors.js";
export {
  Gateway,
  type AckOf,
  type ClientEventName,
  type GatewayEventName,
  type GatewayEvents,
  type GatewayOptions,
  type LifecycleEvents,
  type Listener,
  type ReconnectOptions,
  type ResumedInfo,
} from "./gateway.js";
export { CommandContext, ComponentContext, DEFAULT_DEFER_TEXT, type ComponentInteraction, type MessageInput, type SlashCommandInteraction } from "./interactions.js";
export { RestClient, type CallArgs, type FetchLike, type OperationAnswer, type OperationArgs, type OperationId, type OutgoingMessage, type RestOptions } from "./rest.js";
export { LIMITS, OPTION_TYPES } from "./generated/constants.js";
export { CLIENT_EVENTS, SERVER_EVENTS, type ClientEvents, type ServerEvents } from "./generated/gateway.js";
export { OPERATIONS, type Operations } from "./generated/rest.js";
export type * from "./generated/schemas.js";
