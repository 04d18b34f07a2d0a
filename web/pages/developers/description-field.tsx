/** An application's description: a text area with its count of characters against the limit. */
import { LIMITS } from "../../lib/shared-rules.ts";

export function DescriptionField({ id, value, onChange, hint }: { id: string; value: string; onChange: (value: string) => void; hint?: string }) {
  const max = LIMITS.bot.applicationDescriptionLength;
  return (
    <div class="field">
      <label for={id}>Description</label>
      <textarea id={id} rows={3} maxLength={max} aria-describedby={`${id}-hint`} value={value} onInput={(e) => onChange(e.currentTarget.value)} />
      <small id={`${id}-hint`} class="muted">
        {hint ? `${hint} ` : ""}
        {value.length}/{max} characters
      </small>
    </div>
  );
}
