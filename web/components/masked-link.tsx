/**
 * A masked link `[text](https://...)`: its text may say anything, so following it asks first,
 * naming the host it leads to ("Leave Hearth?", "You are going to <host>"), as Discord does. The
 * address is the link's own `href`, so hovering shows it and the browser's "Copy link" copies it.
 * Plain links in text show their address and open without asking.
 *
 * The question is one dialog for the whole app (`LeaveDialog`, mounted once in web/app.tsx), not
 * one per link: the log is virtualized, and a row that scrolls away while the dialog is open (the
 * log following new messages) would take a dialog of its own with it.
 */
import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useMemo } from "preact/hooks";
import { safeUrlHost } from "../lib/content.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";

const leaving = signal<{ url: string; host: string } | null>(null);

export function MaskedLink({ url, children }: { url: string; children: ComponentChildren }) {
  // The host as the browser reads it (lower case, punycode), so a look-alike name shows for what it is.
  const host = useMemo(() => safeUrlHost(url), [url]);
  // An address the browser cannot read (`https://a:b`) leads nowhere: its text stays text.
  if (host === null) return <>{children}</>;
  return (
    <a
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      title={url}
      onClick={(event) => {
        event.preventDefault();
        leaving.value = { url, host };
      }}
    >
      {children}
    </a>
  );
}

export function LeaveDialog() {
  const target = leaving.value;
  if (!target) return null;
  return (
    <ConfirmDialog
      title="Leave Hearth?"
      confirm="Go to site"
      danger={false}
      onClose={() => (leaving.value = null)}
      onConfirm={async () => {
        window.open(target.url, "_blank", "noopener,noreferrer");
      }}
    >
      <div class="masked-link-target">
        <p>
          You are going to <strong>{target.host}</strong>
        </p>
        <p class="masked-link-address">{target.url}</p>
      </div>
    </ConfirmDialog>
  );
}
