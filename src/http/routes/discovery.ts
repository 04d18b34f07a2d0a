import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { doc } from "../operation-doc.ts";
import { Discovery, PlatformConfig, PlatformStats } from "../responses/discovery.ts";

/**
 * Public routes: discovery, platform config, statistics (no token needed). Discovery's links are
 * built on `publicUrl` (PUBLIC_URL), never on the request's Host: a forged Host must not send
 * clients, or a cache keyed without it, elsewhere.
 */
export const discoveryRoutes = (domain: Domain, publicUrl: () => string) =>
  new Elysia({ prefix: "/api/v1", tags: ["Discovery"] })
    .get("", () => domain.discovery.discovery(publicUrl()), { detail: doc("getDiscovery", Discovery) })
    .get("/", () => domain.discovery.discovery(publicUrl()), { detail: doc("getDiscovery", Discovery) })
    .get("/platform/config", () => domain.discovery.config(), { detail: doc("getPlatformConfig", PlatformConfig) })
    .get("/stats", () => domain.discovery.stats(), { detail: doc("getPlatformStats", PlatformStats) });
