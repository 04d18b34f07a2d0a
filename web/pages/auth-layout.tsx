import type { ComponentChildren } from "preact";
import iconUrl from "../icon.svg";

/**
 * The centred card of the login and register pages. Without `title`, the children bring their
 * own heading with the id "auth-title" (the bot invite page); `class` widens the card.
 */
export function AuthLayout({ title, subtitle, class: className, children }: { title?: string; subtitle?: string; class?: string; children: ComponentChildren }) {
  return (
    <main class="auth">
      <section class={className ? `auth-card ${className}` : "auth-card"} aria-labelledby="auth-title">
        <div class="brand" aria-hidden="true">
          <img src={iconUrl} alt="" width={40} height={40} />
          <span>Hearth</span>
        </div>
        {title && <h1 id="auth-title">{title}</h1>}
        {subtitle && <p class="muted">{subtitle}</p>}
        {children}
      </section>
    </main>
  );
}

/** Where to go after logging in: the `next` query parameter when it is a path of this app. */
export function nextPath(query: Record<string, string>): string {
  const next = query.next;
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/channels/@me";
}
