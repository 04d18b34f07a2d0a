/**
 * How a route describes itself for the API reference (src/reference/openapi.ts): its
 * operationId and, as valibot schemas, its success answers (by status), plus what the route
 * schemas cannot show (error statuses beyond the derived ones, a body or query the handler
 * validates itself, a multipart form, headers). Routes pass it as Elysia's `detail`:
 *
 *   .get("/:id", handler, { auth: true, detail: doc("getServer", Server) })
 *
 * The answers are documentation: Elysia never validates or reshapes a response with them (its
 * `response` option would, on every request); the black-box tests hold every answer they get
 * to them instead (test/helpers/server.ts).
 */
import type * as v from "valibot";

/** Answers that are not JSON. */
export const NO_CONTENT = { answer: "no-content" } as const;
export const REDIRECT = { answer: "redirect" } as const;
export const EVENT_STREAM = { answer: "event-stream" } as const;
export const FILE = { answer: "file" } as const;
/** A gzipped tar archive (the SDK's npm tarball). */
export const TARBALL = { answer: "tarball" } as const;
/** The Prometheus text exposition format (/metrics). */
export const PROMETHEUS_TEXT = { answer: "prometheus-text" } as const;
type SpecialAnswer = typeof NO_CONTENT | typeof REDIRECT | typeof EVENT_STREAM | typeof FILE | typeof TARBALL | typeof PROMETHEUS_TEXT;

export type Answer = v.GenericSchema | SpecialAnswer;

/** The error statuses a route may add to those derived from its hooks (docs/reference.md). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 503;

export interface OperationDoc {
  /** Success answers by status. */
  responses: Record<number, Answer>;
  /** Error statuses besides the derived ones. */
  errors?: ErrorStatus[];
  /** Derived statuses this route can never answer (e.g. 404 on a route whose parameter is not looked up). */
  never?: ErrorStatus[];
  /** A JSON body the handler validates itself (so Elysia's hooks do not carry it). */
  body?: v.GenericSchema;
  /** Whether that body may be left out. */
  bodyOptional?: boolean;
  /** A multipart form the handler reads itself, described by hand (files as `FileField`). */
  multipart?: v.GenericSchema;
  /** A query the handler validates itself. */
  query?: v.GenericSchema;
  /**
   * Path and query parameters that mean something else here than their name does everywhere
   * else (src/reference/parameters.ts), by name.
   */
  params?: Record<string, string>;
  /** Request headers the route reads, with what they mean. */
  headers?: Record<string, string>;
  /** A sentence for the reference; the summary is made from the operationId otherwise. */
  description?: string;
  /** An older path kept for clients that use it. */
  deprecated?: boolean;
}

/** Where the description travels in Elysia's `detail` (removed when the document is built). */
export const OPERATION_DOC = "x-hearth-doc";

interface DocumentedDetail {
  operationId: string;
  [OPERATION_DOC]: OperationDoc;
}

/**
 * A route's reference entry. `ok` is the 200 answer's schema, or answers by status
 * (`{201: Server}`).
 */
export function doc(operationId: string, ok: Answer | Record<number, Answer>, more: Omit<OperationDoc, "responses"> = {}): DocumentedDetail {
  const responses = isAnswer(ok) ? { 200: ok } : ok;
  return { operationId, [OPERATION_DOC]: { responses, ...more } };
}

function isAnswer(value: Answer | Record<number, Answer>): value is Answer {
  return "answer" in value || "kind" in value;
}

export function isSpecialAnswer(value: Answer): value is SpecialAnswer {
  return "answer" in value;
}
