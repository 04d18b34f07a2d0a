import type { Server } from "bun";
import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { doc } from "../operation-doc.ts";
import type { PublishedRestBucket } from "../rate-limit-families.ts";
import { Discovery, PlatformConfig, PlatformStats } from "../responses/discovery.ts";

/**
 * Public routes: discovery, platform config, statistics (no token needed). Discovery's links are
 * built on `publicUrl` (PUBLIC_URL, else what a trusted proxy reports, else the address listened
 * on), never on a Host header from a client no trusted proxy vouches for: a forged Host must not
 * send clients, or a cache keyed without it, elsewhere. The platform config carries the REST
 * rate limits' buckets (`restLimits`), which are the HTTP layer's and not the domain's.
 */
export const discoveryRoutes = (domain: Domain, publicUrl: (request: Request, server: Server<unknown> | null) => string, restLimits: Record<string, PublishedRestBucket>) =>
  new Elysia({ prefix: "/api/v1", tags: ["Discovery"] })
    .get("", ({ request, server }) => domain.discovery.discovery(publicUrl(request, server)), { detail: doc("getDiscovery", Discovery) })
    .get("/", ({ request, server }) => domain.discovery.discovery(publicUrl(request, server)), { detail: doc("getDiscovery", Discovery) })
    .get("/platform/config", async () => ({ ...(await domain.discovery.config()), rest_limits: restLimits }), { detail: doc("getPlatformConfig", PlatformConfig) })
    .get("/stats", () => domain.discovery.stats(), { detail: doc("getPlatformStats", PlatformStats) });
