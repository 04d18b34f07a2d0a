/**
 * Checked by `npm run typecheck` (not a test file): the server's own wire types still fit the
 * shapes the web app reads (web/api/types.ts). A field renamed or retyped on the server fails
 * the type check here instead of breaking the app at run time.
 */
import type { Category, Channel } from "../../src/domain/channels.ts";
import type { ServerCommand } from "../../src/domain/commands.ts";
import type { Conversation, DmMessage } from "../../src/domain/conversations.ts";
import type { Emoji } from "../../src/domain/emojis.ts";
import type { Invite } from "../../src/domain/invites.ts";
import type { Member } from "../../src/domain/members.ts";
import type { Role } from "../../src/domain/roles.ts";
import type { Server } from "../../src/domain/servers.ts";
import type { MeUser, Message } from "../../src/domain/shapes.ts";
import type * as Web from "../../web/api/types.ts";

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
  Fits<Conversation, Web.Conversation>,
];
