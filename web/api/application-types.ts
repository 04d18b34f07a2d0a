/**
 * The wire shapes of applications, bot invites and commands (docs/applications.md,
 * docs/commands.md): the reference's named schemas, generated in sdk/src/generated/schemas.ts
 * (see web/api/types.ts).
 */
import type * as S from "../../sdk/src/generated/schemas.ts";

/** An application as its owner sees it. */
export type Application = S.Application;
/** POST /oauth2/applications: the new application and its bot's token (shown once). */
export type CreatedApplication = S.NewApplication;
/** The public invite card of a bot (no token needed). */
export type BotInviteCard = S.BotInviteCard;
/** A server the bot is in, as its owner sees it. */
export type BotServer = S.BotServer;
/** What adding (or authorizing again) a bot did; `joined` is false when only its role changed. */
export type BotAddResult = S.BotAddResult;
/** A slash command of an application (global when `server_id` is null). */
export type ApplicationCommand = S.Command;
/** PATCH /oauth2/applications/:appId/permissions. */
export type PermissionsUpdate = S.ApplicationPermissions;
