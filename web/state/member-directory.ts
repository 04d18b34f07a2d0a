/**
 * The members the app knows of one server, and the rules for knowing them (docs/web.md,
 * "Servers"). A server of at most `large_server_members` members (GET /platform/config) is
 * loaded whole, once, as the spec's list answers it; a larger one in pages of MEMBER_PAGE by user
 * id (`?limit=&after=`) as its list is scrolled, plus the members looked up one at a time
 * (`GET /servers/:id/members/:userId`: the reader, a mentioned user, a member whose roles changed)
 * and those a search found (`?query=`). Gateway events change members here one at a time; none
 * makes the app ask for a list again.
 *
 * `members` is kept in the member list's order (web/lib/member-order.ts): an event moves one
 * entry, never re-sorts the list.
 */
import { batch, computed, signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import { errorMessage, isRefusal } from "../lib/api-errors.ts";
import { hoistedRoles, matchingNames, memberComparator, replaceSorted } from "../lib/member-order.ts";
import type { Member, PresenceStatus, Role } from "../lib/wire-types.ts";
import { customStatusAfter, type CustomStatusNews } from "../lib/custom-status.ts";

/** A page of a large server's list: what a screen or two shows. */
export const MEMBER_PAGE = 100;
/** The most results a search asks for (the route's maximum). */
export const MEMBER_SEARCH_LIMIT = 100;
/** Members looked up one at a time, at most this many at once (the mentions of a page of messages). */
const LOOKUPS_AT_ONCE = 4;

export interface MemberDirectoryDeps {
  rest: RestClient;
  /** The reader's id and presence as the app shows it (the gateway knows it better than a list fetched around connecting). */
  self(): { id: string; status: PresenceStatus } | null;
  /** LARGE_SERVER_MEMBERS from GET /platform/config; null when it could not be read (the list is then paged, which works at any size). */
  largeServerMembers(): Promise<number | null>;
}

export class MemberDirectory {
  /** The members known, in the member list's order; null until the first load answers. */
  readonly members = signal<readonly Member[] | null>(null);
  /** Whether `members` is the whole membership (a server loaded whole, kept by events since). */
  readonly complete = signal(false);
  /** The server's member count (`member_count`, then kept by joins and leaves). */
  readonly count = signal<number | null>(null);
  /** Large: more members than the threshold. Its list is virtualized and its presence subscribed. */
  readonly large = computed(() => {
    const count = this.count.value;
    const threshold = this.threshold.value;
    return count === null || threshold === null || count > threshold;
  });
  /** More pages after the last one loaded (a partial list only). */
  readonly hasMore = signal(false);
  readonly loadingMore = signal(false);
  readonly error = signal<string | null>(null);
  /** Bumped when a member becomes known, stops being known, or changes name or roles: what names and their colours depend on, not presence. */
  private readonly roster = signal(0);
  private readonly threshold = signal<number | null>(null);
  /** The reader's own member: their permissions. Changes only when that member does. */
  readonly self = computed(() => {
    this.members.value;
    const id = this.deps.self()?.id;
    return id ? this.index.get(id) : undefined;
  });

  private index = new Map<string, Member>();
  private seqs = new Map<string, number>();
  private nextSeq = 0;
  /** The roles shown separately, highest first (ids), as the order groups online members. */
  private hoisted: readonly string[] = [];
  private compare = this.comparator(false);
  /** The last user id of the pages loaded: where the next page starts. */
  private after: string | null = null;
  /** A load or reload started: answers of requests sent before it are dropped. */
  private generation = 0;
  private loading: Promise<void> | null = null;
  private lookups = new Map<string, Promise<Member | undefined>>();
  private lookupQueue: (() => void)[] = [];
  private lookupsRunning = 0;
  /** Asked again once the lookup in flight answers (its answer may predate the change). */
  private askAgain = new Set<string>();
  /** Ids looked up that are not members: not asked again until they join. */
  private notMembers = new Set<string>();
  /** Members told gone (an event, or the reader's kick): told again, they are not counted twice. */
  private departed = new Set<string>();
  /** Presence events per member, to keep a newer status than a lookup's answer. */
  private statusEvents = new Map<string, number>();

  constructor(
    readonly serverId: string,
    private readonly deps: MemberDirectoryDeps,
  ) {}

  /** A known member, without subscribing to anything (event handlers). */
  peek(userId: string): Member | undefined {
    return this.index.get(userId);
  }

  /** A known member's name; a component that reads it re-renders when members come and go, not on presence. */
  nameOf(userId: string): string | undefined {
    this.roster.value;
    return this.index.get(userId)?.username;
  }

  /**
   * A member by id for what is shown (a mention, an avatar): known, or looked up once when the
   * list is partial (the answer shows through `nameOf`/`members`). Never for an id already found
   * not to be a member.
   */
  lookup(userId: string): Member | undefined {
    this.roster.value;
    const known = this.index.get(userId);
    if (!known && this.members.peek() !== null && !this.complete.peek() && !this.notMembers.has(userId)) void this.fetchOne(userId);
    return known;
  }

  /** Loads the list once (later calls wait for the same load). */
  ensureLoaded(): Promise<void> {
    this.loading ??= this.load();
    return this.loading;
  }

  /** Loads again from the start (a reconnect that lost events): a small server's whole list, a large one's first page. */
  reload(): Promise<void> {
    this.loading = this.load();
    return this.loading;
  }

  private async load(): Promise<void> {
    const generation = ++this.generation;
    const { rest, self } = this.deps;
    try {
      const threshold = await this.deps.largeServerMembers();
      if (generation !== this.generation) return;
      this.threshold.value = threshold;
      const count = this.count.peek();
      if (threshold !== null && count !== null && count <= threshold) {
        const all = await rest.request("listMembers", { params: { id: this.serverId } });
        if (generation !== this.generation) return;
        this.replaceAll(all, true, false);
        return;
      }
      const me = self()?.id;
      const [page, mine] = await Promise.all([
        rest.request("listMembers", { params: { id: this.serverId }, query: { limit: MEMBER_PAGE } }),
        me ? this.requestOne(me) : Promise.resolve(undefined),
      ]);
      if (generation !== this.generation) return;
      this.after = page.at(-1)?.user_id ?? null;
      this.replaceAll(mine && !page.some((m) => m.user_id === mine.user_id) ? [...page, mine] : page, false, page.length === MEMBER_PAGE);
    } catch (error) {
      if (generation === this.generation) this.error.value = errorMessage(error);
    }
  }

  /** The next page of a partial list (scrolling near its end). */
  async loadMore(): Promise<void> {
    if (this.complete.peek() || !this.hasMore.peek() || this.loadingMore.peek() || this.members.peek() === null) return;
    const generation = this.generation;
    this.loadingMore.value = true;
    try {
      const query = this.after ? { limit: MEMBER_PAGE, after: this.after } : { limit: MEMBER_PAGE };
      const page = await this.deps.rest.request("listMembers", { params: { id: this.serverId }, query });
      if (generation !== this.generation) return;
      batch(() => {
        if (page.length) this.after = page.at(-1)!.user_id;
        this.hasMore.value = page.length === MEMBER_PAGE;
        this.merge(page);
      });
    } catch (error) {
      if (generation === this.generation) this.error.value = errorMessage(error);
    } finally {
      if (generation === this.generation) this.loadingMore.value = false;
    }
  }

  /**
   * The members whose username starts with `prefix` (A-Z in either case, as the server compares
   * them), by name: from the list when it is whole, else asked (`?query=`), and what is found
   * becomes known.
   */
  async search(prefix: string, signal?: AbortSignal): Promise<Member[]> {
    if (this.complete.peek()) return matchingNames(this.members.peek() ?? [], prefix, MEMBER_SEARCH_LIMIT, false);
    const found = await this.deps.rest.request("listMembers", { params: { id: this.serverId }, query: { query: prefix, limit: MEMBER_SEARCH_LIMIT }, signal });
    this.merge(found);
    return found.map((m) => this.index.get(m.user_id) ?? m);
  }

  // Events -----------------------------------------------------------------------------

  setCount(count: number): void {
    this.count.value = count;
  }

  /** `member:joined`: known at once from the event; its presence and bot flag come with one lookup. */
  joined(member: { userId: string; username: string; avatar: string | null }): void {
    this.notMembers.delete(member.userId);
    this.departed.delete(member.userId);
    if (this.count.peek() !== null) this.count.value = this.count.peek()! + 1;
    if (this.members.peek() === null) return;
    if (!this.index.has(member.userId)) {
      this.put({
        user_id: member.userId,
        username: member.username,
        avatar: member.avatar,
        status: "offline",
        role: "member",
        roles: [],
        is_bot: 0,
        joined_at: Math.floor(Date.now() / 1000),
        timeout_until: null,
        custom_status: null,
      });
    }
    this.refresh(member.userId);
  }

  /** `member:left`, `member:banned`, or the answer of a kick or ban the reader made (its event follows: counted once). */
  left(userId: string): void {
    if (this.departed.has(userId)) return;
    this.departed.add(userId);
    if (this.count.peek() !== null) this.count.value = Math.max(0, this.count.peek()! - 1);
    this.notMembers.add(userId);
    this.drop(userId);
    // A large server that became small again is loaded whole (at most the threshold's members).
    const threshold = this.threshold.peek();
    if (!this.complete.peek() && threshold !== null && (this.count.peek() ?? Infinity) <= threshold && this.members.peek() !== null) void this.reload();
  }

  /** `user:status`: the status, and the custom status as customStatusAfter says. */
  setStatus(userId: string, status: PresenceStatus, custom?: CustomStatusNews): void {
    this.statusEvents.set(userId, (this.statusEvents.get(userId) ?? 0) + 1);
    const isSelf = this.deps.self()?.id === userId;
    this.change(userId, (m) => {
      const custom_status = customStatusAfter(m.custom_status, status, custom, isSelf);
      return m.status === status && m.custom_status === custom_status ? m : { ...m, status, custom_status };
    });
  }

  /** The reader's own status as the app shows it changed (the gateway connected, or said so). */
  selfStatusChanged(): void {
    const self = this.deps.self();
    if (self) this.change(self.id, (m) => (m.status === self.status ? m : { ...m, status: self.status }));
  }

  setBuiltinRole(userId: string, role: string): void {
    this.change(userId, (m) => (m.role === role ? m : { ...m, role }));
  }

  setTimeoutUntil(userId: string, expiresAt: number | null): void {
    this.change(userId, (m) => (m.timeout_until === expiresAt ? m : { ...m, timeout_until: expiresAt }));
  }

  /** `member:roles-updated` says who, not what: that member is asked for (when known, or the reader). */
  rolesChanged(userId: string): void {
    if (this.index.has(userId) || userId === this.deps.self()?.id) this.refresh(userId);
  }

  /**
   * The server's roles as they stand (loaded, or a role event): when the roles shown separately
   * or their order changed, the list is sorted again (rare; presence and member events never sort).
   */
  setRoles(roles: readonly Role[]): void {
    const hoisted = hoistedRoles(roles).map((r) => r.id);
    if (hoisted.length === this.hoisted.length && hoisted.every((id, at) => id === this.hoisted[at])) return;
    this.hoisted = hoisted;
    this.compare = this.comparator(this.complete.peek());
    const list = this.members.peek();
    if (list) this.members.value = list.slice().sort(this.compare);
  }

  /** A role deleted: nobody holds it any more (setRoles has already taken it out of the order). */
  roleDeleted(roleId: string): void {
    const list = this.members.peek();
    if (!list?.some((m) => m.roles.includes(roleId))) return;
    const next = list.map((m) => {
      if (!m.roles.includes(roleId)) return m;
      const changed = { ...m, roles: m.roles.filter((id) => id !== roleId) };
      this.index.set(m.user_id, changed);
      return changed;
    });
    this.members.value = next;
  }

  /** Forgets everything (the server left). */
  dispose(): void {
    this.generation++;
    this.lookupQueue = [];
  }

  // Keeping the list ---------------------------------------------------------------------

  private comparator(byName: boolean) {
    return memberComparator({ byName, seqOf: (id) => this.seqs.get(id) ?? Number.MAX_SAFE_INTEGER, hoisted: this.hoisted });
  }

  private replaceAll(list: readonly Member[], complete: boolean, hasMore: boolean): void {
    this.index = new Map();
    this.seqs = new Map();
    this.nextSeq = 0;
    // What the server answers now stands: who left or was not a member may have joined since.
    this.departed.clear();
    this.notMembers.clear();
    const self = this.deps.self();
    for (const member of list) {
      const shown = self && member.user_id === self.id && member.status !== self.status ? { ...member, status: self.status } : member;
      this.index.set(member.user_id, shown);
      this.seqs.set(member.user_id, this.nextSeq++);
    }
    this.compare = this.comparator(complete);
    batch(() => {
      this.complete.value = complete;
      this.hasMore.value = hasMore;
      this.error.value = null;
      this.members.value = [...this.index.values()].sort(this.compare);
      this.roster.value = this.roster.peek() + 1;
    });
  }

  /** Many members at once (a page, search results): one sort, not one insertion each. */
  private merge(found: readonly Member[]): void {
    if (found.length === 0 || this.members.peek() === null) return;
    const self = this.deps.self();
    for (const member of found) {
      const current = this.index.get(member.user_id);
      // A presence event since is newer than a page; the reader's own status is the gateway's.
      const status = self && member.user_id === self.id ? self.status : (current?.status ?? member.status);
      this.index.set(member.user_id, status === member.status ? member : { ...member, status });
      if (!this.seqs.has(member.user_id)) this.seqs.set(member.user_id, this.nextSeq++);
    }
    batch(() => {
      this.members.value = [...this.index.values()].sort(this.compare);
      this.roster.value = this.roster.peek() + 1;
    });
  }

  /** One member added or replaced, in place. */
  private put(member: Member): void {
    const list = this.members.peek();
    if (list === null) return;
    const previous = this.index.get(member.user_id);
    if (!this.seqs.has(member.user_id)) this.seqs.set(member.user_id, this.nextSeq++);
    this.index.set(member.user_id, member);
    batch(() => {
      this.members.value = replaceSorted(list, previous, member, this.compare);
      if (!previous || previous.username !== member.username || previous.roles.join() !== member.roles.join()) this.roster.value = this.roster.peek() + 1;
    });
  }

  private change(userId: string, update: (m: Member) => Member): void {
    const previous = this.index.get(userId);
    if (!previous) return;
    const next = update(previous);
    if (next !== previous) this.put(next);
  }

  private drop(userId: string): void {
    const list = this.members.peek();
    const previous = this.index.get(userId);
    if (!list || !previous) return;
    this.index.delete(userId);
    batch(() => {
      this.members.value = replaceSorted(list, previous, undefined, this.compare);
      this.roster.value = this.roster.peek() + 1;
    });
  }

  /** Asks for one member again (its roles changed, it joined); a change while asking asks once more. */
  private refresh(userId: string): void {
    if (this.lookups.has(userId)) {
      this.askAgain.add(userId);
      return;
    }
    void this.fetchOne(userId);
  }

  /** One member looked up (shared while in flight), put in the list when it is one. */
  private fetchOne(userId: string): Promise<Member | undefined> {
    const inFlight = this.lookups.get(userId);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const statusMark = this.statusEvents.get(userId) ?? 0;
    const wasMember = !this.notMembers.has(userId);
    const done = this.queued(() => this.requestOne(userId))
      .then((member) => {
        if (generation !== this.generation) return member;
        if (!member) {
          this.notMembers.add(userId);
          this.drop(userId);
          return undefined;
        }
        // Left (or banned) while the answer was on its way: it is not one any more.
        if (wasMember && this.notMembers.has(userId)) return undefined;
        const current = this.index.get(userId);
        const self = this.deps.self();
        // A status event that came while the answer was on its way is newer than the answer.
        const newer = current && (this.statusEvents.get(userId) ?? 0) !== statusMark ? current : null;
        const status = self?.id === userId ? self.status : (newer?.status ?? member.status);
        const custom_status = newer ? newer.custom_status : member.custom_status;
        this.put(status === member.status && custom_status === member.custom_status ? member : { ...member, status, custom_status });
        return member;
      })
      .catch(() => undefined)
      .finally(() => {
        this.lookups.delete(userId);
        if (this.askAgain.delete(userId)) this.refresh(userId);
      });
    this.lookups.set(userId, done);
    return done;
  }

  /** GET /servers/:id/members/:userId; undefined when the user is not a member (404). */
  private async requestOne(userId: string): Promise<Member | undefined> {
    try {
      return await this.deps.rest.request("getMember", { params: { id: this.serverId, targetUserId: userId } });
    } catch (error) {
      if (isRefusal(error, 404, "Member not found")) return undefined;
      throw error;
    }
  }

  private queued<T>(run: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.lookupsRunning++;
        run()
          .then(resolve, reject)
          .finally(() => {
            this.lookupsRunning--;
            this.lookupQueue.shift()?.();
          });
      };
      if (this.lookupsRunning < LOOKUPS_AT_ONCE) start();
      else this.lookupQueue.push(start);
    });
  }
}
