import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, forbidden } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import type { CustomStatus } from "../shared/shapes.ts";
import type { SharedState } from "../shared/shared-state.ts";
import { parseCustomEmoji } from "../messaging/messages.ts";
import { isUnicodeEmoji } from "../messaging/reactions.ts";
import type { Presence } from "./presence.ts";
import { currentCustomStatus, nowSeconds } from "./current-custom-status.ts";

/** What `PUT /users/me/custom-status` takes once its body is parsed (the text already normalised). */
export interface CustomStatusInput {
  text: string;
  emoji?: string | null;
  expires_in?: number | null;
}

/** setTimeout's longest delay is 2^31-1 ms (24.8 days); a later expiry is re-armed on the way. */
const LONGEST_TIMER_MS = 24 * 60 * 60 * 1000;

/**
 * Custom statuses: set, cleared, and cleared by themselves when their time is up. Each node keeps
 * one timer, for the earliest expiry in the store; when it fires, one UPDATE ... RETURNING
 * clears every expired row, so in a cluster each row is cleared, and announced, by one node.
 * A node that sets an expiry signals the others, who re-arm for it in case this node dies.
 * Changes are announced by Presence (`user:status` with `customStatus`) while the user is shown.
 */
export class CustomStatuses {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private armedFor: number | null = null;
  private stopped = false;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly presence: Presence,
    private readonly shared: SharedState,
  ) {}

  /** Arms the timer for what the store holds, and listens to the other nodes' expiries. */
  async start(): Promise<void> {
    this.shared.onSignal("custom-status", (data) => this.watch(Number(data)));
    await this.sweep();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  async set(user: UserRow, input: CustomStatusInput): Promise<CustomStatus> {
    mustBeHuman(user);
    const emoji = await this.checkEmoji(input.emoji ?? null);
    const now = nowSeconds();
    const expiresAt = input.expires_in === undefined || input.expires_in === null ? null : now + input.expires_in;
    const row = await this.store.users.setCustomStatus(user.id, { text: input.text, emoji, expiresAt });
    if (!row) throw badRequest("Unknown user");
    await this.presence.customStatusChanged(row, currentCustomStatus(row, now));
    if (expiresAt !== null) {
      this.shared.signal("custom-status", String(expiresAt));
      this.watch(expiresAt);
    }
    return currentCustomStatus(row, now)!;
  }

  /** Clears the caller's custom status (nothing to clear is not an error); announced if one was shown. */
  async clear(user: UserRow): Promise<void> {
    mustBeHuman(user);
    const had = currentCustomStatus(user, nowSeconds()) !== null;
    const row = await this.store.users.setCustomStatus(user.id, null);
    if (row && had) await this.presence.customStatusChanged(row, null);
  }

  /** Clears what is due now, announces it, and arms the timer for what is next. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepNow().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async sweepNow(): Promise<void> {
    const cleared = await this.store.users.clearExpiredCustomStatuses(nowSeconds());
    for (const userId of cleared) {
      const row = await this.store.users.findById(userId);
      if (row) await this.presence.customStatusChanged(row, null);
    }
    this.armedFor = null;
    const next = await this.store.users.nextCustomStatusExpiry();
    if (next !== null) this.watch(next);
  }

  /** Makes sure the timer fires by `expiresAt` (seconds): a status set here, on another node, or written to the store directly. */
  watch(expiresAt: number): void {
    if (this.stopped || !Number.isFinite(expiresAt)) return;
    if (this.armedFor !== null && this.armedFor <= expiresAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = expiresAt;
    const delay = Math.min(Math.max(0, (expiresAt - nowSeconds()) * 1000), LONGEST_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedFor = null;
      void this.sweep().catch(() => {});
    }, delay);
    // A pending expiry must not keep a stopping process alive.
    this.timer.unref?.();
  }

  /** One Unicode emoji, or `<:name:id>` naming an emoji that exists (custom emojis work anywhere, as in Discord Nitro). */
  private async checkEmoji(raw: string | null): Promise<string | null> {
    if (raw === null) return null;
    const emoji = raw.trim();
    if (emoji === "") return null;
    const custom = parseCustomEmoji(emoji);
    if (custom) {
      if (!(await this.store.emojis.find(custom.id))) throw badRequest("emoji: unknown custom emoji");
      return `<:${custom.name}:${custom.id}>`;
    }
    if (emoji.length > LIMITS.message.unicodeEmojiLength || !isUnicodeEmoji(emoji)) {
      throw badRequest("emoji: must be one Unicode emoji or a custom emoji <:name:id>");
    }
    return emoji;
  }
}

/** A bot shows what it does through its activity (PUT /oauth2/bot/presence), not a custom status. */
function mustBeHuman(user: UserRow): void {
  if (user.is_bot) throw forbidden("Bots set their status through PUT /api/v1/oauth2/bot/presence");
}
