/**
 * The AsyncAPI 3 document of the gateway (served at /api/v1/asyncapi.json), generated from the
 * two event tables: `SERVER_EVENTS` (src/domain/shared/events.ts: payloads and rooms) and
 * `CLIENT_EVENTS` (src/gateway/client-events.ts: payloads and acks). The application it
 * describes is the Hearth server: client events are operations it receives (their acks its
 * replies), server events operations it sends to a room. docs/reference.md says how to read it.
 */
import type * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import { SERVER_EVENTS, type RoomKind } from "../domain/shared/events.ts";
import { CLIENT_EVENTS } from "../gateway/client-events.ts";
import { SchemaConverter, type SchemaObject } from "./json-schema.ts";

/** The channels: the client's own connection, and the rooms events are sent to. */
const CHANNELS: Record<RoomKind, { key: string; address: string | null; description: string; parameters?: string[] }> = {
  socket: {
    key: "connection",
    address: null,
    description: "The client's own Socket.IO connection: what it emits, the acks it gets, and events sent to that one socket.",
  },
  user: { key: "userRoom", address: "user:{userId}", parameters: ["userId"], description: "Every socket of one user; a socket is in its own from the moment it connects." },
  server: { key: "serverRoom", address: "server:{serverId}", parameters: ["serverId"], description: "Sockets that joined the server with `server:join` (membership needed)." },
  channel: { key: "channelRoom", address: "channel:{channelId}", parameters: ["channelId"], description: "Sockets that joined the text channel with `channel:join` (VIEW_CHANNEL needed)." },
  voice: { key: "voiceRoom", address: "voice:{channelId}", parameters: ["channelId"], description: "The sockets in that voice channel (`voice:join`)." },
  presence: {
    key: "presenceRoom",
    address: "presence:{serverId}:{userId}",
    parameters: ["serverId", "userId"],
    description: "Sockets that asked for one member's presence in a large server (`presence:subscribe`, docs/gateway.md \"Presence\").",
  },
};

/** Component keys allow `[A-Za-z0-9.-_]`: `message:new` is `message.new`. */
const keyOf = (event: string) => event.replaceAll(":", ".");

interface AsyncApiOptions {
  named: Record<string, v.GenericSchema>;
}

export function buildAsyncApiDocument(options: AsyncApiOptions): SchemaObject {
  const converter = new SchemaConverter({ named: options.named }, "draft-07");
  const messages: Record<string, SchemaObject> = {};
  const operations: Record<string, SchemaObject> = {};
  const channelMessages: Record<RoomKind, Record<string, SchemaObject>> = { socket: {}, user: {}, server: {}, channel: {}, voice: {}, presence: {} };
  const ref = (key: string) => ({ $ref: `#/components/messages/${key}` });
  const channelRef = (kind: RoomKind) => ({ $ref: `#/channels/${CHANNELS[kind].key}` });

  // Some names are both a client and a server event (`typing:start`): their messages are `client.*` and `server.*`.
  for (const [event, spec] of Object.entries(CLIENT_EVENTS)) {
    const key = `client.${keyOf(event)}`;
    const payload: v.GenericSchema | null = spec.payload;
    messages[key] = {
      name: event,
      title: event,
      summary: `Emitted by the client${payload ? "" : " without a payload"}.`,
      ...(payload ? { payload: converter.convert(payload, "input") } : {}),
    };
    messages[`${key}.ack`] = { name: `${event} ack`, title: `${event} ack`, payload: ackSchema(converter.convert(spec.ack, "output")) };
    channelMessages.socket[key] = ref(key);
    channelMessages.socket[`${key}.ack`] = ref(`${key}.ack`);
    operations[`receive.${keyOf(event)}`] = {
      action: "receive",
      channel: channelRef("socket"),
      title: event,
      summary: `Client event \`${event}\`; pass an ack callback to get the answer.`,
      messages: [{ $ref: `#/channels/${CHANNELS.socket.key}/messages/${key}` }],
      reply: { channel: channelRef("socket"), messages: [{ $ref: `#/channels/${CHANNELS.socket.key}/messages/${key}.ack` }] },
    };
  }

  for (const [event, spec] of Object.entries(SERVER_EVENTS)) {
    const key = `server.${keyOf(event)}`;
    const kinds = spec.rooms as readonly RoomKind[];
    messages[key] = { name: event, title: event, summary: `Sent to ${spec.audience}.`, payload: converter.convert(spec.payload, "output") };
    for (const kind of kinds) channelMessages[kind][key] = ref(key);
    const first = kinds[0]!;
    operations[`send.${keyOf(event)}`] = {
      action: "send",
      channel: channelRef(first),
      title: event,
      summary: `Server event \`${event}\`.`,
      description: `Sent to ${spec.audience}.`,
      "x-rooms": kinds,
      messages: [{ $ref: `#/channels/${CHANNELS[first].key}/messages/${key}` }],
    };
  }

  const channels: Record<string, SchemaObject> = {};
  for (const [kind, channel] of Object.entries(CHANNELS) as [RoomKind, (typeof CHANNELS)[RoomKind]][]) {
    channels[channel.key] = {
      address: channel.address,
      description: channel.description,
      messages: channelMessages[kind],
      ...(channel.parameters
        ? { parameters: Object.fromEntries(channel.parameters.map((name) => [name, { description: `The ${name.replace("Id", "")}'s id.` }])) }
        : {}),
    };
  }

  return {
    asyncapi: "3.0.0",
    info: {
      title: "Hearth gateway",
      version: pkg.version,
      description:
        "The Socket.IO v4 gateway of a Hearth instance, on the REST port at the default path `/socket.io/`. " +
        "Connect with `io(baseUrl, { auth: { token } })`. Every client event answers its ack callback with " +
        "`{ok: true, ...}` or `{ok: false, error}`. `auth: { token, resume: true }` asks for session resume: each " +
        "stored event then carries its offset as a last argument, a reconnect within 2 minutes replays what was " +
        "missed, and `session:ready {resumed}` says on every connect whether it did (`false` after a reconnect: reload " +
        "over REST). Rules, limits and guides: docs/gateway.md.",
    },
    defaultContentType: "application/json",
    servers: {
      hearth: {
        host: "localhost:3000",
        pathname: "/socket.io/",
        protocol: "ws",
        description: "Socket.IO v4 (WebSocket, or HTTP long-polling upgraded to WebSocket). The host is this instance's.",
        security: [{ $ref: "#/components/securitySchemes/token" }],
      },
    },
    channels,
    operations,
    components: {
      schemas: converter.definitions(),
      messages,
      securitySchemes: {
        token: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The REST token (a user's or a bot's), given as the Socket.IO handshake's `auth.token`, not as a header.",
        },
      },
    },
  };
}

/** An ack: `{ok: true, ...fields}` or `{ok: false, error}`; fields of several shapes (a union) give a success of several shapes. */
function ackSchema(fields: SchemaObject): SchemaObject {
  const withOk = (shape: SchemaObject): SchemaObject => ({
    ...shape,
    type: "object",
    properties: { ok: { const: true }, ...((shape.properties ?? {}) as SchemaObject) },
    required: ["ok", ...((shape.required ?? []) as string[])],
  });
  const shapes = (fields.anyOf ?? fields.oneOf) as SchemaObject[] | undefined;
  const success = shapes ? { type: "object", properties: { ok: { const: true } }, required: ["ok"], anyOf: shapes.map(withOk) } : withOk(fields);
  const failure = { type: "object", properties: { ok: { const: false }, error: { type: "string" } }, required: ["ok", "error"], additionalProperties: false };
  return { oneOf: [success, failure] };
}
