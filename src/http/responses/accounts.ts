/** Answers of the account, user and friend routes (docs/auth.md, docs/users.md, docs/friends.md). */
import * as v from "valibot";
import type { Session as SessionType } from "../../domain/accounts/accounts.ts";
import type { Friend as FriendType, FriendRequest as FriendRequestType, FriendSearchResult as FriendSearchResultType } from "../../domain/accounts/friends.ts";
import type { Connection as ConnectionType, MutedUser as MutedUserType, UserProfile as UserProfileType } from "../../domain/accounts/users.ts";
import type { FriendVoiceActivity as FriendVoiceActivityType } from "../../domain/voice/voice.ts";
import { Activity, BotFlag, ImageUrl, MeUser, Presence, PublicUser, UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import type { Assert, Same } from "./same-type.ts";

/** `{token, user}`: a new token and the account (register, login, password change). */
export const Session = v.object({ token: v.string(), user: MeUser });
export const TwoFactorSetup = v.object({ secret: v.string(), otpauth_url: v.string() });
export const TwoFactorState = v.object({ two_factor_enabled: v.boolean() });
/** 2FA enabled, with the recovery codes shown this once (docs/auth.md, "Recovery codes"). */
export const TwoFactorEnabled = v.object({ two_factor_enabled: v.literal(true), recovery_codes: v.array(v.string()) });
export const RecoveryCodes = v.object({ recovery_codes: v.array(v.string()) });
export const LoggedOut = v.object({ logged_out: v.literal(true) });

export const Connection = v.object({
  id: Uuid,
  type: v.string(),
  name: v.string(),
  url: v.nullable(v.string()),
  visible: v.boolean(),
  verified: v.literal(false),
  created_at: UnixSeconds,
});
export const MutedUser = v.object({ user_id: Uuid, username: v.string(), avatar: ImageUrl, is_bot: BotFlag, created_at: UnixSeconds });
export const UserProfile = v.object({
  ...PublicUser.entries,
  connections: v.array(Connection),
  mutual_servers: v.array(v.object({ id: Uuid, name: v.string(), icon: ImageUrl })),
  mutual_friends: v.array(v.object({ id: Uuid, username: v.string(), avatar: ImageUrl })),
});
export const NotificationSettings = v.object({
  message_notifications: v.picklist(["all", "mentions", "none"]),
  dm_notifications: v.boolean(),
  friend_request_notifications: v.boolean(),
  sounds: v.boolean(),
  desktop: v.boolean(),
});
/** A bot's public view with its activity (Bot REST `GET /users/:id`). */
export const UserWithActivity = v.object({ ...PublicUser.entries, activity: v.nullable(Activity) });

export const Friend = v.object({ user_id: Uuid, username: v.string(), avatar: ImageUrl, status: Presence, is_bot: BotFlag, since: UnixSeconds });
export const FriendRequest = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  status: Presence,
  is_bot: BotFlag,
  direction: v.picklist(["incoming", "outgoing"]),
  created_at: UnixSeconds,
});
export const FriendRequests = v.object({ incoming: v.array(FriendRequest), outgoing: v.array(FriendRequest) });
export const FriendSearchResult = v.object({ ...PublicUser.entries, relationship: v.picklist(["none", "friend", "incoming", "outgoing"]) });
export const FriendVoiceActivity = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  channel_id: Uuid,
  channel_name: v.string(),
  server_id: Uuid,
  server_name: v.string(),
});

export type Checks = [
  Assert<Same<v.InferOutput<typeof Session>, SessionType>>,
  Assert<Same<v.InferOutput<typeof Connection>, ConnectionType>>,
  Assert<Same<v.InferOutput<typeof MutedUser>, MutedUserType>>,
  Assert<Same<v.InferOutput<typeof UserProfile>, UserProfileType>>,
  Assert<Same<v.InferOutput<typeof Friend>, FriendType>>,
  Assert<Same<v.InferOutput<typeof FriendRequest>, FriendRequestType>>,
  Assert<Same<v.InferOutput<typeof FriendSearchResult>, FriendSearchResultType>>,
  Assert<Same<v.InferOutput<typeof FriendVoiceActivity>, FriendVoiceActivityType>>,
];
