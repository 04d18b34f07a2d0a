/**
 * Checked by `npm run typecheck` (not a test file): the server's own wire types still fit the
 * shapes the web app reads (web/lib/wire-types.ts, the reference's schemas as sdk/src/generated/
 * has them). A field renamed or retyped on the server without the reference and the generated
 * SDK following fails the type check here instead of breaking the app at run time.
 */
import type { Category, Channel } from "../../src/domain/shared/shapes.ts";
import type { ServerCommand } from "../../src/domain/bots/commands.ts";
import type { Dm, DmMessage } from "../../src/domain/dms/dms.ts";
import type { Emoji } from "../../src/domain/community/emojis.ts";
import type { Invite } from "../../src/domain/community/invites.ts";
import type { Member } from "../../src/domain/community/members.ts";
import type { Role } from "../../src/domain/community/roles.ts";
import type { Server } from "../../src/domain/community/servers.ts";
import type { MeUser, Message } from "../../src/domain/shared/shapes.ts";
import type * as Web from "../../web/lib/wire-types.ts";
import type { AuditEntry } from "../../src/domain/access/audit.ts";
import type { PermissionOverride } from "../../src/domain/community/channels.ts";
import type { Invite as ServerInvite } from "../../src/domain/community/invites.ts";
import type { Emoji as ServerEmoji } from "../../src/domain/community/emojis.ts";
import type { BanRow } from "../../src/store/moderation-repo.ts";
import type { Sound } from "../../src/domain/voice/soundboard.ts";
import type { Webhook } from "../../src/domain/messaging/webhooks.ts";
import type * as Settings from "../../web/lib/wire-types.ts";

type Fits<Server extends Client, Client> = [Server, Client];

export type WireTypesFit = [
  Fits<MeUser, Web.MeUser>,
  Fits<Server, Web.Server>,
  Fits<Channel, Web.Channel>,
  Fits<Category, Web.Category>,
  Fits<Member, Web.Member>,
  Fits<Role, Web.Role>,
  Fits<Invite, Web.Invite>,
  Fits<Emoji, Web.Emoji>,
  Fits<Message, Web.Message>,
  Fits<DmMessage, Web.Message>,
  Fits<ServerCommand, Web.ServerCommand>,
  Fits<Dm, Web.Dm>,
  Fits<PermissionOverride, Settings.PermissionOverride>,
  Fits<ServerInvite, Settings.ServerInvite>,
  Fits<BanRow, Settings.Ban>,
  Fits<AuditEntry, Settings.AuditEntry>,
  Fits<ServerEmoji, Settings.ServerEmoji>,
  Fits<Sound, Settings.Sound>,
  Fits<Webhook, Settings.Webhook>,
];
