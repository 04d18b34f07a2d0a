import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import type { EventBus } from "./events.ts";
import { Accounts } from "./accounts.ts";
import { Platform } from "./platform.ts";
import { Presence } from "./presence.ts";
import { TokenService } from "./tokens.ts";
import { TwoFactor } from "./two-factor.ts";
import { UploadStore } from "./uploads.ts";
import { Users } from "./users.ts";

/** Every feature of the platform, wired to one store and one event bus. */
export interface Domain {
  accounts: Accounts;
  twoFactor: TwoFactor;
  users: Users;
  presence: Presence;
  platform: Platform;
  uploads: UploadStore;
}

export function createDomain(deps: { config: Config; jwtSecret: string; store: Store; bus: EventBus }): Domain {
  const { config, store, bus } = deps;
  const tokens = new TokenService(deps.jwtSecret, config.tokenLifetime);
  const uploads = new UploadStore(config.dataDir);
  return {
    accounts: new Accounts(store, tokens, bus, config),
    twoFactor: new TwoFactor(store),
    users: new Users(store, uploads),
    presence: new Presence(store, bus),
    platform: new Platform(store),
    uploads,
  };
}
