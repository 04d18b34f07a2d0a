/**
 * The wire shapes the app reads: short names for the named schemas of the reference
 * (GET /api/v1/openapi.json), as the SDK generates them (`npm run sdk:generate`). One source: a
 * field renamed or retyped on the server changes the reference, the generated file and, through
 * these names, the app's type check. Only the names the app uses are given here; the REST calls'
 * arguments and answers are typed by the SDK's operation map itself.
 */
import type * as S from "../../sdk/src/client.ts";

export type PresenceStatus = S.MeUser["status"];
export type MeUser = S.MeUser;
export type CustomStatus = S.CustomStatus;
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
export type Dm = S.Dm;
/** An accepted friend and a pending friend request, `user_id` the other user (docs/friends.md). */
export type Friend = S.Friend;
export type FriendRequest = S.FriendRequest;
/** A channel or DM with something unread (docs/read-states.md). */
export type ReadState = S.ReadState;
/** The account's notification preferences (docs/users.md). */
export type NotificationSettings = S.NotificationSettings;
/** One server's, channel's or DM's level and mute. */
export type NotificationOverride = S.NotificationOverride;
export type MutedUser = S.MutedUser;
/** Who may send the account direct messages and friend requests (docs/users.md#privacy). */
export type PrivacySettings = S.PrivacySettings;

// The server settings (docs/invites.md, moderation.md, emojis.md, soundboard.md, webhooks.md, channels.md)

/** A channel's or category's override for one role (docs/channels.md). */
export type PermissionOverride = S.PermissionOverride;
/** GET /invites/:code: what an invite link shows before it is accepted. */
export type InvitePreview = S.InvitePreview;
/** GET /channels/:id/permissions/me: the reader's own bits in a channel, and a running timeout's end. */
export type MyChannelPermissions = S.MyChannelPermissions;
/** `max_uses` null: unlimited; `expires_at` unix seconds, null: never. */
export type ServerInvite = S.Invite;
export type Ban = S.Ban;
export type AuditEntry = S.AuditEntry;
export type ServerEmoji = S.Emoji;
export type Sound = S.Sound;
/** `url` is a path (`/api/webhooks/<id>/<token>`); the page puts its origin in front. */
export type Webhook = S.Webhook;

// Applications, bot invites and commands (docs/applications.md, docs/commands.md)

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
/** Who is in a voice channel, as the channel list shows it (docs/voice.md, "Who is in each voice channel"). */
export type VoiceChannelState = S.VoiceChannelState;
export type VoiceOccupant = S.VoiceOccupant;
