/**
 * A masked link `[text](https://...)`: its text may say anything, so following it asks first,
 * naming the host it leads to ("Leave Hearth?", "You are going to <host>"), as Discord does. The
 * address is the link's own `href`, so hovering shows it and the browser's "Copy link" copies it.
 * Plain links in text show their address and open without asking.
 */
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import { safeUrlHost } from "../lib/content.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";

export function MaskedLink({ url, children }: { url: string; children: ComponentChildren }) {
  const [asking, setAsking] = useState(false);
  // The host as the browser reads it (lower case, punycode), so a look-alike name shows for what it is.
  const host = useMemo(() => safeUrlHost(url), [url]);
  // An address the browser cannot read (`https://a:b`) leads nowhere: its text stays text.
  if (host === null) return <>{children}</>;
  return (
    <>
      <a
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        title={url}
        onClick={(event) => {
          event.preventDefault();
          setAsking(true);
        }}
      >
        {children}
      </a>
      {asking && (
        <ConfirmDialog
          title="Leave Hearth?"
          confirm="Go to site"
          danger={false}
          onClose={() => setAsking(false)}
          onConfirm={async () => {
            window.open(url, "_blank", "noopener,noreferrer");
          }}
        >
          <div class="masked-link-target">
            <p>
              You are going to <strong>{host}</strong>
            </p>
            <p class="masked-link-address">{url}</p>
          </div>
        </ConfirmDialog>
      )}
    </>
  );
}
