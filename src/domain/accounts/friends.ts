import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { FriendshipRow, RelatedUserRow } from "../../store/friends-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { BotFlag, CustomStatus, ImageUrl, Presence, PublicUser, UnixSeconds, Uuid } from "../shared/shapes.ts";
import { currentCustomStatus } from "./current-custom-status.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { toPublicUser } from "./users.ts";
import { isUuid } from "../shared/validation.ts";
import { presenceShownTo } from "./presence-visibility.ts";
import type { Privacy } from "./privacy.ts";

/** An accepted friend, as `GET /friends` lists them. */
export const Friend = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  status: Presence,
  /** Shown while the friend is not offline (docs/users.md, "Custom status"). */
  custom_status: v.nullable(CustomStatus),
  is_bot: BotFlag,
  /** When the friendship was accepted. */
  since: UnixSeconds,
});
export type Friend = v.InferOutput<typeof Friend>;

/** A pending request, seen from the caller's side. */
export const FriendRequest = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  status: Presence,
  is_bot: BotFlag,
  direction: v.picklist(["incoming", "outgoing"]),
  created_at: UnixSeconds,
});
export type FriendRequest = v.InferOutput<typeof FriendRequest>;

const Relationship = v.picklist(["none", "friend", "incoming", "outgoing"]);
type Relationship = v.InferOutput<typeof Relationship>;
export const FriendSearchResult = v.object({ ...PublicUser.entries, relationship: Relationship });
export type FriendSearchResult = v.InferOutput<typeof FriendSearchResult>;


/** Friends see each other's presence, so only being offline (or invisible) hides a custom status. */
const friendsCustomStatus = (row: RelatedUserRow | UserRow) => (row.status === "offline" ? null : currentCustomStatus(row));

const toFriend = (row: RelatedUserRow): Friend => ({
  user_id: row.user_id,
  username: row.username,
  avatar: row.avatar,
  status: row.status,
  custom_status: friendsCustomStatus(row),
  is_bot: row.is_bot,
  since: row.accepted_at ?? row.created_at,
});

const toRequest = (row: RelatedUserRow, me: string): FriendRequest => ({
  user_id: row.user_id,
  username: row.username,
  avatar: row.avatar,
  status: row.status,
  is_bot: row.is_bot,
  direction: row.requester_id === me ? "outgoing" : "incoming",
  created_at: row.created_at,
});

const friendOf = (other: UserRow, row: FriendshipRow): Friend => ({
  user_id: other.id,
  username: other.username,
  avatar: other.avatar,
  status: other.status,
  custom_status: friendsCustomStatus(other),
  is_bot: other.is_bot,
  since: row.accepted_at ?? row.created_at,
});

/**
 * Friends: requests, acceptance, removal and search. Only humans have friends: bots can
 * neither send nor receive requests. Each change is announced to the other user's room.
 */
export class Friends {
  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly privacy: Privacy,
  ) {}

  /** Accepted friends see each other's presence, so their status is shown as it is. */
  async list(user: UserRow): Promise<Friend[]> {
    return (await this.store.friends.listFriends(user.id)).map(toFriend);
  }

  /** Pending requests do not share presence: a requester shows `offline` unless a server is shared. */
  async requests(user: UserRow): Promise<{ incoming: FriendRequest[]; outgoing: FriendRequest[] }> {
    const rows = (await this.store.friends.listPending(user.id)).map((row) => toRequest(row, user.id));
    const all = await presenceShownTo(this.store, user.id, rows, (r) => r.user_id);
    return { incoming: all.filter((r) => r.direction === "incoming"), outgoing: all.filter((r) => r.direction === "outgoing") };
  }

  /**
   * The human whose username is `q` regardless of case (0 or 1 of them): a whole name, so the
   * search cannot list accounts letter by letter; presence as presenceShownTo says.
   */
  async search(user: UserRow, q: string): Promise<FriendSearchResult[]> {
    const rows = await this.store.friends.search(user.id, q);
    const found = rows.map(({ f_status, f_requester, ...row }): FriendSearchResult => ({
      ...toPublicUser(row),
      relationship:
        f_status === null ? "none" : f_status === "accepted" ? "friend" : f_requester === user.id ? "outgoing" : "incoming",
    }));
    return presenceShownTo(this.store, user.id, found, (u) => u.id);
  }

  /**
   * Sends a request to the user named `username`. When they had already asked the caller,
   * this accepts their request instead (`accepted: true`, the result is the friend). Only a new
   * request follows the target's friend_requests_from: accepting theirs, or being told of an
   * existing request or friendship, does not.
   */
  async request(
    user: UserRow,
    username: string,
  ): Promise<{ accepted: false; request: FriendRequest } | { accepted: true; friend: Friend }> {
    this.mustBeHuman(user);
    const target = await this.store.friends.findUserByUsername(username);
    if (!target) throw notFound("User");
    if (target.id === user.id) throw badRequest("You cannot send a friend request to yourself");
    if (target.is_bot) throw badRequest("Bots cannot be added as friends");
    if (!(await this.store.friends.find(user.id, target.id))) await this.privacy.requireAcceptsFriendRequest(user, target);
    const result = await this.store.friends.request(user.id, target.id);
    switch (result.kind) {
      case "already-friends":
        throw conflict("You are already friends with this user");
      case "already-requested":
        throw conflict("You already sent a friend request to this user");
      case "accepted":
        this.bus.publish(rooms.user(target.id), "friend:accepted", { userId: user.id, username: user.username });
        return { accepted: true, friend: friendOf(target, result.row) };
      case "requested": {
        this.bus.publish(rooms.user(target.id), "friend:request", {
          from: { id: user.id, username: user.username, avatar: user.avatar },
        });
        const request: FriendRequest = {
          user_id: target.id,
          username: target.username,
          avatar: target.avatar,
          status: target.status,
          is_bot: target.is_bot,
          direction: "outgoing",
          created_at: result.row.created_at,
        };
        const [shown] = await presenceShownTo(this.store, user.id, [request], (r) => r.user_id);
        return { accepted: false, request: shown! };
      }
    }
  }

  /** Accepts the pending request `friendId` sent the caller. */
  async accept(user: UserRow, friendId: string): Promise<Friend> {
    this.mustBeHuman(user);
    const other = await this.otherUser(friendId);
    const result = await this.store.friends.accept(user.id, other.id);
    switch (result.kind) {
      case "none":
        throw notFound("Friend request");
      case "own-request":
        throw badRequest("You cannot accept your own friend request");
      case "already-friends":
        throw conflict("You are already friends with this user");
      case "accepted":
        this.bus.publish(rooms.user(other.id), "friend:accepted", { userId: user.id, username: user.username });
        return friendOf(other, result.row);
    }
  }

  /** Removes a friend, cancels an outgoing request or rejects an incoming one. */
  async remove(user: UserRow, friendId: string): Promise<void> {
    const other = await this.otherUser(friendId);
    if (!(await this.store.friends.remove(user.id, other.id))) throw notFound("Friend or friend request");
    this.bus.publish(rooms.user(other.id), "friend:removed", { userId: user.id });
  }

  private async otherUser(id: string): Promise<UserRow> {
    const other = isUuid(id) ? await this.store.users.findById(id) : null;
    if (!other) throw notFound("User");
    return other;
  }

  private mustBeHuman(user: UserRow) {
    if (user.is_bot) throw forbidden("Bots cannot have friends");
  }
}
