/**
 * The field for a 6-digit code from an authenticator app, named "Two-factor code"; with
 * `recovery`, one of the account's recovery codes (`7k2m-q9xf-3hwn-p4td`) is taken too.
 */
import type { Ref } from "preact";

export function TwoFactorField({ value, onChange, inputRef, recovery = false }: { value: string; onChange: (code: string) => void; inputRef?: Ref<HTMLInputElement>; recovery?: boolean }) {
  return (
    <label class="field">
      <span>Two-factor code</span>
      <input
        ref={inputRef}
        name="code"
        inputMode={recovery ? undefined : "numeric"}
        autocomplete="one-time-code"
        pattern={recovery ? undefined : "[0-9]{6}"}
        maxLength={recovery ? 32 : 6}
        required
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    </label>
  );
}
