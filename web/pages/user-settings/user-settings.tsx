/**
 * `/settings/<section>`: the reader's own settings (loaded on first visit, see app.tsx), opened by
 * "User settings" in the account panel. The sections are a navigation named "User settings";
 * "Close" and Escape go back to the page they were opened from (web/lib/settings-return.ts).
 */
import type { ComponentType } from "preact";
import { useLocation, useRoute } from "preact-iso/router";
import { Redirect } from "../../app.tsx";
import { SectionTitle } from "../../components/section-title.tsx";
import { Icon } from "../../components/icons.tsx";
import { useEscapeCloses } from "../../components/use-escape-closes.ts";
import { settingsClosed, settingsReturn } from "../../lib/settings-return.ts";
import { MyAccountSection } from "./my-account.tsx";
import { ProfileSection } from "./profile.tsx";
import { TwoFactorSection } from "./two-factor.tsx";
import { NotificationsSection } from "./notifications.tsx";
import { PrivacySection } from "./privacy.tsx";
import { AppearanceSection } from "./appearance.tsx";
import "./user-settings.css";

interface Section {
  id: string;
  label: string;
  group: string;
  Component: ComponentType;
}

const SECTIONS: Section[] = [
  { id: "account", label: "My account", group: "Account", Component: MyAccountSection },
  { id: "profile", label: "Profile", group: "Account", Component: ProfileSection },
  { id: "two-factor", label: "Two-factor authentication", group: "Account", Component: TwoFactorSection },
  { id: "notifications", label: "Notifications", group: "App", Component: NotificationsSection },
  { id: "privacy", label: "Privacy", group: "App", Component: PrivacySection },
  { id: "appearance", label: "Appearance", group: "App", Component: AppearanceSection },
];

export function UserSettingsPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const close = () => {
    settingsClosed("user");
    route(settingsReturn());
  };
  useEscapeCloses(close);
  const section = SECTIONS.find((s) => s.id === params.section);
  if (!params.section) return <Redirect to="/settings/account" />;
  const groups = [...new Set(SECTIONS.map((s) => s.group))];
  return (
    <div class="settings user-settings">
      <nav class="settings-nav" aria-label="User settings">
        <p class="settings-server">User settings</p>
        {groups.map((group) => (
          <div key={group} class="settings-nav-group">
            <h2 id={`user-settings-group-${group}`}>{group}</h2>
            <ul aria-labelledby={`user-settings-group-${group}`}>
              {SECTIONS.filter((s) => s.group === group).map((item) => (
                <li key={item.id}>
                  <a href={`/settings/${item.id}`} class={item.id === section?.id ? "active" : undefined} aria-current={item.id === section?.id ? "page" : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main class="settings-main" aria-labelledby="settings-title">
        <div class="user-settings-head">
          <SectionTitle key={section?.id ?? "none"} title={section?.label ?? "Not found"} />
          <div class="user-settings-close">
            <button type="button" class="close-settings" onClick={close} aria-keyshortcuts="Escape">
              <Icon name="close" size={18} />
              <span>Close</span>
            </button>
            <span class="muted small" aria-hidden="true">
              Esc
            </span>
          </div>
        </div>
        {section ? <section.Component /> : <p class="muted">There is no such section in the user settings.</p>}
      </main>
    </div>
  );
}

