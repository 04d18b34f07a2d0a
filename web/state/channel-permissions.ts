/**
 * The reader's own permissions in the channels of one server that the app shows
 * (`GET /channels/:id/permissions/me`, docs/channels.md): what the composer offers before the
 * server would refuse it. Asked for the first time a channel is shown; asked again whenever
 * something they depend on changed (the server state's channel reload follows exactly those
 * events: overrides, roles, the reader's roles and built-in role), when the reader's timeout
 * starts or is lifted, and when a running one ends. The server still decides every action.
 */
import { signal, type Signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import type { MyChannelPermissions } from "../lib/wire-types.ts";

/** After a timeout's end, the answer is asked for again this much later (the server's clock may run a little behind). */
const AFTER_TIMEOUT_MS = 500;
/** setTimeout's longest wait (a longer one fires at once); a timeout of weeks is asked about again then. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

export class ChannelPermissions {
  private readonly entries = new Map<string, Signal<MyChannelPermissions | null>>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Bumped by refresh(): an answer to a request sent before it is dropped. */
  private generation = 0;

  constructor(private readonly rest: RestClient) {}

  /** The reader's permissions in the channel, or null until known (a component that reads it re-renders when they come). */
  of(channelId: string): MyChannelPermissions | null {
    let entry = this.entries.get(channelId);
    if (!entry) {
      entry = signal(null);
      this.entries.set(channelId, entry);
      void this.fetch(channelId);
    }
    return entry.value;
  }

  /** Asks again for every channel asked so far (keeping what is shown until the answers come). */
  refresh(): void {
    this.generation++;
    for (const channelId of this.entries.keys()) void this.fetch(channelId);
  }

  forget(channelId: string): void {
    this.entries.delete(channelId);
    clearTimeout(this.timers.get(channelId));
    this.timers.delete(channelId);
  }

  dispose(): void {
    this.generation++;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.entries.clear();
  }

  private async fetch(channelId: string): Promise<void> {
    const generation = this.generation;
    let answer: MyChannelPermissions | null;
    try {
      answer = await this.rest.request("getMyChannelPermissions", { params: { id: channelId } });
    } catch {
      // Unknown: the composer is offered as it would be, and the server's refusal is shown.
      answer = null;
    }
    const entry = this.entries.get(channelId);
    if (!entry || generation !== this.generation) return;
    entry.value = answer;
    clearTimeout(this.timers.get(channelId));
    this.timers.delete(channelId);
    if (answer?.timeout_until != null) {
      const wait = Math.min(LONGEST_WAIT_MS, Math.max(0, answer.timeout_until * 1000 - Date.now()) + AFTER_TIMEOUT_MS);
      this.timers.set(
        channelId,
        setTimeout(() => {
          this.timers.delete(channelId);
          void this.fetch(channelId);
        }, wait),
      );
    }
  }
}
