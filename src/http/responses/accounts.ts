/**
 * Answers of the account, user and friend routes (docs/auth.md, docs/users.md, docs/friends.md).
 * The shapes the domain builds are defined beside the feature that builds them (their types are
 * the schemas' outputs) and listed here with the answers only these routes build, so the
 * reference names them.
 */
import * as v from "valibot";
import { Session } from "../../domain/accounts/accounts.ts";
import { Friend, FriendRequest, FriendSearchResult } from "../../domain/accounts/friends.ts";
import { Connection, MutedUser, NotificationSettings, UserProfile } from "../../domain/accounts/users.ts";
import { PrivacySettings } from "../../domain/accounts/privacy.ts";
import { FriendVoiceActivity } from "../../domain/voice/voice.ts";
import { Activity, CustomStatus, PublicUser } from "../../domain/shared/shapes.ts";

export { Connection, CustomStatus, Friend, FriendRequest, FriendSearchResult, FriendVoiceActivity, MutedUser, NotificationSettings, PrivacySettings, Session, UserProfile };

export const TwoFactorSetup = v.object({ secret: v.string(), otpauth_url: v.string() });
export const TwoFactorState = v.object({ two_factor_enabled: v.boolean() });
/** 2FA enabled, with the recovery codes shown this once (docs/auth.md, "Recovery codes"). */
export const TwoFactorEnabled = v.object({ two_factor_enabled: v.literal(true), recovery_codes: v.array(v.string()) });
export const RecoveryCodes = v.object({ recovery_codes: v.array(v.string()) });
export const LoggedOut = v.object({ logged_out: v.literal(true) });

/** A bot's public view with its activity (Bot REST `GET /users/:id`). */
export const UserWithActivity = v.object({ ...PublicUser.entries, activity: v.nullable(Activity) });

export const FriendRequests = v.object({ incoming: v.array(FriendRequest), outgoing: v.array(FriendRequest) });
