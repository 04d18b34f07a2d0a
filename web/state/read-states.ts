/**
 * The reader's unread channels and DMs (docs/read-states.md): loaded from
 * `GET /users/me/read-states`, moved by live messages and by `read-state:update` (a read on any
 * of the reader's devices), and marked read here. The server decides mentions: a live message that
 * may change the count makes the app ask again (coalesced), never guess.
 */
import { signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import type { ReadState } from "../lib/wire-types.ts";
import type { MessagePlace } from "./place-requests.ts";

export interface Unread {
  /** The read point; null: never read (everything loaded is new). */
  lastRead: string | null;
  last: string;
  mentions: number;
}

/** Live changes are coalesced into one `GET /users/me/read-states` at most this often. */
const REFRESH_EVERY_MS = 1_000;
/** A reader at the newest message marks it read at most this often (a busy channel sends many). */
const MARK_EVERY_MS = 1_000;

export class ReadStates {
  /** Every channel and DM with something unread, by channel (or DM) id. */
  readonly unread = signal<ReadonlyMap<string, Unread>>(new Map());
  /** True once the server's answer has been read (until then nothing is known to be unread). */
  readonly loaded = signal(false);
  /** Told when the server's answer shows a channel's mentions grew (the app notifies for mentions then). */
  onMentionsGrew: (channelId: string) => void = () => {};
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private lastRefresh = 0;
  /** Bumped on every local change: an answer older than a change keeps that change. */
  private version = 0;
  private changedAt = new Map<string, number>();
  private marks = new Map<string, { timer: ReturnType<typeof setTimeout> | null; at: number; messageId: string }>();

  constructor(private readonly rest: RestClient) {}

  get(channelId: string): Unread | undefined {
    return this.unread.value.get(channelId);
  }

  async load(): Promise<void> {
    const startedAt = this.version;
    this.lastRefresh = Date.now();
    let list: ReadState[];
    try {
      list = await this.rest.request("listReadStates");
    } catch {
      return; // Shown as read until the next load; nothing to tell the reader.
    }
    const before = this.unread.value;
    const next = new Map<string, Unread>();
    for (const entry of list) {
      next.set(entry.channel_id, { lastRead: entry.last_read_message_id, last: entry.last_message_id, mentions: entry.mention_count });
    }
    // What changed here while the answer was on its way wins over the answer.
    for (const [channelId, at] of this.changedAt) {
      if (at <= startedAt) continue;
      const local = before.get(channelId);
      if (local) next.set(channelId, local);
      else next.delete(channelId);
    }
    this.unread.value = next;
    this.loaded.value = true;
    for (const [channelId, entry] of next) {
      if (entry.mentions > (before.get(channelId)?.mentions ?? 0)) this.onMentionsGrew(channelId);
    }
  }

  /** Asks the server again soon, once for many changes. */
  refreshSoon(): void {
    if (this.refreshTimer) return;
    const wait = Math.max(0, this.lastRefresh + REFRESH_EVERY_MS - Date.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.load();
    }, wait);
  }

  /**
   * A live message in a channel or DM. The reader's own message is read (the server moved their
   * read point in the send). Another's makes the place unread; `mayMention` asks the server for
   * the count, as does a place that just became unread (for its read point).
   */
  received(channelId: string, messageId: string, own: boolean, mayMention: boolean): void {
    const current = this.get(channelId);
    if (own) {
      if (current && current.last <= messageId) this.set(channelId, null);
      return;
    }
    if (current && current.last >= messageId) return;
    this.set(channelId, { lastRead: current ? current.lastRead : null, last: messageId, mentions: current?.mentions ?? 0 });
    if (mayMention || !current) this.refreshSoon();
  }

  /** A message deleted: the newest one gone may leave nothing unread; counts are asked again. */
  deleted(channelId: string): void {
    if (this.get(channelId)) this.refreshSoon();
  }

  /** `read-state:update`: the reader read up to a message on some device. */
  applyUpdate(update: { channel_id: string; last_read_message_id: string | null; mention_count: number }): void {
    const current = this.get(update.channel_id);
    if (!current) return;
    const readTo = update.last_read_message_id;
    if (readTo !== null && readTo >= current.last) this.set(update.channel_id, null);
    else this.set(update.channel_id, { ...current, lastRead: readTo, mentions: update.mention_count });
  }

  /** The channel's or DM's entry is gone: something it belonged to was left or deleted. */
  forget(channelId: string): void {
    if (this.get(channelId)) this.set(channelId, null);
  }

  /**
   * Marks a place read up to `messageId` (the newest the reader has seen): shown at once, sent to
   * the server at most once a second per place (the last call's message wins).
   */
  markRead(place: MessagePlace, channelId: string, messageId: string): void {
    const current = this.get(channelId);
    if (current) {
      if (messageId >= current.last) this.set(channelId, null);
      else if (current.lastRead === null || messageId > current.lastRead) this.set(channelId, { ...current, lastRead: messageId });
    } else {
      return; // Nothing unread: the server already has it (or newer).
    }
    const mark = this.marks.get(channelId) ?? { timer: null, at: 0, messageId };
    mark.messageId = messageId > mark.messageId ? messageId : mark.messageId;
    this.marks.set(channelId, mark);
    if (mark.timer) return;
    const send = () => {
      mark.timer = null;
      mark.at = Date.now();
      void this.send(place, mark.messageId);
    };
    const wait = mark.at + MARK_EVERY_MS - Date.now();
    if (wait <= 0) send();
    else mark.timer = setTimeout(send, wait);
  }

  /** "Mark as read" on a server: every channel of it the reader may view, by the server. */
  async markServerRead(serverId: string, channelIds: readonly string[]): Promise<void> {
    for (const id of channelIds) this.forget(id);
    try {
      await this.rest.request("markServerRead", { params: { id: serverId } });
    } catch {
      this.refreshSoon();
    }
  }

  private async send(place: MessagePlace, messageId: string): Promise<void> {
    const body = { message_id: messageId };
    try {
      if (place.kind === "channel") await this.rest.request("markChannelRead", { params: { id: place.channelId }, body });
      else if (place.kind === "dm") await this.rest.request("markDmRead", { params: { targetUserId: place.userId }, body });
      else await this.rest.request("markGroupRead", { params: { groupId: place.groupId }, body });
    } catch {
      // Not stored (a network failure, a channel gone): the server's state is asked again.
      this.refreshSoon();
    }
  }

  private set(channelId: string, entry: Unread | null): void {
    this.changedAt.set(channelId, ++this.version);
    const next = new Map(this.unread.value);
    if (entry) next.set(channelId, entry);
    else next.delete(channelId);
    this.unread.value = next;
  }

  reset(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
    for (const mark of this.marks.values()) if (mark.timer) clearTimeout(mark.timer);
    this.marks.clear();
    this.changedAt.clear();
    this.unread.value = new Map();
    this.loaded.value = false;
  }
}
