/**
 * The messages of one place (a channel or a DM) as the app holds them: the loaded
 * pages, reactions and pins of what was shown, who is typing, and the "no answer" notices of
 * slash commands and component presses. Gateway events feed it; live messages arriving in a
 * burst are applied once per animation frame.
 */
import { batch, signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { listMessages, type MessagePlace } from "./place-requests.ts";
import type { Message, ReactionSummary } from "../lib/wire-types.ts";
import { applyReaction, mergeMessages, removeMessage } from "../lib/message-list.ts";

/** The server's default page size: a shorter page means nothing older remains. */
const PAGE_SIZE = 50;
/** A typing indicator lasts this long unless refreshed (clients send typing:start every few seconds). */
const TYPING_SHOWN_MS = 10_000;
/** How long the app waits for a bot to answer a command or a component press. */
const ANSWER_WAIT_MS = 5_000;
/** Reaction lists fetched at once for messages coming into view. */
const REACTION_FETCHES = 4;

interface TypingEntry {
  userId: string;
  username: string;
  until: number;
}

const nextFrame = (fn: () => void) =>
  typeof requestAnimationFrame === "function" && document.visibilityState === "visible" ? requestAnimationFrame(fn) : setTimeout(fn, 16);

export class Timeline {
  readonly messages = signal<Message[]>([]);
  readonly status = signal<"idle" | "loading" | "ready" | "error">("idle");
  readonly error = signal<string | null>(null);
  readonly hasOlder = signal(true);
  readonly loadingOlder = signal(false);
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
  private waits = new Map<string, { botId: string; timer: ReturnType<typeof setTimeout> }>();
  private typingTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly key: string,
    readonly place: MessagePlace,
    private readonly rest: RestClient,
  ) {}

  /** Loads the newest page the first time the place is opened (or after an error). */
  async open(): Promise<void> {
    if (this.status.value === "loading" || this.status.value === "ready") return;
    this.status.value = "loading";
    try {
      const page = await listMessages(this.rest, this.place);
      batch(() => {
        this.messages.value = mergeMessages(this.messages.value, [...page].reverse());
        this.hasOlder.value = page.length >= PAGE_SIZE;
        this.status.value = "ready";
        this.error.value = null;
      });
      // Messages that arrived while the page was on its way.
      this.flush();
      if (this.place.kind === "channel") void this.loadPins();
    } catch (error) {
      this.status.value = "error";
      this.error.value = errorMessage(error);
    }
  }

  /**
   * After a reconnect or a return to the place: the newest page again, merged, so messages sent
   * meanwhile appear. When more than a page was missed the list restarts from that page (no gap).
   */
  async refresh(): Promise<void> {
    if (this.status.value !== "ready") return;
    try {
      const page = await listMessages(this.rest, this.place);
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
    this.loadingOlder.value = true;
    try {
      const page = await listMessages(this.rest, this.place, oldest.id);
      batch(() => {
        this.messages.value = mergeMessages(this.messages.value, page);
        this.hasOlder.value = page.length >= PAGE_SIZE;
      });
    } catch (error) {
      this.error.value = errorMessage(error);
    } finally {
      this.loadingOlder.value = false;
    }
  }

  /** A live message (or one this client just sent): applied with the others of this frame. */
  receive(message: Message): void {
    this.pending.push(message);
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
    this.messages.value = mergeMessages(this.messages.value, incoming);
  }

  update(message: Message): void {
    this.answered(message.user_id);
    if (!this.messages.value.some((m) => m.id === message.id)) return;
    this.messages.value = mergeMessages(this.messages.value, [message]);
  }

  remove(messageId: string): void {
    this.pending = this.pending.filter((m) => m.id !== messageId);
    this.messages.value = removeMessage(this.messages.value, messageId);
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

  /** Shows `notice` on `messageId` unless the bot writes or edits a message here within ANSWER_WAIT_MS. */
  awaitAnswer(messageId: string, botId: string, notice: string, waitMs = ANSWER_WAIT_MS): void {
    this.clearNotice(messageId);
    const timer = setTimeout(() => {
      this.waits.delete(messageId);
      const next = new Map(this.notices.value);
      next.set(messageId, notice);
      this.notices.value = next;
    }, waitMs);
    this.waits.set(messageId, { botId, timer });
  }

  clearNotice(messageId: string): void {
    const wait = this.waits.get(messageId);
    if (wait) clearTimeout(wait.timer);
    this.waits.delete(messageId);
    if (this.notices.value.has(messageId)) {
      const next = new Map(this.notices.value);
      next.delete(messageId);
      this.notices.value = next;
    }
  }

  private answered(userId: string): void {
    for (const [messageId, wait] of this.waits) {
      if (wait.botId !== userId) continue;
      clearTimeout(wait.timer);
      this.waits.delete(messageId);
    }
  }

  dispose(): void {
    for (const wait of this.waits.values()) clearTimeout(wait.timer);
    if (this.typingTimer) clearTimeout(this.typingTimer);
  }
}
