/**
 * The app's routes. Pages that need an account send a visitor without a session to the login
 * page, which brings them back afterwards (`?next=`).
 */
import type { ComponentChildren, ComponentType } from "preact";
import { useEffect, useErrorBoundary } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation } from "preact-iso/router";
import lazy from "preact-iso/lazy";
import { session, store } from "./state/app-state.ts";
import { LoginPage } from "./pages/login.tsx";
import { RegisterPage } from "./pages/register.tsx";
import { ChatPage } from "./pages/chat.tsx";
import { InviteCodePage } from "./pages/invite-code.tsx";
import { ServerSettingsPage } from "./pages/settings/settings-page.tsx";
import { NotFoundPage } from "./pages/not-found.tsx";
import { AuthLayout } from "./pages/auth-layout.tsx";
import { IncomingCallDialog } from "./voice/call-ui.tsx";
import { LeaveDialog } from "./components/masked-link.tsx";
import "./state/appearance.ts";

/** Replaces the current entry with `to` (used for redirects). */
export function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to]);
  return null;
}

/** Lets what lives outside the pages (a clicked notification) open a page through the router. */
function RouterBridge() {
  const { route } = useLocation();
  useEffect(() => {
    store.notifier.navigate = (url) => route(url);
  }, [route]);
  return null;
}

/** A page only for someone logged in; others go to the login page and come back. */
function signedIn<P extends object>(Page: ComponentType<P>): ComponentType<P> {
  return function SignedIn(props: P) {
    const { url } = useLocation();
    if (!session.value) return <Redirect to={`/login?next=${encodeURIComponent(url)}`} />;
    return <Page {...props} />;
  };
}

const Home = signedIn(() => <Redirect to="/channels/@me" />);
const Chat = signedIn(ChatPage);
const InviteCode = signedIn(InviteCodePage);
const ServerSettings = signedIn(ServerSettingsPage);
// The bot invite page and the developer portal load on first visit (most people never open them).
const InviteBot = lazy(() => import("./pages/invite-bot.tsx"));
const Developers = signedIn(lazy(() => import("./pages/developers/developers.tsx").then((m) => m.ApplicationsPage)));
const DeveloperApplication = signedIn(lazy(() => import("./pages/developers/developers.tsx").then((m) => m.ApplicationPage)));
// The user settings load when first opened, like the portal.
const UserSettings = signedIn(lazy(() => import("./pages/user-settings/user-settings.tsx").then((m) => m.UserSettingsPage)));

/** A bug in a page shows a way out instead of an empty screen. */
function CrashGuard({ children }: { children: ComponentChildren }) {
  const [error] = useErrorBoundary((failure) => console.error(failure));
  if (!error) return <>{children}</>;
  return (
    <AuthLayout title="Something went wrong" subtitle="The app hit an error it did not expect. Reloading the page usually helps.">
      <p class="error" role="alert">
        {String((error as Error)?.message ?? error)}
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    </AuthLayout>
  );
}

export function App() {
  return (
    <CrashGuard>
      <LocationProvider>
        <Router>
          <Route path="/" component={Home} />
          <Route path="/login" component={LoginPage} />
          <Route path="/register" component={RegisterPage} />
          <Route path="/channels/:serverId/:channelId?" component={Chat} />
          <Route path="/invite/:code" component={InviteCode} />
          <Route path="/servers/:serverId/settings/:section?" component={ServerSettings} />
          <Route path="/settings/:section?" component={UserSettings} />
          <Route path="/invite" component={InviteBot} />
          <Route path="/developers" component={Developers} />
          <Route path="/developers/applications/:appId" component={DeveloperApplication} />
          <Route default component={NotFoundPage} />
        </Router>
        <IncomingCallDialog />
        <LeaveDialog />
        <RouterBridge />
      </LocationProvider>
    </CrashGuard>
  );
}
