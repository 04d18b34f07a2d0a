/**
 * "Bot token": the token is shown when the application was just created or its token reset
 * (the server never gives it again), with "Copy"; "Reset token" asks first, since the old token
 * stops working at once and the bot is disconnected.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Application } from "../../lib/wire-types.ts";
import { rest } from "../../state/app-state.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { CopyButton } from "../../components/copy-button.tsx";
import { freshToken } from "./fresh-token.ts";
import { Section } from "./portal-layout.tsx";

export function TokenSection({ app }: { app: Application }) {
  const [confirming, setConfirming] = useState(false);
  const token = freshToken.value?.appId === app.id ? freshToken.value.token : null;
  const field = useRef<HTMLInputElement>(null);
  // A new token takes the focus (once the reset's dialog has closed), so a keyboard or screen-reader user lands on it.
  const focused = useRef<string | null>(null);
  useEffect(() => {
    if (!token || confirming || focused.current === token) return;
    focused.current = token;
    field.current?.focus();
  }, [token, confirming]);

  const reset = async () => {
    const { bot_token } = await rest.request("regenerateBotToken", { params: { appId: app.id } });
    freshToken.value = { appId: app.id, token: bot_token };
  };

  return (
    <Section id="bot-token-heading" title="Bot token" intro="Your program logs in as the bot with this token (Authorization: Bearer <token>). Keep it secret: anyone with it can act as your bot.">
      {token ? (
        <>
          <p class="notice" role="status">
            Copy the token now: it is shown only this once. If you lose it, reset it.
          </p>
          <div class="copy-row token-row">
            <input ref={field} readOnly aria-label="Bot token" class="token-field" value={token} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={token} />
          </div>
        </>
      ) : (
        <p class="muted">The token was shown when it was created. Reset it to get a new one.</p>
      )}
      <div class="actions start">
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>
          Reset token
        </button>
      </div>
      {confirming && (
        <ConfirmDialog title="Reset bot token" confirm="Reset token" onConfirm={reset} onClose={() => setConfirming(false)}>
          <p>
            {app.name}'s current token stops working at once and the bot is disconnected. It comes back only once your program uses the new token.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
