/**
 * A person's custom status (docs/users.md, "Custom status"): how it is shown (emoji, then text)
 * and the dialog that sets it, opened from "Set status" and from the Profile settings. The
 * server clears an expired status and says so over the gateway; the reader's own is also
 * hidden here at its time, since nothing is announced while they are invisible.
 */
import { useEffect, useState } from "preact/hooks";
import { LIMITS } from "../lib/shared-rules.ts";
import type { CustomStatus } from "../lib/wire-types.ts";
import { rest, session, updateUser } from "../state/app-state.ts";
import { Dialog } from "./dialog.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { EmojiView } from "./message-content.tsx";
import { useAction } from "./use-async.ts";

const MAX = LIMITS.account.customStatusLength;

/** "Clear after": the choices Discord offers; "Today" ends at the reader's local midnight. */
export const CLEAR_AFTER = [
  { value: "never", label: "Don't clear" },
  { value: "30m", label: "30 minutes" },
  { value: "1h", label: "1 hour" },
  { value: "4h", label: "4 hours" },
  { value: "today", label: "Today" },
] as const;
export type ClearAfter = (typeof CLEAR_AFTER)[number]["value"];

/** The `expires_in` a choice sends at `now`: null for never; never below the server's minimum. */
export function expiresIn(choice: ClearAfter, now = new Date()): number | null {
  const fixed = { "30m": 1800, "1h": 3600, "4h": 14400 } as const;
  if (choice === "never") return null;
  if (choice !== "today") return fixed[choice];
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return Math.max(LIMITS.account.customStatusExpiryMin, Math.round((midnight.getTime() - now.getTime()) / 1000));
}

/** `status` until its `expires_at` passes (then null, re-rendering at that moment). */
export function useUnexpired(status: CustomStatus | null | undefined): CustomStatus | null {
  const at = status?.expires_at ? Date.parse(status.expires_at) : null;
  const [, tick] = useState(0);
  useEffect(() => {
    if (at === null || at <= Date.now()) return;
    // setTimeout's longest delay is about 24.8 days; a longer wait re-arms on the way.
    const timer = setTimeout(() => tick((n) => n + 1), Math.min(at - Date.now() + 50, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [at]);
  if (!status || (at !== null && at <= Date.now())) return null;
  return status;
}

/** The emoji and the text, on one line that ellipsises. */
export function CustomStatusLine({ status, class: className = "" }: { status: CustomStatus; class?: string }) {
  return (
    <span class={`custom-status ${className}`} title={status.text}>
      {status.emoji && <EmojiView emoji={status.emoji} />}
      <span class="custom-status-text">{status.text}</span>
    </span>
  );
}

/** "Set custom status": the text (counted), an emoji, "Clear after"; "Save" and "Clear status". */
export function CustomStatusDialog({ onClose }: { onClose: () => void }) {
  const current = useUnexpired(session.value?.user.custom_status);
  const [text, setText] = useState(current?.text ?? "");
  const [emoji, setEmoji] = useState(current?.emoji ?? "");
  const [clearAfter, setClearAfter] = useState<ClearAfter>("never");
  const action = useAction();
  const length = text.trim().length;
  const over = length > MAX;
  const saveAs = (custom_status: CustomStatus | null) => {
    const user = session.value?.user;
    if (user) updateUser({ ...user, custom_status });
  };
  return (
    <Dialog title="Set custom status" onClose={onClose}>
      <form
        class="form custom-status-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = { text, emoji: emoji.trim() || null, expires_in: expiresIn(clearAfter) };
          if (await action.run(async () => saveAs(await rest.request("setCustomStatus", { body })))) onClose();
        }}
      >
        <label class="field">
          <span>Emoji</span>
          <input
            name="emoji"
            value={emoji}
            placeholder="🙂"
            maxLength={LIMITS.account.customStatusEmojiLength}
            autocomplete="off"
            onInput={(e) => setEmoji(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Custom status</span>
          <input
            name="custom-status"
            value={text}
            placeholder="What's happening?"
            aria-describedby="custom-status-count"
            aria-invalid={over || undefined}
            autocomplete="off"
            onInput={(e) => {
              setText(e.currentTarget.value);
              action.reset();
            }}
          />
        </label>
        <p id="custom-status-count" class={over ? "hint error" : "hint"}>
          {length} of {MAX} characters{over ? `: ${length - MAX} too many` : ""}
        </p>
        <label class="field">
          <span>Clear after</span>
          <select name="clear-after" value={clearAfter} onChange={(e) => setClearAfter(e.currentTarget.value as ClearAfter)}>
            {CLEAR_AFTER.map((choice) => (
              <option value={choice.value}>{choice.label}</option>
            ))}
          </select>
        </label>
        <ErrorAlert message={action.error} />
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={action.busy || current === null}
            onClick={async () => {
              if (await action.run(async () => (await rest.request("clearCustomStatus"), saveAs(null)))) onClose();
            }}
          >
            Clear status
          </button>
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={length === 0 || over || action.busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
