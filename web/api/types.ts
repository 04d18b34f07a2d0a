/**
 * The wire shapes the app reads: the named schemas of the reference (GET /api/v1/openapi.json),
 * as sdk/src/generated/schemas.ts generates them (`npm run sdk:generate`). One source: a field
 * renamed or retyped on the server changes the reference, the generated file and, through
 * these names, the app's type check. Only the names the app uses are given here.
 */
import type * as S from "../../sdk/src/generated/schemas.ts";

export type PresenceStatus = S.MeUser["status"];
export type MeUser = S.MeUser;
export type Session = S.Session;
export type Server = S.Server;
export type Channel = S.Channel;
export type Category = S.Category;
export type ChannelList = S.ChannelList;
export type Member = S.Member;
export type Role = S.Role;
export type Invite = S.Invite;
export type Emoji = S.Emoji;
export type EmbedField = S.EmbedField;
export type ComponentEmoji = S.ComponentEmoji;
export type ActionButton = S.ActionButtonComponent;
export type LinkButton = S.LinkButtonComponent;
export type SelectOption = S.SelectOption;
export type StringSelect = S.StringSelectComponent;
export type ChannelSelect = S.ChannelSelectComponent;
export type Component = S.Component;
export type Embed = S.Embed;
export type Attachment = S.Attachment;
/** A channel message, or a DM message (which adds `conversation_id`, equal to `channel_id`). */
export type Message = S.Message & { conversation_id?: string };
/** A message's reactions by emoji; gateway updates name the user but not their avatar. */
export type ReactionSummary = Omit<S.ReactionGroup, "users"> & {
  users: Pick<S.ReactionGroup["users"][number], "id" | "username">[];
};
export type CommandOption = S.CommandOption;
/** A command usable in a server, with the bot that answers it. */
export type ServerCommand = S.ServerCommand;
export type Recipient = S.Recipient;
export type Conversation = S.Conversation;
