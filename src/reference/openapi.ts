/**
 * The OpenAPI 3.0 document of the REST API (served at /api/v1/openapi.json), generated from the
 * routes Elysia registered: paths, parameters and request bodies from the route schemas (through
 * @elysiajs/openapi with valibot mapped by @valibot/to-json-schema), answers from each route's
 * `doc()` (src/http/operation-doc.ts). Rules for reading it are in docs/reference.md.
 */
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import { OPERATION_DOC, isSpecialAnswer, type Answer, type ErrorStatus, type OperationDoc } from "../http/operation-doc.ts";
import { SchemaConverter, type SchemaObject } from "./json-schema.ts";
import { restRateFamilyOf } from "../http/rate-limit-families.ts";
import { parameterDescription } from "./parameters.ts";
import { EXAMPLES } from "./examples.ts";

/** A route as Elysia lists it (`app.routes`). */
export interface RegisteredRoute {
  method: string;
  path: string;
  hooks?: Record<string, unknown>;
}

/**
 * Registered routes that are not REST API operations: the gateway (its own AsyncAPI document),
 * the web app's pages and assets, and the reference pages themselves.
 */
export const NOT_OPERATIONS: readonly { method: string; path: string; why: string }[] = [
  { method: "ALL", path: "/socket.io/", why: "the Socket.IO gateway: /api/v1/asyncapi.json" },
  { method: "GET", path: "/assets/:name", why: "the web app's bundle" },
  { method: "GET", path: "/", why: "a web app page" },
  { method: "GET", path: "/*", why: "a web app page" },
  { method: "GET", path: "/docs", why: "the reference page" },
  { method: "GET", path: "/docs/:file", why: "the reference page's bundle" },
  { method: "GET", path: "/api/v1/openapi.json", why: "this document" },
  { method: "GET", path: "/api/v1/asyncapi.json", why: "the gateway's document" },
];

/** What each tag (one per route plugin) is about. */
const TAGS: Record<string, string> = {
  Discovery: "What this instance is and what it allows; no token needed.",
  Auth: "Accounts, logins and two-factor authentication.",
  Users: "The caller's account and other users' public views.",
  Friends: "Friends, friend requests and friend search.",
  Servers: "Servers, their settings, images, members and read state.",
  Channels: "Channels, categories and permission overrides.",
  Roles: "Custom roles and their assignment.",
  Invites: "Server invites and joining by code.",
  Moderation: "Kicks, bans, timeouts, built-in roles and the audit log.",
  Emojis: "Custom emojis of servers.",
  Messages: "Channel messages, uploads, GIFs and search.",
  Reactions: "Reactions on channel messages.",
  Pins: "Pinned channel messages.",
  DMs: "One-to-one direct messages.",
  "Group DMs": "Group direct messages.",
  Webhooks: "Channel webhooks: management with a user token, execution with the URL token.",
  Voice: "What WebRTC clients need for voice besides the gateway: the ICE servers.",
  Soundboard: "Server soundboards and the premium cross-server catalog.",
  GIFs: "GIF and sticker search.",
  Applications: "Bot applications, their tokens and the servers their bot is in.",
  Commands: "Slash commands of applications.",
  "Bot invites": "The public bot invite card and adding a bot to a server.",
  "Bot REST": "What a bot does over REST, with its bot token.",
  Reports: "Reports users file about messages and users.",
  AI: "The AI assistant.",
  Admin: "Platform administration (administrators only).",
  "AI admin": "The AI assistant's settings and provider keys (administrators only).",
  Files: "Uploaded files at their stable paths.",
  SDK: "The bot SDK (`@hearth/sdk`) of this server's version, as an npm tarball: `npm install <server>/sdk/latest.tgz`.",
  Operations: "For operators and load balancers: liveness, readiness, metrics (docs/operations.md).",
};

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: { name: "BadRequest", description: "Bad input: the message names the field." },
  401: { name: "Unauthorized", description: "No token, or a token that is invalid, expired or revoked." },
  403: { name: "Forbidden", description: "It exists, but not for you (a permission, membership, token kind or ownership is missing)." },
  404: { name: "NotFound", description: "It does not exist (or you may not know it does)." },
  409: { name: "Conflict", description: "It conflicts with what exists (a name taken, already done)." },
  413: { name: "PayloadTooLarge", description: "The body or upload is over its limit." },
  429: { name: "TooManyRequests", description: "Rate limited: retry after the `Retry-After` header's seconds." },
  503: { name: "ServiceUnavailable", description: "This node cannot serve it now (not ready, or draining before it stops): try another node." },
};

/** The security schemes: every token is a bearer JWT; which kind a route wants is its scheme. */
const SECURITY_SCHEMES = {
  token: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A user's or a bot's token (`Authorization: Bearer <token>`)." },
  botToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A bot's token; a user token is refused with 403." },
  adminToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A platform administrator's user token; anyone else is refused with 403." },
};

type Operation = Record<string, unknown> & { operationId?: string; parameters?: SchemaObject[]; security?: Record<string, string[]>[] };

/** `/api/v1/servers/` and `/api/v1/servers` are one path to Elysia; the document writes the latter. */
export const documentedPath = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path).replace(/:([^/]+)/g, "{$1}");

const isExcluded = (route: RegisteredRoute) => NOT_OPERATIONS.some((entry) => entry.method === route.method && entry.path === route.path);

/** "getServerMembers" -> "Get server members". */
const summaryOf = (operationId: string) => {
  const words = operationId.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

interface OpenApiOptions {
  /** Named schemas (components), by name. */
  named: Record<string, v.GenericSchema>;
}

/** Builds the document from the registered routes. */
export function buildOpenApiDocument(routes: readonly RegisteredRoute[], options: OpenApiOptions): SchemaObject {
  const converter = new SchemaConverter({ named: options.named });
  const included = routes.filter((route) => !isExcluded(route));
  const app = { getGlobalRoutes: () => included, getGlobalDefinitions: () => ({ type: {} }) };
  const generated = toOpenAPISchema(
    app as unknown as Parameters<typeof toOpenAPISchema>[0],
    { staticFile: false },
    undefined,
    { valibot: (schema: v.GenericSchema) => converter.convert(schema, "input") },
    "3.0.3",
  ) as unknown as { paths: Record<string, Record<string, Operation>> };

  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of included) {
    const method = route.method.toLowerCase();
    const path = documentedPath(route.path);
    // Elysia matches `/x` and `/x/` alike; two registrations of one path are one operation.
    if (paths[path]?.[method]) continue;
    const operation = generated.paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[method];
    if (!operation) continue;
    (paths[path] ??= {})[method] = describe(operation, route, converter);
  }

  placeExamples(paths);
  const schemas = { Error: ERROR_SCHEMA, ...converter.definitions() };
  typeNullableReferences(schemas, paths, schemas);
  return {
    openapi: "3.0.3",
    info: {
      title: "Hearth API",
      version: pkg.version,
      description:
        "The REST API of a Hearth instance. JSON everywhere except uploads (multipart) and the AI stream " +
        "(server-sent events); every error is `{\"error\": \"<message>\"}`. The gateway (Socket.IO) is described " +
        "by /api/v1/asyncapi.json; the rules and guides are in the repository's docs/.",
    },
    servers: [{ url: "/", description: "This instance" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(Object.values(ERROR_RESPONSES).map(({ name, description }) => [name, errorResponse(name, description)])),
      headers: RATE_LIMIT_HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** Puts ./examples.ts in the document; an example with no operation or no JSON to go with is an error (a renamed operation, a typo). */
function placeExamples(paths: Record<string, Record<string, Operation>>): void {
  const byId = new Map(Object.values(paths).flatMap((methods) => Object.values(methods)).map((operation) => [operation.operationId, operation]));
  const json = (holder: unknown) => (holder as { content?: Record<string, SchemaObject> } | undefined)?.content?.["application/json"];
  for (const [operationId, example] of Object.entries(EXAMPLES)) {
    const operation = byId.get(operationId);
    if (!operation) throw new Error(`reference example for ${operationId}: no such operation`);
    if (example.body !== undefined) {
      const media = json(operation.requestBody);
      if (!media) throw new Error(`reference example for ${operationId}: it takes no JSON body`);
      media.example = example.body;
    }
    if (example.response !== undefined) {
      const responses = operation.responses as Record<string, unknown>;
      const success = Object.keys(responses).find((status) => status.startsWith("2"));
      const media = success ? json(responses[success]) : undefined;
      if (!media) throw new Error(`reference example for ${operationId}: it answers no JSON`);
      media.example = example.response;
    }
  }
}

/**
 * OpenAPI 3.0 takes `nullable` only beside a `type`: a nullable reference
 * (`{nullable: true, allOf: [{$ref}]}`, ./json-schema.ts) gets its target's type.
 */
function typeNullableReferences(schemas: Record<string, SchemaObject>, ...roots: unknown[]): void {
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const schema = node as SchemaObject;
    const ref = Array.isArray(schema.allOf) && schema.allOf.length === 1 ? (schema.allOf[0] as SchemaObject).$ref : undefined;
    if (schema.nullable === true && schema.type === undefined && typeof ref === "string") {
      const target = schemas[ref.replace("#/components/schemas/", "")];
      if (typeof target?.type === "string") schema.type = target.type;
    }
    for (const value of Object.values(schema)) visit(value);
  };
  roots.forEach(visit);
}

const ERROR_SCHEMA = {
  type: "object",
  properties: { error: { type: "string", description: "A human-readable message." } },
  required: ["error"],
  additionalProperties: false,
};

/** The REST rate limits' headers (docs/operations.md, "Rate limits"), on every answer of a limited route. */
const RATE_LIMIT_HEADERS: Record<string, SchemaObject> = {
  "X-RateLimit-Limit": { description: "Requests the route family's bucket allows per window.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "When the window ends, in epoch seconds (to the millisecond).", schema: { type: "number" } },
  "X-RateLimit-Reset-After": { description: "Seconds until the window ends (to the millisecond).", schema: { type: "number" } },
  "X-RateLimit-Bucket": { description: "The bucket's name: its route family (`messages.send`, `messages.send.all`, `messages.write`, `reactions`, `reads`, `writes`).", schema: { type: "string" } },
};
const rateLimitHeaderRefs = () => Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

function errorResponse(name: string, description: string): SchemaObject {
  const response: SchemaObject = { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  if (name === "TooManyRequests") response.headers = { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } }, ...rateLimitHeaderRefs() };
  return response;
}

/** Completes one generated operation from the route's hooks and its `doc()`. */
function describe(generated: Operation, route: RegisteredRoute, converter: SchemaConverter): Operation {
  const hooks = route.hooks ?? {};
  const detail = (hooks.detail ?? {}) as Record<string, unknown>;
  const described = detail[OPERATION_DOC] as OperationDoc | undefined;
  const { [OPERATION_DOC]: _doc, requestBody: _generatedBody, ...operation } = generated;
  const out: Operation = { ...operation };
  // A public route says so (`security: []`), rather than leaving a reader to guess.
  out.security ??= [];
  if (typeof out.operationId === "string") out.summary ??= summaryOf(out.operationId);
  if (described?.description) out.description = described.description;
  if (described?.deprecated) out.deprecated = true;

  const parameters = (out.parameters ?? []).map((parameter) =>
    parameter.in === "query" && parameter.schema ? { ...parameter, schema: queryValue(parameter.schema as SchemaObject) } : parameter,
  );
  if (described?.query) parameters.push(...queryParameters(converter.convert(described.query, "input")));
  for (const [name, description] of Object.entries(described?.headers ?? {})) {
    parameters.push({ name, in: "header", required: false, description, schema: { type: "string" } });
  }
  const path = documentedPath(route.path);
  for (const parameter of parameters) {
    if (parameter.in !== "path" && parameter.in !== "query") continue;
    const name = parameter.name as string;
    const description = described?.params?.[name] ?? parameter.description ?? parameterDescription(name, parameter.in, path);
    if (description) parameter.description = description;
  }
  for (const name of Object.keys(described?.params ?? {})) {
    if (!parameters.some((parameter) => parameter.name === name)) throw new Error(`${route.method} ${route.path}: doc({params}) describes ${name}, which the route does not take`);
  }
  if (parameters.length > 0) out.parameters = parameters.map(orderParameter);
  else delete out.parameters;

  const body = requestBody(hooks, described, converter);
  if (body) out.requestBody = body;

  const responses: Record<string, unknown> = {};
  const limited = isRateLimited(route, out);
  for (const [status, answer] of Object.entries(described?.responses ?? {})) {
    const response = successResponse(answer, converter);
    responses[status] = limited ? { ...response, headers: { ...(response.headers as Record<string, unknown> | undefined), ...rateLimitHeaderRefs() } } : response;
  }
  // A route without `doc()` is marked so; the reference test fails on it.
  if (!described) responses.default = { description: "Not described yet" };
  for (const status of errorStatuses(route, out, body !== undefined, described)) {
    responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  }
  out.responses = responses;
  return out;
}

/** `name, in, description, required, schema` first, in that order, as a reader looks for them. */
function orderParameter(parameter: SchemaObject): SchemaObject {
  const { name, in: where, description, required, schema, ...rest } = parameter;
  return { name, in: where, ...(description === undefined ? {} : { description }), ...(required === undefined ? {} : { required }), ...(schema === undefined ? {} : { schema }), ...rest };
}

/** A count the route reads from its query's digits (`limit`) is documented as the integer it is. */
function queryValue(schema: SchemaObject): SchemaObject {
  if (schema.type !== "string" || schema.pattern !== "^\\d+$") return schema;
  const { pattern: _digits, ...rest } = schema;
  return { ...rest, type: "integer", minimum: 0 };
}

function queryParameters(query: SchemaObject): SchemaObject[] {
  const properties = (query.properties ?? {}) as Record<string, SchemaObject>;
  const required = (query.required ?? []) as string[];
  return Object.entries(properties).map(([name, schema]) => ({ name, in: "query", required: required.includes(name), schema: queryValue(schema) }));
}

function requestBody(hooks: Record<string, unknown>, described: OperationDoc | undefined, converter: SchemaConverter): SchemaObject | undefined {
  const content: Record<string, SchemaObject> = {};
  const schema = (hooks.body as v.GenericSchema | undefined) ?? described?.body;
  const optional = described?.bodyOptional ?? schema?.type === "optional";
  if (schema) {
    const shown = schema.type === "optional" ? (schema as unknown as { wrapped: v.GenericSchema }).wrapped : schema;
    content["application/json"] = { schema: converter.convert(shown, "input") };
  }
  // A form the handler reads itself (`parse: "none"`): described by hand, files as binary.
  if (described?.multipart) content["multipart/form-data"] = { schema: converter.convert(described.multipart, "input") };
  if (Object.keys(content).length === 0) return undefined;
  return { required: !optional, content };
}

function successResponse(answer: Answer, converter: SchemaConverter): SchemaObject {
  if (!isSpecialAnswer(answer)) return { description: "Success", content: { "application/json": { schema: converter.convert(answer, "output") } } };
  switch (answer.answer) {
    case "no-content":
      return { description: "Done; no body" };
    case "redirect":
      return { description: "Redirect to the file", headers: { Location: { description: "Where the file is", schema: { type: "string" } } } };
    case "event-stream":
      return { description: "A stream of server-sent events", content: { "text/event-stream": { schema: { type: "string" } } } };
    case "file":
      return { description: "The file's bytes", content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } };
    case "tarball":
      return { description: "The gzipped tarball", content: { "application/gzip": { schema: { type: "string", format: "binary" } } } };
    case "prometheus-text":
      return { description: "The Prometheus text exposition format, version 0.0.4", content: { "text/plain": { schema: { type: "string" } } } };
  }
}

/**
 * The error statuses of a route: derived from what it takes, plus the route's own `errors`,
 * minus its `never`. A token: 401, and 403 (a disabled account, the wrong kind of token, a
 * permission); a change made with a token: 400 (a rule refused it); a body or a query: 400;
 * a body: 413; a path parameter: 404; a user's or bot's token on a route of a rate-limit family
 * (src/http/rate-limit-families.ts): 429.
 */
/** Whether the REST rate limits count this route: it takes a user's or a bot's token (the `auth` and `bot` macros) and has a family. */
function isRateLimited(route: RegisteredRoute, operation: Operation): boolean {
  const byToken = (operation.security ?? []).some((scheme) => "token" in scheme || "botToken" in scheme);
  return byToken && restRateFamilyOf(route.method, route.path) !== null;
}

function errorStatuses(route: RegisteredRoute, operation: Operation, hasBody: boolean, described: OperationDoc | undefined): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(described?.errors ?? []);
  const parameters = operation.parameters ?? [];
  const secured = (operation.security ?? []).length > 0;
  if (hasBody || parameters.some((p) => p.in === "query") || route.hooks?.query) statuses.add(400);
  if (hasBody) statuses.add(413);
  if (secured) {
    statuses.add(401);
    statuses.add(403);
    if (route.method !== "GET") statuses.add(400);
    if (isRateLimited(route, operation)) statuses.add(429);
  }
  if (parameters.some((p) => p.in === "path")) statuses.add(404);
  for (const status of described?.never ?? []) statuses.delete(status);
  return [...statuses].sort((a, b) => a - b);
}
