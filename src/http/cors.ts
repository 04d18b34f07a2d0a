import { cors } from "@elysiajs/cors";

/**
 * CORS for browser clients served from other origins (docs/operations.md#cors): the REST API
 * and the gateway's long-polling transport answer those origins' preflights and requests.
 * Tokens travel in the Authorization header, never in cookies, so credentials stay off.
 * Null when no origin is configured: then no CORS header is ever sent (same-origin only).
 */
export function corsPlugin(origins: string[]) {
  if (origins.length === 0) return null;
  return cors({
    origin: origins.includes("*") ? "*" : origins,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: ["authorization", "content-type", "x-2fa-code"],
    exposeHeaders: ["retry-after", "x-stream-id"],
    credentials: false,
    maxAge: 600,
  });
}
