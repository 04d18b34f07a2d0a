import pkg from "../../package.json" with { type: "json" };
import type { Store } from "../store/store.ts";
import type { PlatformCounts } from "../store/stats-repo.ts";
import { LIMITS } from "./limits.ts";
import { PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, DEFAULT_BOT_PERMISSIONS } from "./permission-bits.ts";
import { PRESENCE_STATUSES } from "./shapes.ts";

export const API_VERSION = "v1";

/** Public, unauthenticated facts about this instance. */
export class Platform {
  constructor(private readonly store: Store, private readonly settings: { requireTwoFactorForApplications: boolean }) {}

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
      },
    };
  }

  config() {
    return {
      api_version: API_VERSION,
      features: {
        registration_open: true,
        two_factor: true,
        two_factor_required_for_applications: this.settings.requireTwoFactorForApplications,
      },
      limits: LIMITS,
      presence_statuses: PRESENCE_STATUSES,
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
