/**
 * The messages of one place (a channel or a DM) as the app holds them: one contiguous window of
 * loaded pages (the newest page and older ones, or, after a jump, pages around any message with
 * newer ones loaded on the way back), reactions and pins of what was shown, who is typing, and
 * the "no answer" notices of slash commands and component presses. Gateway events feed it; live
 * messages arriving in a burst are applied once per animation frame.
 *
 * A window away from the present (`hasNewer`) never takes live messages in its middle: they are
 * kept aside (the last RECENT_LIVE) and joined when the window reaches the present again, by
 * paging forward or by `jumpToPresent`, which loads the newest page.
 */
import { batch, signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { listMessages, type MessagePlace } from "./place-requests.ts";
import type { Message, ReactionSummary } from "../lib/wire-types.ts";
import { applyReaction, mergeMessages, removeMessage } from "../lib/message-list.ts";
import { aroundPageEdges, nearestMessage, newerThanWindow } from "../lib/message-window.ts";

/** The server's default page size: a shorter page means nothing older remains. */
const PAGE_SIZE = 50;
/** A typing indicator lasts this long unless refreshed (clients send typing:start every few seconds). */
const TYPING_SHOWN_MS = 10_000;
/** How long the app waits for a bot to answer a command or a component press. */
const ANSWER_WAIT_MS = 5_000;
/** Reaction lists fetched at once for messages coming into view. */
const REACTION_FETCHES = 4;
/** How long a jumped-to message stays highlighted. */
const HIGHLIGHT_MS = 4_000;
/** Live messages kept aside while the window is away from the present (more than a page: the newest page is read on return anyway). */
const RECENT_LIVE = 200;

/** Where the message list scrolls next: a message (centred, then highlighted) or the newest one. */
export type ScrollTarget = { kind: "message"; messageId: string; highlight: boolean } | { kind: "present" };

/** A wait for a bot's answer started before the command is sent, so an answer that comes first is not missed. */
export interface AnswerWait {
  /** The command was sent as `messageId`: the notice goes there if the bot stays silent. */
  sent(messageId: string): void;
  /** The send failed: no notice. */
  cancel(): void;
}

interface Wait {
  botId: string;
  notice: string;
  timer: ReturnType<typeof setTimeout>;
  messageId: string | null;
  expired: boolean;
}

interface TypingEntry {
  userId: string;
  username: string;
  until: number;
}

/** The browser's frame clock when the tab is visible, else a timer (a hidden tab, or the unit tests under Bun: no DOM types there either). */
const browser = globalThis as { requestAnimationFrame?: (fn: () => void) => number; document?: { visibilityState: string } };
const nextFrame = (fn: () => void) =>
  browser.requestAnimationFrame && browser.document?.visibilityState === "visible" ? browser.requestAnimationFrame(fn) : setTimeout(fn, 16);

export class Timeline {
  readonly messages = signal<Message[]>([]);
  readonly status = signal<"idle" | "loading" | "ready" | "error">("idle");
  readonly error = signal<string | null>(null);
  readonly hasOlder = signal(true);
  readonly loadingOlder = signal(false);
  /** The window is away from the present: newer messages exist that are not loaded. */
  readonly hasNewer = signal(false);
  readonly loadingNewer = signal(false);
  /** A jump (a page around a message, or the newest page) is on its way. */
  readonly jumping = signal(false);
  /** The message just jumped to, for a few seconds. */
  readonly highlight = signal<string | null>(null);
  /** A scroll the message list owes the reader; the list takes it (`takeScrollTarget`) once the row is there. */
  readonly scrollTarget = signal<ScrollTarget | null>(null);
  /** Reactions by message id, for the messages whose reactions were loaded (or that arrived live). */
  readonly reactions = signal<ReadonlyMap<string, ReactionSummary[]>>(new Map());
  /** Pinned message ids, once loaded (channels only). */
  readonly pinned = signal<ReadonlySet<string> | null>(null);
  readonly typing = signal<TypingEntry[]>([]);
  /** "No answer" notices, by the message they are about. */
  readonly notices = signal<ReadonlyMap<string, string>>(new Map());

  private pending: Message[] = [];
  private flushScheduled = false;
  private reactionQueue: string[] = [];
  private reactionsRequested = new Set<string>();
  private reactionFetches = 0;
  private waits = new Set<Wait>();
  private typingTimer: ReturnType<typeof setTimeout> | null = null;
  private highlightTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped when the window is replaced (a jump): answers to requests of an older window are dropped. */
  private generation = 0;
  /** The gateway joined its rooms while the first page was on its way (`connected`). */
  private refreshWhenLoaded = false;
  /** The latest live messages, oldest first, to join a window that reaches the present. */
  private recentLive: Message[] = [];

  constructor(
    readonly key: string,
    readonly place: MessagePlace,
    private readonly rest: RestClient,
  ) {}

  /** Loads the newest page the first time the place is opened (or after an error). */
  async open(): Promise<void> {
    if (this.status.value === "loading" || this.status.value === "ready") return;
    this.status.value = "loading";
    const generation = ++this.generation;
    try {
      const page = await listMessages(this.rest, this.place);
      if (generation !== this.generation) return;
      batch(() => {
        this.messages.value = mergeMessages(this.messages.value, [...page].reverse());
        this.hasOlder.value = page.length >= PAGE_SIZE;
        this.hasNewer.value = false;
        this.status.value = "ready";
        this.error.value = null;
      });
      // Messages that arrived while the page was on its way.
      this.flush();
      if (this.refreshWhenLoaded) {
        this.refreshWhenLoaded = false;
        void this.refresh();
      }
      if (this.place.kind === "channel") void this.loadPins();
    } catch (error) {
      if (generation !== this.generation) return;
      this.status.value = "error";
      this.error.value = errorMessage(error);
    }
  }

  /**
   * The gateway has joined its rooms for the first time. A page read before that (or on its way)
   * may have been answered before the room was joined, and a message sent in between came neither
   * in the page nor as an event: the newest page is read again, once.
   */
  connected(): void {
    if (this.status.value === "ready") void this.refresh();
    else if (this.status.value === "loading") this.refreshWhenLoaded = true;
  }

  /**
   * After a reconnect or a return to the place: the newest page again, merged, so messages sent
   * meanwhile appear. When more than a page was missed the list restarts from that page (no gap).
   * A window away from the present is left as it is: the present is read when the reader goes back.
   */
  async refresh(): Promise<void> {
    if (this.status.value !== "ready" || this.hasNewer.value) return;
    const generation = this.generation;
    try {
      const page = await listMessages(this.rest, this.place);
      if (generation !== this.generation || this.hasNewer.value) return;
      const newest = this.messages.value[this.messages.value.length - 1];
      const oldestOfPage = page[page.length - 1];
      if (page.length >= PAGE_SIZE && newest && oldestOfPage && oldestOfPage.id > newest.id) {
        batch(() => {
          this.messages.value = [...page].reverse();
          this.hasOlder.value = true;
        });
      } else {
        this.messages.value = mergeMessages(this.messages.value, page);
      }
    } catch {
      // The next reconnect or page load tries again.
    }
  }

  async loadOlder(): Promise<void> {
    if (this.loadingOlder.value || !this.hasOlder.value || this.status.value !== "ready") return;
    const oldest = this.messages.value[0];
    if (!oldest) {
      this.hasOlder.value = false;
      return;
    }
    const generation = this.generation;
    this.loadingOlder.value = true;
    try {
      const page = await listMessages(this.rest, this.place, { before: oldest.id });
      if (generation !== this.generation) return;
      batch(() => {
        this.messages.value = mergeMessages(this.messages.value, page);
        this.hasOlder.value = page.length >= PAGE_SIZE;
      });
    } catch (error) {
      if (generation === this.generation) this.error.value = errorMessage(error);
    } finally {
      if (generation === this.generation) this.loadingOlder.value = false;
    }
  }

  /** The page after the window's newest message (away from the present only); a short page means the window reached the present. */
  async loadNewer(): Promise<void> {
    if (this.loadingNewer.value || !this.hasNewer.value || this.status.value !== "ready") return;
    const newest = this.messages.value[this.messages.value.length - 1];
    if (!newest) return void this.jumpToPresent();
    const generation = this.generation;
    this.loadingNewer.value = true;
    try {
      const page = await listMessages(this.rest, this.place, { after: newest.id, limit: PAGE_SIZE });
      if (generation !== this.generation) return;
      const reachedPresent = page.length < PAGE_SIZE;
      batch(() => {
        const merged = mergeMessages(this.messages.value, page);
        this.messages.value = reachedPresent ? mergeMessages(merged, newerThanWindow(merged, this.recentLive)) : merged;
        this.hasNewer.value = !reachedPresent;
      });
    } catch (error) {
      if (generation === this.generation) this.error.value = errorMessage(error);
    } finally {
      if (generation === this.generation) this.loadingNewer.value = false;
    }
  }

  /**
   * Shows `messageId` (of this place): scrolled to the centre and highlighted. A message in the
   * loaded window is shown without a request; otherwise the window becomes the page around it
   * (away from the present when newer messages exist). Works before the place was ever opened
   * (a jump from another channel's search result). Answers whether the message was found.
   */
  async jumpTo(messageId: string): Promise<boolean> {
    if (this.status.value === "ready" && this.messages.value.some((m) => m.id === messageId)) {
      // A jump still on its way is overtaken by this one.
      if (this.jumping.value) this.newGeneration();
      this.error.value = null;
      this.scrollTarget.value = { kind: "message", messageId, highlight: true };
      return true;
    }
    const firstLoad = this.status.value !== "ready";
    const generation = this.newGeneration();
    batch(() => {
      if (firstLoad) this.status.value = "loading";
      this.jumping.value = true;
    });
    try {
      const page = await listMessages(this.rest, this.place, { around: messageId, limit: PAGE_SIZE });
      if (generation !== this.generation) return false;
      const window = [...page].reverse();
      const edges = aroundPageEdges(window, messageId, PAGE_SIZE);
      const messages = edges.hasNewer ? window : mergeMessages(window, newerThanWindow(window, this.recentLive));
      const target = nearestMessage(messages, messageId);
      batch(() => {
        this.messages.value = messages;
        this.hasOlder.value = edges.hasOlder;
        this.hasNewer.value = edges.hasNewer;
        this.status.value = "ready";
        this.jumping.value = false;
        this.error.value = target?.exact ? null : "That message no longer exists.";
        this.scrollTarget.value = target ? { kind: "message", messageId: target.id, highlight: target.exact } : { kind: "present" };
      });
      this.flush();
      if (firstLoad && this.place.kind === "channel") void this.loadPins();
      return target?.exact ?? false;
    } catch (error) {
      if (generation !== this.generation) return false;
      batch(() => {
        this.jumping.value = false;
        if (firstLoad) this.status.value = "error";
        this.error.value = errorMessage(error);
      });
      return false;
    }
  }

  /** Back to the newest messages: the list scrolls to the end; a window away from the present is replaced by the newest page. */
  async jumpToPresent(): Promise<void> {
    if (this.status.value !== "ready") return;
    if (!this.hasNewer.value) {
      this.scrollTarget.value = { kind: "present" };
      return;
    }
    const generation = this.newGeneration();
    this.jumping.value = true;
    try {
      const page = await listMessages(this.rest, this.place);
      if (generation !== this.generation) return;
      const window = [...page].reverse();
      batch(() => {
        this.messages.value = mergeMessages(window, newerThanWindow(window, this.recentLive));
        this.hasOlder.value = page.length >= PAGE_SIZE;
        this.hasNewer.value = false;
        this.jumping.value = false;
        this.error.value = null;
        this.scrollTarget.value = { kind: "present" };
      });
      this.flush();
    } catch (error) {
      if (generation !== this.generation) return;
      batch(() => {
        this.jumping.value = false;
        this.error.value = errorMessage(error);
      });
    }
  }

  /** Requests for the current window are answered into nothing from now on: a new window is coming. */
  private newGeneration(): number {
    batch(() => {
      this.jumping.value = false;
      this.loadingOlder.value = false;
      this.loadingNewer.value = false;
    });
    return ++this.generation;
  }

  /** The list took the scroll it was owed; a jumped-to message is highlighted from now on for HIGHLIGHT_MS. */
  takeScrollTarget(): void {
    const target = this.scrollTarget.value;
    if (!target) return;
    this.scrollTarget.value = null;
    if (target.kind !== "message" || !target.highlight) return;
    if (this.highlightTimer) clearTimeout(this.highlightTimer);
    this.highlight.value = target.messageId;
    this.highlightTimer = setTimeout(() => {
      this.highlightTimer = null;
      this.highlight.value = null;
    }, HIGHLIGHT_MS);
  }

  /** A live message (or one this client just sent): applied with the others of this frame. */
  receive(message: Message): void {
    this.pending.push(message);
    this.recentLive.push(message);
    if (this.recentLive.length > RECENT_LIVE) this.recentLive.splice(0, this.recentLive.length - RECENT_LIVE);
    this.clearTyping(message.user_id);
    this.answered(message.user_id);
    if (!this.reactions.value.has(message.id)) this.reactionsRequested.add(message.id);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    nextFrame(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    // Not loaded yet: kept until the first page is in (open() flushes them then).
    if (this.pending.length === 0 || this.status.value !== "ready") return;
    const incoming = this.pending;
    this.pending = [];
    // Away from the present they would land in the middle of the window: recentLive keeps them.
    if (this.hasNewer.value) return;
    this.messages.value = mergeMessages(this.messages.value, incoming);
  }

  update(message: Message): void {
    this.answered(message.user_id);
    const kept = this.recentLive.findIndex((m) => m.id === message.id);
    if (kept !== -1) this.recentLive[kept] = message;
    if (!this.messages.value.some((m) => m.id === message.id)) return;
    this.messages.value = mergeMessages(this.messages.value, [message]);
  }

  remove(messageId: string): void {
    this.pending = this.pending.filter((m) => m.id !== messageId);
    this.recentLive = this.recentLive.filter((m) => m.id !== messageId);
    this.messages.value = removeMessage(this.messages.value, messageId);
    // A jump to it that the list has not shown yet never will.
    const target = this.scrollTarget.value;
    if (target?.kind === "message" && target.messageId === messageId) this.scrollTarget.value = null;
  }

  // Reactions -------------------------------------------------------------------------

  /** Asks for a shown message's reactions, once (channels only: DMs have no reaction list route). */
  wantReactions(messageId: string): void {
    if (this.place.kind !== "channel" || this.reactionsRequested.has(messageId)) return;
    this.reactionsRequested.add(messageId);
    this.reactionQueue.push(messageId);
    this.pumpReactions();
  }

  private pumpReactions(): void {
    if (this.place.kind !== "channel") return;
    const channelId = this.place.channelId;
    while (this.reactionFetches < REACTION_FETCHES && this.reactionQueue.length) {
      const messageId = this.reactionQueue.shift()!;
      this.reactionFetches++;
      this.rest
        .request("listReactions", { params: { id: channelId, messageId } })
        .then((list) => this.setReactions(messageId, list))
        .catch(() => this.reactionsRequested.delete(messageId))
        .finally(() => {
          this.reactionFetches--;
          this.pumpReactions();
        });
    }
  }

  private setReactions(messageId: string, list: ReactionSummary[]): void {
    const next = new Map(this.reactions.value);
    next.set(messageId, list);
    this.reactions.value = next;
  }

  reaction(event: { messageId: string; emoji: string; userId: string; action: "added" | "removed" }, username = ""): void {
    const current = this.reactions.value.get(event.messageId);
    // Not loaded yet: the list fetched when the message is shown will include it.
    if (!current && !this.messages.value.some((m) => m.id === event.messageId && this.reactionsRequested.has(m.id))) return;
    this.setReactions(event.messageId, applyReaction(current ?? [], event, username));
  }

  // Pins ------------------------------------------------------------------------------

  async loadPins(): Promise<void> {
    if (this.place.kind !== "channel") return;
    try {
      const pins = await this.rest.request("listPins", { params: { id: this.place.channelId } });
      this.pinned.value = new Set(pins.map((m) => m.id));
    } catch {
      this.pinned.value = new Set();
    }
  }

  pin(messageId: string, pinned: boolean): void {
    const next = new Set(this.pinned.value ?? []);
    if (pinned) next.add(messageId);
    else next.delete(messageId);
    this.pinned.value = next;
  }

  // Typing ----------------------------------------------------------------------------

  startTyping(userId: string, username: string, now = Date.now()): void {
    const others = this.typing.value.filter((t) => t.userId !== userId && t.until > now);
    this.typing.value = [...others, { userId, username, until: now + TYPING_SHOWN_MS }];
    this.scheduleTypingExpiry();
  }

  clearTyping(userId: string): void {
    if (this.typing.value.some((t) => t.userId === userId)) this.typing.value = this.typing.value.filter((t) => t.userId !== userId);
  }

  private scheduleTypingExpiry(): void {
    if (this.typingTimer) clearTimeout(this.typingTimer);
    const soonest = Math.min(...this.typing.value.map((t) => t.until));
    if (!Number.isFinite(soonest)) return;
    this.typingTimer = setTimeout(() => {
      const now = Date.now();
      this.typing.value = this.typing.value.filter((t) => t.until > now);
      this.scheduleTypingExpiry();
    }, Math.max(50, soonest - Date.now()));
  }

  // Waiting for a bot -----------------------------------------------------------------

  /**
   * Starts waiting for `botId` to write or edit a message here; unless it does within `waitMs`,
   * `notice` shows on the sent command. Start it before sending: an answer that arrives before the
   * send's own answer counts.
   */
  expectAnswer(botId: string, notice: string, waitMs = ANSWER_WAIT_MS): AnswerWait {
    const wait: Wait = {
      botId,
      notice,
      messageId: null,
      expired: false,
      timer: setTimeout(() => {
        wait.expired = true;
        if (wait.messageId) this.showNotice(wait);
      }, waitMs),
    };
    this.waits.add(wait);
    return {
      sent: (messageId) => {
        if (!this.waits.has(wait)) return;
        this.clearNotice(messageId);
        wait.messageId = messageId;
        if (wait.expired) this.showNotice(wait);
      },
      cancel: () => this.dropWait(wait),
    };
  }

  private showNotice(wait: Wait): void {
    this.dropWait(wait);
    const next = new Map(this.notices.value);
    next.set(wait.messageId!, wait.notice);
    this.notices.value = next;
  }

  private dropWait(wait: Wait): void {
    clearTimeout(wait.timer);
    this.waits.delete(wait);
  }

  clearNotice(messageId: string): void {
    for (const wait of this.waits) if (wait.messageId === messageId) this.dropWait(wait);
    if (this.notices.value.has(messageId)) {
      const next = new Map(this.notices.value);
      next.delete(messageId);
      this.notices.value = next;
    }
  }

  private answered(userId: string): void {
    for (const wait of this.waits) if (wait.botId === userId) this.dropWait(wait);
  }

  dispose(): void {
    for (const wait of this.waits) clearTimeout(wait.timer);
    this.waits.clear();
    if (this.typingTimer) clearTimeout(this.typingTimer);
    if (this.highlightTimer) clearTimeout(this.highlightTimer);
  }
}
