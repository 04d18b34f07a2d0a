/** The frame of the developer portal's pages: its own top bar (with the way back to the chat) and a centred column. */
import type { ComponentChildren } from "preact";
import { session } from "../../state/app-state.ts";
import { Avatar } from "../../components/avatar.tsx";
import iconUrl from "../../icon.svg";
import "./developers.css";

export function PortalLayout({ children }: { children: ComponentChildren }) {
  const user = session.value?.user;
  return (
    <div class="portal">
      <header class="portal-bar">
        <a class="portal-brand" href="/developers">
          <img src={iconUrl} alt="" width={28} height={28} />
          <span>
            Hearth <span class="portal-brand-sub">Developer Portal</span>
          </span>
        </a>
        <nav class="portal-nav" aria-label="Developer portal">
          <a href="/developers">Applications</a>
          <a href="/channels/@me">Back to Hearth</a>
        </nav>
        {user && (
          <span class="portal-user">
            <Avatar name={user.username} src={user.avatar} size={28} />
            <span class="portal-user-name">{user.username}</span>
          </span>
        )}
      </header>
      <main class="portal-main">{children}</main>
    </div>
  );
}

/** One card of a portal page, named by its heading (a region landmark). */
export function Section({ id, title, intro, children, tone }: { id: string; title: string; intro?: ComponentChildren; children: ComponentChildren; tone?: "danger" }) {
  return (
    <section class={`portal-card${tone === "danger" ? " danger-zone" : ""}`} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro && <p class="muted portal-intro">{intro}</p>}
      {children}
    </section>
  );
}
