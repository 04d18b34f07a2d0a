import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { doc } from "../operation-doc.ts";
import { Discovery, PlatformConfig, PlatformStats } from "../responses/discovery.ts";

/** The request's own origin, so discovery links work behind any host name. */
const originOf = (request: Request) => new URL(request.url).origin;

/** Public routes: discovery, platform config, statistics (no token needed). */
export const discoveryRoutes = (domain: Domain) =>
  new Elysia({ prefix: "/api/v1", tags: ["Discovery"] })
    .get("", ({ request }) => domain.discovery.discovery(originOf(request)), { detail: doc("getDiscovery", Discovery) })
    .get("/", ({ request }) => domain.discovery.discovery(originOf(request)), { detail: doc("getDiscovery", Discovery) })
    .get("/platform/config", () => domain.discovery.config(), { detail: doc("getPlatformConfig", PlatformConfig) })
    .get("/stats", () => domain.discovery.stats(), { detail: doc("getPlatformStats", PlatformStats) });
