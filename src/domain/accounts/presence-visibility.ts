import type { Store } from "../../store/store.ts";
import type { CustomStatus, PresenceStatus } from "../shared/shapes.ts";

/**
 * Who sees whose presence (status, activity and custom status), as Discord shows it: oneself, accepted
 * friends, and people who share a server. A bot's presence is everyone's to see: a bot is a
 * service whose being up is what its users look for, not a person to keep private. Everyone else (a stranger, someone with only a
 * pending friend request, a DM or group DM partner who is neither) sees `offline` and no
 * activity (docs/users.md#presence-privacy). This is the one rule for every answer that carries
 * another user's status; the gateway's `user:status` reaches the same people through its rooms
 * (the presence audience in domain.ts: the user's servers and friends).
 *
 * One indexed query for a whole list (FriendsRepo.presenceVisible), however long.
 */
export async function presenceShownTo<T extends { status: PresenceStatus; custom_status?: CustomStatus | null }>(
  store: Store,
  viewerId: string,
  entries: readonly T[],
  idOf: (entry: T) => string,
): Promise<T[]> {
  // Only a status other than offline has anything to hide.
  const present = entries.filter((entry) => entry.status !== "offline" && idOf(entry) !== viewerId);
  const visible = present.length === 0 ? new Set<string>() : await store.friends.presenceVisible(viewerId, present.map(idOf));
  return entries.map((entry) => {
    const id = idOf(entry);
    if (id === viewerId) return entry;
    if (entry.status === "offline") return withoutCustomStatus(entry);
    return visible.has(id) ? entry : withoutCustomStatus({ ...entry, status: "offline" });
  });
}

/**
 * A custom status is shown to others only with a status other than offline: invisible and
 * disconnected people show none, as on Discord (the person themselves always sees theirs).
 */
function withoutCustomStatus<T extends { custom_status?: CustomStatus | null }>(entry: T): T {
  return entry.custom_status ? { ...entry, custom_status: null } : entry;
}
