/**
 * The routes of applications and bot invites (docs/applications.md, docs/commands.md), typed.
 * Public routes only; the owner's user token is the session's.
 */
import type { Http } from "./client.ts";
import type {
  Application,
  ApplicationCommand,
  BotAddResult,
  BotInviteCard,
  BotServer,
  CreatedApplication,
  PermissionsUpdate,
} from "./application-types.ts";

const enc = encodeURIComponent;
const APPS = "/oauth2/applications";

/** The platform's facts the portal reads (GET /platform/config). */
export interface PlatformFeatures {
  features: { two_factor_required_for_applications: boolean };
}

export class ApplicationsApi {
  constructor(private readonly http: Http) {}

  platformConfig() {
    return this.http.get<PlatformFeatures>("/platform/config");
  }

  // The public invite card and authorizing a bot onto a server
  inviteCard(botUserId: string) {
    return this.http.get<BotInviteCard>(`/oauth2/invite/${enc(botUserId)}`);
  }
  authorize(botUserId: string, serverId: string, permissions: number) {
    return this.http.post<BotAddResult>(`/oauth2/invite/${enc(botUserId)}/add/${enc(serverId)}`, { permissions });
  }

  // The owner's applications
  list() {
    return this.http.get<Application[]>(APPS);
  }
  get(appId: string) {
    return this.http.get<Application>(`${APPS}/${enc(appId)}`);
  }
  create(name: string, description: string, twoFactorCode?: string) {
    return this.http.post<CreatedApplication>(APPS, { name, description }, twoFactorCode ? { headers: { "X-2FA-Code": twoFactorCode } } : undefined);
  }
  update(appId: string, fields: { name: string; description: string }) {
    return this.http.put<Application>(`${APPS}/${enc(appId)}`, fields);
  }
  remove(appId: string) {
    return this.http.delete<{ success: true }>(`${APPS}/${enc(appId)}`);
  }
  resetToken(appId: string) {
    return this.http.post<{ bot_token: string }>(`${APPS}/${enc(appId)}/token`);
  }
  uploadImage(appId: string, kind: "avatar" | "banner", file: File) {
    const form = new FormData();
    form.append(kind, file, file.name);
    return this.http.upload<Application>(`${APPS}/${enc(appId)}/${kind}`, form);
  }
  setPublic(appId: string, publicInvite: boolean) {
    return this.http.patch<Application>(`${APPS}/${enc(appId)}/public-invite`, { public_invite: publicInvite });
  }
  setPermissions(appId: string, defaultPermissions: number, locked: boolean) {
    return this.http.patch<PermissionsUpdate>(`${APPS}/${enc(appId)}/permissions`, {
      default_permissions: defaultPermissions,
      invite_permission_locked: locked,
    });
  }
  servers(appId: string) {
    return this.http.get<BotServer[]>(`${APPS}/${enc(appId)}/servers`);
  }
  commands(appId: string) {
    return this.http.get<ApplicationCommand[]>(`${APPS}/${enc(appId)}/commands`);
  }
}
