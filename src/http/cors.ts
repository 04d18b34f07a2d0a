import { cors } from "@elysiajs/cors";
import type { AnyElysia } from "elysia";

/**
 * CORS for browser clients served from other origins (docs/operations.md#cors): the REST API
 * and the gateway's long-polling transport answer those origins' preflights and requests.
 * Tokens travel in the Authorization header, never in cookies, so credentials stay off.
 * With no origin configured nothing is added: no CORS header is ever sent (same-origin only),
 * and no hook runs.
 */
export function withCors<App extends AnyElysia>(app: App, origins: string[]): App {
  if (origins.length === 0) return app;
  app.use(
    cors({
      origin: origins.includes("*") ? "*" : origins,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      allowedHeaders: ["authorization", "content-type", "x-2fa-code", "prefer"],
      exposeHeaders: ["retry-after", "x-stream-id", "preference-applied"],
      credentials: false,
      maxAge: 600,
    }),
  );
  return app;
}
