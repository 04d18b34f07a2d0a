/**
 * @hearth/sdk/client: the browser-safe core, for any client of Hearth (the web app builds on
 * it): the REST client and the gateway connection, typed from the server's reference documents,
 * the errors they throw and the generated types. No bot helpers, no voice or WAV code.
 */
export { HearthAckError, HearthApiError, HearthError, HearthLimitError } from "./errors.js";
export { newNonce, withNonce } from "./nonce.js";
export { isVoiceRoomLost, rejoinDelayMs } from "./voice-room-lost.js";
export {
  Gateway,
  CLOSED,
  NOT_CONNECTED,
  type AckOf,
  type ClientEventName,
  type GatewayEventName,
  type GatewayEvents,
  type GatewayOptions,
  type LifecycleEvents,
  type Listener,
  type PayloadArgs,
  type ReconnectOptions,
  type ResumedInfo,
} from "./gateway.js";
export {
  RestClient,
  type CallArgs,
  type CallOptions,
  type FetchLike,
  type OperationAnswer,
  type OperationArgs,
  type OperationId,
  type OutgoingMessage,
  type RestOptions,
  type UploadProgress,
} from "./rest.js";
export type { PublishedRestBucket } from "./rest-buckets.js";
/** GENERATED_FROM: the server documents (version, SHA-256) the types were generated from. */
export { GENERATED_FROM, LIMITS, OPTION_TYPES } from "./generated/constants.js";
export { CLIENT_EVENTS, SERVER_EVENTS, type ClientEvents, type ServerEvents } from "./generated/gateway.js";
export { OPERATIONS, type Operations } from "./generated/rest.js";
export type * from "./generated/schemas.js";
/** @deprecated Renamed `Dm` (a 1:1 or group DM); this alias will be removed in a later major version. */
export type Conversation = import("./generated/schemas.js").Dm;
