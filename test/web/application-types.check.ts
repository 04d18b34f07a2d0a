/**
 * Checked by `npm run typecheck` (not a test file): the server's own types of applications,
 * invite cards, bot servers and commands still fit what the web app reads
 * (web/lib/wire-types.ts, generated from the reference).
 */
import type { Application, BotInviteCard, BotServer } from "../../src/domain/bots/applications.ts";
import type { BotAddResult } from "../../src/domain/bots/bot-membership.ts";
import type { Command } from "../../src/domain/bots/commands.ts";
import type * as Web from "../../web/lib/wire-types.ts";

type Fits<Server extends Client, Client> = [Server, Client];

export type ApplicationTypesFit = [
  Fits<Application, Web.Application>,
  Fits<{ application: Application; bot_token: string }, Web.CreatedApplication>,
  Fits<BotInviteCard, Web.BotInviteCard>,
  Fits<BotServer, Web.BotServer>,
  Fits<BotAddResult, Web.BotAddResult>,
  Fits<Command, Web.ApplicationCommand>,
];
