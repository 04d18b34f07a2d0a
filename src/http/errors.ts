import type { Logger } from "../log.ts";
import { ApiError } from "../domain/shared/errors.ts";
import { describeIssue } from "../domain/shared/validation.ts";

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

/** The request path with credentials in it (webhook execute tokens) redacted: logs never hold secrets. */
export function loggablePath(request: Request): string {
  return new URL(request.url).pathname.replace(/^(\/api\/webhooks\/[^/]+\/)(?!token$)[^/]+$/, "$1[redacted]");
}

/**
 * Maps every failure to `{error}`: our ApiError with its status, Elysia's own VALIDATION,
 * PARSE and NOT_FOUND to 400/400/404, and anything else to a logged 500.
 */
export function errorResponse(code: string | number, error: unknown, request: Request, log: Logger): Response {
  // Elysia wraps what a parse hook throws (our auth check) in a ParseError with it as cause.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ApiError) error = cause;
  if (error instanceof ApiError) return json(error.status, error.message, error.headers);
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
