/**
 * `/servers/<server>/settings/<section>`: a server's settings for those with the bits. The
 * navigation lists only the sections the reader may use (./access.ts); a section they may not
 * use says so instead of offering controls the server would refuse.
 */
import type { ComponentType } from "preact";
import { useLocation, useRoute } from "preact-iso/router";
import { Redirect } from "../../app.tsx";
import { SectionTitle } from "../../components/section-title.tsx";
import { useEscapeCloses } from "../../components/use-escape-closes.ts";
import { settingsClosed } from "../../lib/settings-return.ts";
import { session, store } from "../../state/app-state.ts";
import { SECTIONS, settingsAccess, type SectionId } from "./access.ts";
import type { SectionProps } from "./context.ts";
import { OverviewSection } from "./overview.tsx";
import { RolesSection } from "./roles.tsx";
import { ChannelPermissionsSection } from "./channel-permissions.tsx";
import { InvitesSection } from "./invites.tsx";
import { MembersSection } from "./members.tsx";
import { BansSection } from "./bans.tsx";
import { AuditLogSection } from "./audit-log.tsx";
import { EmojisSection } from "./emojis.tsx";
import { SoundboardSection } from "./soundboard.tsx";
import { WebhooksSection } from "./webhooks.tsx";
import { BotsSection } from "./bots.tsx";

const COMPONENTS: Record<SectionId, ComponentType<SectionProps>> = {
  overview: OverviewSection,
  roles: RolesSection,
  channels: ChannelPermissionsSection,
  invites: InvitesSection,
  members: MembersSection,
  bans: BansSection,
  "audit-log": AuditLogSection,
  emojis: EmojisSection,
  soundboard: SoundboardSection,
  webhooks: WebhooksSection,
  bots: BotsSection,
};

export function ServerSettingsPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const serverId = params.serverId ?? "";
  // Escape goes back to the server, as "Back to the server" does.
  useEscapeCloses(() => {
    settingsClosed("server");
    route(`/channels/${serverId}`);
  });
  const me = session.value!.user;
  const servers = store.servers.value;
  const server = servers?.find((s) => s.id === serverId);
  if (servers === null) return <p class="page-state" role="status">Loading…</p>;
  if (!server) {
    return (
      <div class="page-state">
        <h1>Server not found</h1>
        <p class="muted">You are not a member of this server, or it no longer exists.</p>
        <a href="/channels/@me">Back to your messages</a>
      </div>
    );
  }
  const state = store.server(server.id);
  const loaded = state.members.members.value !== null;
  const roles = state.roles.value;
  // Every server has @everyone: an empty list means the roles are still loading.
  if (!loaded || roles.length === 0) return <p class="page-state" role="status">Loading settings…</p>;
  const access = settingsAccess(state.members.self.value, roles, server.owner_id, me.id);
  const back = `/channels/${server.id}`;
  if (access.sections.length === 0) {
    return (
      <div class="page-state">
        <h1>Server settings</h1>
        <p class="muted">You do not have permission to change anything in {server.name}'s settings.</p>
        <a href={back}>Back to {server.name}</a>
      </div>
    );
  }
  const section = params.section as SectionId | undefined;
  if (!section) return <Redirect to={`/servers/${server.id}/settings/${access.sections[0]}`} />;
  const known = SECTIONS.find((s) => s.id === section);
  const Section = known && access.sections.includes(known.id) ? COMPONENTS[known.id] : null;
  const groups = [...new Set(SECTIONS.map((s) => s.group))];
  return (
    <div class="settings">
      <nav class="settings-nav" aria-label="Server settings">
        <p class="settings-server" title={server.name}>
          {server.name}
        </p>
        <a class="settings-back" href={back} aria-keyshortcuts="Escape" onClick={() => settingsClosed("server")}>
          ← Back to the server
        </a>
        {groups.map((group) => {
          const items = SECTIONS.filter((s) => s.group === group && access.sections.includes(s.id));
          if (items.length === 0) return null;
          return (
            <div key={group} class="settings-nav-group">
              <h2 id={`settings-group-${group}`}>{group}</h2>
              <ul aria-labelledby={`settings-group-${group}`}>
                {items.map((item) => (
                  <li key={item.id}>
                    <a
                      href={`/servers/${server.id}/settings/${item.id}`}
                      class={item.id === section ? "active" : undefined}
                      aria-current={item.id === section ? "page" : undefined}
                    >
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </nav>
      <main class="settings-main" aria-labelledby="settings-title">
        <SectionTitle key={section} title={known?.label ?? "Not found"} />
        {Section ? (
          <Section server={server} state={state} access={access} meId={me.id} />
        ) : (
          <p class="muted">{known ? "You do not have the permission this section needs." : "There is no such section in the settings."}</p>
        )}
      </main>
    </div>
  );
}

