/**
 * The reader's friends and pending friend requests (docs/friends.md): asked over REST the first
 * time the Friends page shows, then kept by the gateway's `friend:request`, `friend:accepted`,
 * `friend:removed` and `user:status`, and by the answers to the reader's own actions (the server
 * tells the other user, never the actor's own sessions). The lists are asked again only after a
 * reconnect that lost events.
 */
import { computed, signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { sortedByName, withEntry, withoutUser, withStatus } from "../lib/friend-lists.ts";
import type { Friend, FriendRequest, PresenceStatus } from "../lib/wire-types.ts";
import type { CustomStatusNews } from "../lib/custom-status.ts";

/** A friend as the page shows them: the friend object, its custom status as REST or a `user:status` last told it. */
export type ShownFriend = Friend;

/** One change to the lists, from an event or from the answer to the reader's own action. */
type Change =
  | { kind: "friend"; friend: ShownFriend }
  | { kind: "request"; request: FriendRequest }
  | { kind: "accepted"; userId: string; username: string }
  | { kind: "removed"; userId: string }
  | { kind: "status"; userId: string; status: PresenceStatus; custom?: CustomStatusNews };

const now = () => Math.floor(Date.now() / 1000);

export class FriendsState {
  /** Accepted friends by username (null: not asked yet). */
  readonly friends = signal<readonly ShownFriend[] | null>(null);
  readonly incoming = signal<readonly FriendRequest[]>([]);
  readonly outgoing = signal<readonly FriendRequest[]>([]);
  /** Why the lists could not be read (null: they could, or are being asked). */
  readonly error = signal<string | null>(null);
  readonly incomingCount = computed(() => this.incoming.value.length);
  /** Changes that came while the lists were being asked, applied on top of the answer in order. */
  private pending: Change[] | null = null;
  /** Bumped by a reset or a reload, so an older answer is dropped. */
  private generation = 0;
  /** The users whose status a `user:status` gave after their friendship began (a lookup must not overwrite it). */
  private told = new Set<string>();

  constructor(private readonly rest: RestClient) {}

  /** Asks for the lists the first time they are shown (and after a failure). */
  ensureLoaded(): void {
    if (this.friends.peek() === null && this.pending === null) void this.load();
  }

  /** Forgets everything (log out). */
  reset(): void {
    this.generation++;
    this.pending = null;
    this.told.clear();
    this.friends.value = null;
    this.incoming.value = [];
    this.outgoing.value = [];
    this.error.value = null;
  }

  /** A reconnect that did not resume lost the events meanwhile: lists already shown are asked again. */
  reconnected(): void {
    if (this.friends.peek() !== null || this.pending !== null) void this.load();
  }

  private async load(): Promise<void> {
    const asked = ++this.generation;
    this.pending = [];
    try {
      const [friends, requests] = await Promise.all([this.rest.request("listFriends"), this.rest.request("listFriendRequests")]);
      if (asked !== this.generation) return;
      const changes = this.pending ?? [];
      this.pending = null;
      this.friends.value = sortedByName(friends);
      this.incoming.value = sortedByName(requests.incoming);
      this.outgoing.value = sortedByName(requests.outgoing);
      this.error.value = null;
      for (const change of changes) this.apply(change);
    } catch (failure) {
      if (asked !== this.generation) return;
      this.pending = null;
      this.error.value = errorMessage(failure);
    }
  }

  // The gateway's events -----------------------------------------------------------------

  requested(from: { id: string; username: string; avatar: string | null }): void {
    this.apply({
      kind: "request",
      request: { user_id: from.id, username: from.username, avatar: from.avatar, status: "offline", is_bot: 0, direction: "incoming", created_at: now() },
    });
  }

  accepted(userId: string, username: string): void {
    this.apply({ kind: "accepted", userId, username });
  }

  removed(userId: string): void {
    this.apply({ kind: "removed", userId });
  }

  /** `custom` absent keeps the custom status; `{text: null}` clears it; an offline friend shows none. */
  statusChanged(userId: string, status: PresenceStatus, custom?: CustomStatusNews): void {
    this.apply({ kind: "status", userId, status, custom });
  }

  // The reader's own actions (their answers change the lists; the server tells only the other user) ---

  /** "Send friend request": what the server answered, in words for the page. */
  async send(username: string): Promise<string> {
    const answer = await this.rest.request("sendFriendRequest", { body: { username } });
    if ("direction" in answer) {
      this.apply({ kind: "request", request: answer });
      return `Friend request sent to ${answer.username}.`;
    }
    this.apply({ kind: "friend", friend: answer });
    return `${answer.username} had already asked you: you are now friends.`;
  }

  async accept(userId: string): Promise<void> {
    const friend = await this.rest.request("acceptFriendRequest", { params: { friendId: userId } });
    this.apply({ kind: "friend", friend });
  }

  /** Removes a friend, cancels an outgoing request or ignores an incoming one. */
  async remove(userId: string): Promise<void> {
    await this.rest.request("removeFriend", { params: { friendId: userId } });
    this.apply({ kind: "removed", userId });
  }

  // ----------------------------------------------------------------------------------------

  private apply(change: Change): void {
    const friends = this.friends.peek();
    if (friends === null) {
      // Not shown yet: the lists asked later hold it; while they are being asked, it goes on top.
      this.pending?.push(change);
      return;
    }
    switch (change.kind) {
      case "friend":
        this.incoming.value = withoutUser(this.incoming.peek(), change.friend.user_id);
        this.outgoing.value = withoutUser(this.outgoing.peek(), change.friend.user_id);
        this.friends.value = withEntry(friends, change.friend);
        return;
      case "request":
        if (friends.some((f) => f.user_id === change.request.user_id)) return;
        if (change.request.direction === "incoming") this.incoming.value = withEntry(this.incoming.peek(), change.request);
        else this.outgoing.value = withEntry(this.outgoing.peek(), change.request);
        return;
      case "accepted": {
        if (friends.some((f) => f.user_id === change.userId)) return;
        const asked = this.outgoing.peek().find((r) => r.user_id === change.userId) ?? this.incoming.peek().find((r) => r.user_id === change.userId);
        this.outgoing.value = withoutUser(this.outgoing.peek(), change.userId);
        this.incoming.value = withoutUser(this.incoming.peek(), change.userId);
        this.told.delete(change.userId);
        this.friends.value = withEntry(friends, {
          user_id: change.userId,
          username: change.username,
          avatar: asked?.avatar ?? null,
          status: "offline",
          custom_status: null,
          is_bot: 0,
          since: now(),
        });
        void this.lookUpStatus(change.userId);
        return;
      }
      case "removed":
        this.friends.value = withoutUser(friends, change.userId);
        this.incoming.value = withoutUser(this.incoming.peek(), change.userId);
        this.outgoing.value = withoutUser(this.outgoing.peek(), change.userId);
        return;
      case "status":
        if (!friends.some((f) => f.user_id === change.userId)) return;
        this.told.add(change.userId);
        this.friends.value = withStatus(friends, change.userId, change.status, change.custom);
    }
  }

  /**
   * `friend:accepted` carries no status, and presence is shared only from the next change on: the
   * new friend's current status is that one user's (GET /users/:id), unless an event told it first.
   */
  private async lookUpStatus(userId: string): Promise<void> {
    const asked = this.generation;
    try {
      const user = await this.rest.request("getUser", { params: { id: userId } });
      const friends = this.friends.peek();
      if (asked !== this.generation || !friends || this.told.has(userId)) return;
      this.friends.value = withStatus(friends, userId, user.status);
    } catch {
      // The row keeps "offline" until the friend's next status change.
    }
  }
}
