/**
 * `/developers/applications/<id>`: one application, section by section: its public face (name,
 * description, avatar, banner), the bot token, how to install the SDK, who may add the bot and with which permissions
 * (with the invite link), its commands, the servers it is in, and deleting it.
 */
import { useEffect, useState } from "preact/hooks";
import type { Application } from "../../lib/wire-types.ts";
import { errorMessage } from "../../lib/api-errors.ts";
import { rest } from "../../state/app-state.ts";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { freshToken } from "./fresh-token.ts";
import { GeneralSection } from "./general-section.tsx";
import { TokenSection } from "./token-section.tsx";
import { SdkSection } from "./sdk-section.tsx";
import { InstallSection } from "./install-section.tsx";
import { CommandsSection } from "./commands-section.tsx";
import { ServersSection } from "./servers-section.tsx";
import { DeleteSection } from "./delete-section.tsx";

export function ApplicationView({ appId }: { appId: string }) {
  const [app, setApp] = useState<Application | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setApp(null);
    setError(null);
    rest.request("getApplication", { params: { appId } }).then(setApp, (failure) => setError(errorMessage(failure)));
  }, [appId]);
  // The token of a creation or reset is shown while the page is open, then forgotten.
  useEffect(() => () => void (freshToken.value = null), [appId]);

  if (error) {
    return (
      <div class="portal-empty">
        <h1>This application cannot be opened</h1>
        <ErrorAlert message={error} />
        <a href="/developers">Back to your applications</a>
      </div>
    );
  }
  if (!app) {
    return (
      <p class="muted" role="status">
        Loading the application…
      </p>
    );
  }
  return (
    <>
      <nav class="portal-crumbs" aria-label="Breadcrumb">
        <a href="/developers">Applications</a> <span aria-hidden="true">/</span> <span aria-current="page">{app.name}</span>
      </nav>
      <div class="portal-heading">
        <div class="app-title">
          <Avatar name={app.name} src={app.avatar} size={48} />
          <h1>{app.name}</h1>
        </div>
      </div>
      <GeneralSection app={app} onChange={setApp} />
      <TokenSection app={app} />
      <SdkSection />
      <InstallSection app={app} onChange={setApp} />
      <CommandsSection app={app} />
      <ServersSection app={app} />
      <DeleteSection app={app} />
    </>
  );
}
