/**
 * Holds every answer the black-box tests get to the API reference: `api()` (./server.ts) hands
 * each response here. An API answer must come from a documented operation (method + path), with
 * a status that operation lists; a success body must match the documented schema exactly (an
 * object has the documented fields and no others), an error body must be `{error}`. So a shape,
 * a status or a route that changes without its documentation fails the test that saw it.
 *
 * The document is fetched once per process from the first server that answers and each schema
 * compiled once (ajv), so checking costs microseconds per request.
 */
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { buildAsyncApiDocument } from "../../src/reference/asyncapi.ts";
import { NAMED_SCHEMAS } from "../../src/reference/documents.ts";

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  template: string;
  segments: string[];
  responses: Record<string, Json>;
  operationId: string;
}

interface Reference {
  operations: Operation[];
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}

let reference: Promise<Reference> | null = null;

/** Paths that belong to the API: an answer there must be documented. */
const API_PATH = /^\/(api|uploads)(\/|$)/;

function referenceFor(baseUrl: string): Promise<Reference> {
  reference ??= (async () => {
    const response = await fetch(`${baseUrl}/api/v1/openapi.json`);
    if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
    return compile((await response.json()) as Json);
  })();
  return reference;
}

function compile(document: Json): Reference {
  const ajv = ajvFor(document);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        segments: template.split("/").filter(Boolean),
        responses: operation.responses as Record<string, Json>,
        operationId: String(operation.operationId),
      });
    }
  }
  return { operations, ajv, validators: new Map() };
}

/**
 * A document's schema as ajv reads it (draft-07): OpenAPI 3.0's `nullable` becomes a union with
 * null, `$ref`s point into the compiled components, an object with `properties` but no
 * `additionalProperties` is closed (exact shapes: an undocumented field fails), and binary data
 * (PCM in events) is whatever Socket.IO decoded.
 */
function forAjv(schema: unknown): Json {
  if (!schema || typeof schema !== "object") return schema as Json;
  const node = schema as Json;
  if (node.format === "binary") return {};
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "nullable") continue;
    if (key === "$ref") out.$ref = String(value).replace("#/components/schemas/", "document#/definitions/");
    else if (key === "properties") out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, child]) => [name, forAjv(child)]));
    else if (key === "allOf" || key === "anyOf" || key === "oneOf") out[key] = (value as unknown[]).map(forAjv);
    else if ((key === "items" || key === "additionalProperties") && typeof value === "object") out[key] = forAjv(value);
    else out[key] = value;
  }
  if (out.properties && !("additionalProperties" in out)) out.additionalProperties = false;
  return node.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

/** An ajv holding a document's named schemas, for compiling its answers' and payloads' schemas. */
function ajvFor(document: Json): Ajv {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats(ajv);
  const components = (document.components as Json).schemas as Record<string, Json>;
  ajv.addSchema({ $id: "document", definitions: Object.fromEntries(Object.entries(components).map(([name, schema]) => [name, forAjv(schema)])) });
  return ajv;
}

/** The documented operation answering `method path`, as Elysia's router picks it (a static segment wins). */
function operationFor(ref: Reference, method: string, path: string): Operation | "wrong-method" | null {
  const segments = path.split("/").filter(Boolean).map((s) => s);
  let best: { operation: Operation; rank: string } | null = null;
  let pathKnown = false;
  for (const operation of ref.operations) {
    if (operation.segments.length !== segments.length) continue;
    let rank = "";
    let matches = true;
    for (let i = 0; i < segments.length; i++) {
      const expected = operation.segments[i]!;
      if (expected.startsWith("{")) rank += "0";
      else if (expected === segments[i]) rank += "1";
      else {
        matches = false;
        break;
      }
    }
    if (!matches) continue;
    pathKnown = true;
    if (operation.method !== method) continue;
    if (!best || rank > best.rank) best = { operation, rank };
  }
  return best?.operation ?? (pathKnown ? "wrong-method" : null);
}

export interface Answered {
  method: string;
  /** The request path, query included. */
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** Throws when the answer is not what the reference documents. */
export async function checkAgainstReference(baseUrl: string, answer: Answered): Promise<void> {
  const ref = await referenceFor(baseUrl);
  const path = new URL(answer.path, "http://x").pathname;
  const where = `${answer.method} ${path} answered ${answer.status}`;
  if (answer.status >= 500) return;
  const isError = answer.status >= 400;
  if (isError && (answer.contentType.includes("application/json") || API_PATH.test(path))) {
    const body = answer.body as Json;
    if (!body || typeof body !== "object" || Object.keys(body).length !== 1 || typeof body.error !== "string") {
      throw new Error(`${where} with ${JSON.stringify(answer.body)}: an error body is exactly {error: string}`);
    }
  }
  const operation = operationFor(ref, answer.method, path);
  if (operation === null || operation === "wrong-method") {
    // Not an API path (a web app page, /docs, the gateway): nothing to hold it to.
    if (!API_PATH.test(path)) return;
    // Elysia answers an unknown route or method 404, the same as a missing resource.
    if (answer.status === 404) return;
    throw new Error(`${where}, but the API reference documents no ${answer.method} ${path}`);
  }
  const documented = operation.responses[String(answer.status)];
  if (!documented) {
    throw new Error(`${where}, which the reference does not list for ${operation.operationId} (it lists ${Object.keys(operation.responses).join(", ")})`);
  }
  if (isError || answer.status === 304) return;
  const content = documented.content as Record<string, Json> | undefined;
  if (!content) {
    if (answer.status === 204 && answer.body !== "") throw new Error(`${where} with a body; the reference says no content`);
    return;
  }
  const json = content["application/json"];
  if (!json) {
    const [type] = Object.keys(content);
    if (type === "text/event-stream" && !answer.contentType.startsWith("text/event-stream")) throw new Error(`${where} as ${answer.contentType}, not ${type}`);
    return;
  }
  if (!answer.contentType.includes("application/json")) throw new Error(`${where} as ${answer.contentType}; the reference says JSON`);
  const key = `${operation.operationId} ${answer.status}`;
  let validate = ref.validators.get(key);
  if (!validate) {
    validate = ref.ajv.compile(forAjv(json.schema));
    ref.validators.set(key, validate);
  }
  if (!validate(answer.body)) {
    const [error] = validate.errors ?? [];
    const at = error?.instancePath || "(the body)";
    const extra = error?.params && "additionalProperty" in error.params ? ` "${String(error.params.additionalProperty)}"` : "";
    throw new Error(`${where} (${operation.operationId}): ${at} ${error?.message ?? "does not match"}${extra}, against the documented schema. Body: ${JSON.stringify(answer.body).slice(0, 600)}`);
  }
}

/**
 * Gateway events, held to the AsyncAPI document the same way (`waitForEvent` and `recordEvents`
 * in ./server.ts): a server event's payload must match its documented schema exactly. The
 * document is built here from the same tables the server serves it from.
 */
let events: { ajv: Ajv; messages: Record<string, Json>; validators: Map<string, ValidateFunction> } | null = null;

export function checkEventPayload(event: string, payload: unknown): void {
  events ??= (() => {
    const document = buildAsyncApiDocument({ named: NAMED_SCHEMAS });
    return { ajv: ajvFor(document), messages: (document.components as Json).messages as Record<string, Json>, validators: new Map() };
  })();
  const message = events.messages[`server.${event.replaceAll(":", ".")}`];
  // Socket.IO's own events (connect, disconnect, ...) are not Hearth's.
  if (!message) return;
  let validate = events.validators.get(event);
  if (!validate) {
    validate = events.ajv.compile(forAjv(message.payload));
    events.validators.set(event, validate);
  }
  if (!validate(payload)) {
    const [error] = validate.errors ?? [];
    const extra = error?.params && "additionalProperty" in error.params ? ` "${String(error.params.additionalProperty)}"` : "";
    throw new Error(`${event}: ${error?.instancePath || "(the payload)"} ${error?.message ?? "does not match"}${extra}, against the AsyncAPI document. Payload: ${JSON.stringify(payload).slice(0, 600)}`);
  }
}
