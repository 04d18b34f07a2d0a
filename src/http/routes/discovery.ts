import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";

/** The request's own origin, so discovery links work behind any host name. */
const originOf = (request: Request) => new URL(request.url).origin;

/** Public routes: discovery, platform config, statistics (no token needed). */
export const discoveryRoutes = (domain: Domain) =>
  new Elysia({ prefix: "/api/v1" })
    .get("", ({ request }) => domain.discovery.discovery(originOf(request)))
    .get("/", ({ request }) => domain.discovery.discovery(originOf(request)))
    .get("/platform/config", () => domain.discovery.config())
    .get("/stats", () => domain.discovery.stats());
