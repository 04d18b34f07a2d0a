/**
 * The one error type of the code base. HTTP maps it to `{error}` with its status;
 * a gateway ack maps it to `{ok: false, error}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = "Unauthorized") => new ApiError(401, message);
export const forbidden = (message = "Missing permissions") => new ApiError(403, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string) => new ApiError(409, message);
/**
 * 413. `closeConnection` when the rest of the body was left unread (it was too far past the
 * limit to discard, docs/README.md "Request bodies"), so the connection cannot be reused.
 */
export const payloadTooLarge = (message: string, { closeConnection = false } = {}) =>
  new ApiError(413, message, closeConnection ? { Connection: "close" } : {});
export const tooManyRequests = (retryAfterSeconds: number, message = "Too many requests, try again later") =>
  new ApiError(429, message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
