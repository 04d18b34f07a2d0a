/** Deleting the application and its bot, after a confirmation that says what goes with it. */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { Application } from "../../lib/wire-types.ts";
import { rest } from "../../state/app-state.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Section } from "./portal-layout.tsx";

export function DeleteSection({ app }: { app: Application }) {
  const { route } = useLocation();
  const [confirming, setConfirming] = useState(false);

  return (
    <Section id="delete-heading" title="Delete application" tone="danger">
      <p class="muted">The bot leaves every server, its messages and commands are deleted, and its token stops working. This cannot be undone.</p>
      <div class="actions start">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete application
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Delete ${app.name}`}
          confirm="Delete"
          onConfirm={async () => {
            await rest.request("deleteApplication", { params: { appId: app.id } });
            route("/developers");
          }}
          onClose={() => setConfirming(false)}
        >
          <p>
            Delete <strong>{app.name}</strong> and its bot? The bot leaves every server it is in, and its messages and commands are deleted. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
