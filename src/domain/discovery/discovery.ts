import pkg from "../../../package.json" with { type: "json" };
import type { Store } from "../../store/store.ts";
import type { PlatformCounts } from "../../store/stats-repo.ts";
import { SPEC_LIMITS } from "../shared/limits.ts";
import type { PlatformSettings } from "../admin/platform-settings.ts";
import { REGISTRATION_OPEN } from "../accounts/accounts.ts";
import { REQUIRE_2FA_FOR_APPLICATIONS } from "../bots/applications.ts";
import { PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, DEFAULT_BOT_PERMISSIONS } from "../access/permission-bits.ts";
import { PRESENCE_STATUSES } from "../shared/shapes.ts";

const API_VERSION = "v1";

/** The gateway's client event limits (docs/gateway.md, "Limits"), as clients pace themselves by them. */
export interface GatewayLimits {
  /** Per socket, by event kind: `per_second` on average, up to `burst` at once. */
  kinds: Record<string, { per_second: number; burst: number }>;
  /** A user's sockets together get this many times a socket's limits. */
  user_factor: number;
}

/** Public, unauthenticated facts about this instance. */
export class Discovery {
  constructor(
    private readonly store: Store,
    private readonly settings: PlatformSettings,
    /** LARGE_SERVER_MEMBERS: past this many members a server's presence goes to subscribers only (docs/gateway.md, "Presence"). */
    private readonly largeServerMembers: number,
    private readonly gatewayLimits: GatewayLimits,
  ) {}

  discovery(baseUrl: string) {
    return {
      name: "Hearth",
      version: pkg.version,
      api_version: API_VERSION,
      gateway: { url: baseUrl, path: "/socket.io/", protocol: "socket.io", protocol_version: 4 },
      links: {
        self: `${baseUrl}/api/v1`,
        platform_config: `${baseUrl}/api/v1/platform/config`,
        stats: `${baseUrl}/api/v1/stats`,
        register: `${baseUrl}/api/v1/auth/register`,
        login: `${baseUrl}/api/v1/auth/login`,
        me: `${baseUrl}/api/v1/users/me/info`,
        // The API reference (docs/reference.md).
        openapi: `${baseUrl}/api/v1/openapi.json`,
        asyncapi: `${baseUrl}/api/v1/asyncapi.json`,
        docs: `${baseUrl}/docs`,
      },
    };
  }

  /** Features follow the live platform settings (docs/admin.md). */
  async config() {
    return {
      api_version: API_VERSION,
      features: {
        registration_open: await this.settings.get(REGISTRATION_OPEN),
        two_factor: true,
        two_factor_required_for_applications: await this.settings.get(REQUIRE_2FA_FOR_APPLICATIONS),
      },
      limits: SPEC_LIMITS,
      presence_statuses: PRESENCE_STATUSES,
      large_server_members: this.largeServerMembers,
      gateway_limits: this.gatewayLimits,
      permissions: PERMISSIONS,
      default_permissions: {
        everyone: DEFAULT_EVERYONE_PERMISSIONS,
        bot: DEFAULT_BOT_PERMISSIONS,
      },
    };
  }

  stats(): Promise<PlatformCounts> {
    return this.store.stats.counts();
  }
}
