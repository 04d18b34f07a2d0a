/**
 * The developer portal's pages (loaded on first visit, see app.tsx): `/developers`, the list of
 * the reader's applications, and `/developers/applications/<id>`, one application. Everything
 * goes through the public REST API of docs/applications.md and docs/commands.md.
 */
import { useRoute } from "preact-iso/router";
import { PortalLayout } from "./portal-layout.tsx";
import { ApplicationsList } from "./applications-list.tsx";
import { ApplicationView } from "./application-page.tsx";

export function ApplicationsPage() {
  return (
    <PortalLayout>
      <ApplicationsList />
    </PortalLayout>
  );
}

export function ApplicationPage() {
  const { params } = useRoute();
  return (
    <PortalLayout>
      <ApplicationView key={params.appId} appId={params.appId ?? ""} />
    </PortalLayout>
  );
}
