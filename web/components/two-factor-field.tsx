/** The field for a 6-digit code from an authenticator app, named "Two-factor code". */
import type { Ref } from "preact";

export function TwoFactorField({ value, onChange, inputRef }: { value: string; onChange: (code: string) => void; inputRef?: Ref<HTMLInputElement> }) {
  return (
    <label class="field">
      <span>Two-factor code</span>
      <input
        ref={inputRef}
        name="code"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    </label>
  );
}
