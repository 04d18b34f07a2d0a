/**
 * Two-factor authentication (docs/auth.md): setting it up shows the pending secret as a QR code
 * (drawn from uqr's matrix, black on white whatever the theme, so every camera reads it) and as
 * text; a code from the app and the account's password enable it, and the ten recovery codes are
 * shown this once, with "Copy" and "Download". Once on: "Regenerate recovery codes" and
 * "Disable two-factor authentication", each with the password and a code (or a recovery code).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { encode } from "uqr";
import { CopyButton } from "../../components/copy-button.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { TwoFactorField } from "../../components/two-factor-field.tsx";
import { useAction } from "../../components/use-async.ts";
import { LIMITS } from "../../lib/shared-rules.ts";
import { rest, session, updateUser } from "../../state/app-state.ts";

type Setup = { secret: string; otpauth_url: string };

/** The reader's user again after 2FA changed (its `two_factor_enabled`). */
async function refreshMe(): Promise<void> {
  updateUser(await rest.request("getMe"));
}

export function TwoFactorSection() {
  const user = session.value?.user;
  const [codes, setCodes] = useState<string[] | null>(null);
  if (!user) return null;
  return (
    <div class="settings-stack">
      {codes ? (
        <RecoveryCodes codes={codes} username={user.username} onDone={() => setCodes(null)} />
      ) : user.two_factor_enabled ? (
        <>
          <section class="settings-card" aria-labelledby="two-factor-state">
            <h2 id="two-factor-state">Two-factor authentication is on</h2>
            <p class="muted">
              Logging in asks for a code from your authenticator app after your password. Keep your recovery codes somewhere safe: each
              one works once in place of a code, if you lose the device with the app.
            </p>
          </section>
          <CodeAndPasswordForm
            id="two-factor-regenerate"
            title="Regenerate recovery codes"
            about="Makes ten new recovery codes; the ones you have stop working at once."
            submit="Regenerate recovery codes"
            danger={false}
            onSubmit={async (password, code) => {
              const answer = await rest.request("regenerateRecoveryCodes", { body: { password, code } });
              setCodes(answer.recovery_codes);
            }}
          />
          <CodeAndPasswordForm
            id="two-factor-disable"
            title="Disable two-factor authentication"
            about="Logging in then needs only your password, and your recovery codes are deleted."
            submit="Disable two-factor authentication"
            danger
            onSubmit={async (password, code) => {
              await rest.request("disableTwoFactor", { body: { password, code } });
              await refreshMe();
            }}
          />
        </>
      ) : (
        <EnableFlow onEnabled={setCodes} />
      )}
    </div>
  );
}

function EnableFlow({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [setup, setSetup] = useState<Setup | null>(null);
  const start = useAction();
  if (!setup) {
    return (
      <section class="settings-card" aria-labelledby="two-factor-state">
        <h2 id="two-factor-state">Two-factor authentication is off</h2>
        <p class="muted">
          With it on, logging in asks for a code from an authenticator app on your phone (any app for TOTP codes) after your password, so a
          stolen password alone does not open your account.
        </p>
        <ErrorAlert message={start.error} />
        <div class="actions">
          <button type="button" class="primary" disabled={start.busy} onClick={() => start.run(async () => setSetup(await rest.request("setupTwoFactor")))}>
            Set up two-factor authentication
          </button>
        </div>
      </section>
    );
  }
  return <ConfirmSetup setup={setup} onCancel={() => setSetup(null)} onEnabled={onEnabled} />;
}

function ConfirmSetup({ setup, onCancel, onEnabled }: { setup: Setup; onCancel: () => void; onEnabled: (codes: string[]) => void }) {
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const grouped = setup.secret.match(/.{1,4}/g)?.join(" ") ?? setup.secret;
  return (
    <form
      class="form settings-card"
      aria-labelledby="two-factor-setup"
      onSubmit={async (event) => {
        event.preventDefault();
        await action.run(async () => {
          const answer = await rest.request("enableTwoFactor", { body: { code: code.trim(), password } });
          onEnabled(answer.recovery_codes);
          await refreshMe();
        });
      }}
    >
      <h2 id="two-factor-setup" ref={heading} tabIndex={-1}>
        Set up two-factor authentication
      </h2>
      <ol class="two-factor-steps">
        <li>
          <p>Scan this QR code with your authenticator app:</p>
          <QrCode text={setup.otpauth_url} />
        </li>
        <li>
          <p>Or type this key into it by hand (time-based, 6 digits, every 30 seconds):</p>
          <p class="two-factor-secret">
            <code aria-label="Setup key" data-secret={setup.secret}>
              {grouped}
            </code>
            <CopyButton text={setup.secret} label="Copy key" class="secondary" />
          </p>
        </li>
        <li>
          <p>Enter the code the app shows, and your password:</p>
          <TwoFactorField value={code} onChange={setCode} />
          <label class="field">
            <span>Password</span>
            <input type="password" name="password" autocomplete="current-password" required maxLength={LIMITS.account.passwordMax} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </label>
        </li>
      </ol>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={action.busy || code.trim().length !== 6 || !password}>
          Enable two-factor authentication
        </button>
      </div>
    </form>
  );
}

/** The QR code of `text` as an SVG of its modules (uqr's `encode`), named for screen readers. */
function QrCode({ text }: { text: string }) {
  const qr = encode(text, { ecc: "M", border: 2 });
  let path = "";
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg class="qr-code" role="img" aria-label="QR code for your authenticator app" viewBox={`0 0 ${qr.size} ${qr.size}`} width={200} height={200} shape-rendering="crispEdges">
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

/** The ten recovery codes, shown once: "Copy", "Download" (a text file) and "Done". */
function RecoveryCodes({ codes, username, onDone }: { codes: string[]; username: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const text = `Hearth recovery codes for ${username}\nEach works once in place of a two-factor code.\n\n${codes.join("\n")}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `hearth-recovery-codes-${username}.txt`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <section class="settings-card" aria-labelledby="two-factor-codes">
      <h2 id="two-factor-codes" ref={heading} tabIndex={-1}>
        Your recovery codes
      </h2>
      <p>
        Two-factor authentication is on. Save these codes now: <strong>they are shown only this once.</strong> Each works once in place of a
        code from your app, if you lose it.
      </p>
      <ul class="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        {/* Named "Copy" and "Download" as issue 43 pins them; the heading says what they copy. */}
        <CopyButton text={codes.join("\n")} label="Copy" describedBy="two-factor-codes" class="secondary" />
        <button type="button" class="secondary" aria-describedby="two-factor-codes" onClick={download}>
          Download
        </button>
        <button type="button" class="primary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** Password and a code (TOTP or a recovery code): what disabling and regenerating need. */
function CodeAndPasswordForm({ id, title, about, submit, danger, onSubmit }: {
  id: string;
  title: string;
  about: string;
  submit: string;
  danger: boolean;
  onSubmit: (password: string, code: string) => Promise<void>;
}) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const action = useAction();
  return (
    <form
      class={danger ? "form settings-card danger-zone" : "form settings-card"}
      aria-labelledby={id}
      onSubmit={async (event) => {
        event.preventDefault();
        await action.run(() => onSubmit(password, code.trim()));
      }}
    >
      <h2 id={id}>{title}</h2>
      <p class="muted">{about}</p>
      <label class="field">
        <span>Password</span>
        <input type="password" name="password" autocomplete="current-password" required maxLength={LIMITS.account.passwordMax} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Two-factor code</span>
        <input name="code" autocomplete="one-time-code" required aria-describedby={`${id}-code-hint`} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
      </label>
      <p class="hint" id={`${id}-code-hint`}>
        The 6 digits your app shows, or one of your recovery codes.
      </p>
      <ErrorAlert message={action.error} />
      <div class="actions">
        <button type="submit" class={danger ? "danger" : "primary"} disabled={action.busy || !password || !code.trim()}>
          {submit}
        </button>
      </div>
    </form>
  );
}
