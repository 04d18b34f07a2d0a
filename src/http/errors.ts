import type { Logger } from "../log.ts";
import { ApiError } from "../domain/shared/errors.ts";
import { describeIssue } from "../domain/shared/validation.ts";
import { DatabaseUnavailableError } from "../store/availability.ts";
import { asStorageError, InsufficientStorageError } from "../store/storage-full.ts";
import { REDIS_RETRY_AFTER_SECONDS, RedisUnavailableError } from "../cluster/redis-unavailable.ts";

/** What a client is told to wait before trying again while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const json = (status: number, error: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });

interface ValidationLike {
  type?: string;
  valueError?: { message: string; path?: { key: unknown }[]; type?: string } | null;
  message?: string;
}

/** Elysia's VALIDATION error, said as "field: message" from the valibot issue it carries. */
function validationMessage(error: ValidationLike): string {
  const where = error.type === "query" ? "query" : error.type === "params" ? "path" : "body";
  const issue = error.valueError;
  if (!issue) return `Invalid ${where}`;
  return describeIssue(issue as Parameters<typeof describeIssue>[0], where);
}

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * The request path for logs, with credentials redacted: after a `webhooks` segment (in
 * `/api/webhooks/...`, `/api/v1/webhooks/...`, in any case or percent-encoding) every segment
 * after the next one (the webhook id) is `[redacted]`: the execute token and anything a client
 * appended to it. Only the static `token` of `POST /api/webhooks/:id/token` is kept.
 */
export function loggablePath(request: Request): string {
  // A base, for a request that carried no Host (its URL is a bare path).
  const segments = new URL(request.url, "http://host").pathname.split("/");
  const hooks = segments.findIndex((segment) => decoded(segment).toLowerCase() === "webhooks");
  if (hooks < 0) return segments.join("/");
  const id = segments.findIndex((segment, i) => i > hooks && segment !== "");
  if (id < 0) return segments.join("/");
  const after = segments.slice(id + 1);
  const onlyStaticToken = after.filter((segment) => segment !== "").length === 1 && after.at(-1) === "token";
  if (onlyStaticToken) return segments.join("/");
  return [...segments.slice(0, id + 1), ...after.map((segment) => (segment === "" ? "" : "[redacted]"))].join("/");
}

/**
 * Maps every failure to `{error}`: our ApiError with its status, the database out of reach to
 * 503 with Retry-After, a write refused for want of storage to 507, Elysia's own VALIDATION, PARSE and NOT_FOUND to 400/400/404, and
 * anything else to a logged 500.
 */
export function errorResponse(code: string | number, error: unknown, request: Request, log: Logger): Response {
  // Elysia wraps what a parse hook throws (our auth check) in a ParseError with it as cause.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ApiError) error = cause;
  if (error instanceof ApiError) return json(error.status, error.message, error.headers);
  // A storage failure the store did not see as one (a raw SQLite or file-system error) is one all the same.
  error = asStorageError(error);
  // Logged once per outage where the store noticed it (app.ts), not once per request.
  if (error instanceof DatabaseUnavailableError) return json(503, "Database unavailable", { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) });
  // A full disk or unwritable data folder: logged once when it starts (app.ts), not per request.
  if (error instanceof InsufficientStorageError) return json(507, error.message);
  // Cluster mode, Redis out of reach: said once by its availability (src/cluster/redis-client.ts), not per request.
  if (error instanceof RedisUnavailableError) return json(503, error.message, { "retry-after": String(REDIS_RETRY_AFTER_SECONDS) });
  switch (code) {
    case "VALIDATION":
      return json(400, validationMessage(error as ValidationLike));
    case "PARSE":
      return json(400, "Malformed request body: expected valid JSON");
    case "NOT_FOUND":
      return json(404, "Not found");
    case "INVALID_COOKIE_SIGNATURE":
      return json(400, "Invalid cookie");
  }
  // Elysia's `status(...)` and thrown Responses.
  if (error instanceof Response) return error;
  log.error("unhandled error", { method: request.method, path: loggablePath(request), code, error });
  return json(500, "Internal error");
}
