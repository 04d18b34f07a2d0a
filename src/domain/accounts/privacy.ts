import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { forbidden } from "../shared/errors.ts";

export const DMS_FROM = ["server_members", "friends"] as const;
export const FRIEND_REQUESTS_FROM = ["everyone", "mutual", "nobody"] as const;

/** Who may reach the user (docs/users.md, "Privacy"); the defaults are the rules from before the setting existed. */
export const PrivacySettings = v.object({
  /** `server_members`: friends and anyone sharing a server; `friends`: friends only. */
  dms_from: v.picklist(DMS_FROM),
  /** `everyone`; `mutual`: people sharing a server or a friend with the user; `nobody`. */
  friend_requests_from: v.picklist(FRIEND_REQUESTS_FROM),
});
export type PrivacySettings = v.InferOutput<typeof PrivacySettings>;

export const DMS_FRIENDS_ONLY = "This user only accepts direct messages from friends";
const REQUESTS_FROM_NOBODY = "This user is not accepting friend requests";
const REQUESTS_FROM_MUTUAL = "This user only accepts friend requests from people they share a server or a friend with";

/**
 * The user's own privacy settings, and the friend-request rule they narrow. The DM rule is
 * applied where every DM is checked (`Dms.requireCanMessage`), reading the same settings.
 */
export class Privacy {
  constructor(private readonly store: Store) {}

  get(user: UserRow): Promise<PrivacySettings> {
    return this.store.privacy.get(user.id);
  }

  update(user: UserRow, changes: Partial<PrivacySettings>): Promise<PrivacySettings> {
    return this.store.privacy.update(user.id, changes);
  }

  /** Throws 403 unless `target`'s friend_requests_from lets `from` send them a new request. */
  async requireAcceptsFriendRequest(from: UserRow, target: UserRow): Promise<void> {
    const { friend_requests_from } = await this.store.privacy.get(target.id);
    if (friend_requests_from === "nobody") throw forbidden(REQUESTS_FROM_NOBODY);
    if (friend_requests_from === "mutual" && !(await this.shareServerOrFriend(from.id, target.id))) throw forbidden(REQUESTS_FROM_MUTUAL);
  }

  private async shareServerOrFriend(a: string, b: string): Promise<boolean> {
    return (await this.store.dms.shareServer(a, b)) || (await this.store.friends.mutualFriends(a, b)).length > 0;
  }
}
