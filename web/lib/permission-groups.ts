/**
 * The permission bits as people read them: grouped by topic (general, members, text, voice),
 * each with its label (the spec's bit names in words, "Send Messages") and a sentence on what it
 * allows; and the three states of a bit in a channel override. Every screen that shows
 * permissions (role settings, channel overrides, bot invites, the developer portal) uses these. Pure.
 */
import { PERMISSION_LABELS, PERMISSIONS, type PermissionName } from "./shared-rules.ts";

interface PermissionGroup {
  /** A stable key (the checkboxes' CSS grid area: `permission-group-<key>`). */
  key: "general" | "members" | "text" | "voice";
  title: string;
  names: PermissionName[];
}

/** The bits by topic, in the order a person reads them. Every bit is in exactly one group. */
export const PERMISSION_GROUPS: PermissionGroup[] = [
  { key: "general", title: "General", names: ["ADMINISTRATOR", "MANAGE_SERVER", "MANAGE_ROLES", "MANAGE_CHANNELS", "VIEW_CHANNEL"] },
  { key: "members", title: "Members", names: ["KICK_MEMBERS", "BAN_MEMBERS", "MUTE_MEMBERS"] },
  {
    key: "text",
    title: "Text",
    names: [
      "SEND_MESSAGES",
      "READ_MESSAGE_HISTORY",
      "EMBED_LINKS",
      "ATTACH_FILES",
      "ADD_REACTIONS",
      "USE_EXTERNAL_EMOJIS",
      "MENTION_EVERYONE",
      "MANAGE_MESSAGES",
      "MANAGE_REACTIONS",
      "USE_APPLICATION_COMMANDS",
    ],
  },
  { key: "voice", title: "Voice", names: ["CONNECT", "SPEAK", "STREAM", "USE_SOUNDBOARD", "DEAFEN_MEMBERS", "MOVE_MEMBERS"] },
];

export const permissionLabel = (name: PermissionName): string => PERMISSION_LABELS[name];

/** What each bit lets a member do, in a sentence. */
export const PERMISSION_HINTS: Record<PermissionName, string> = {
  ADMINISTRATOR: "Every permission, in every channel, whatever the overrides say.",
  MANAGE_SERVER: "Change the server's name, icon and banner, emojis, sounds and invites; read the audit log.",
  MANAGE_ROLES: "Create and edit roles below their highest role, give them to members, and set channel overrides.",
  MANAGE_CHANNELS: "Create, edit and delete channels and categories, and manage webhooks.",
  VIEW_CHANNEL: "See channels and read what is posted in them.",
  KICK_MEMBERS: "Remove members from the server.",
  BAN_MEMBERS: "Ban members and unban them.",
  MUTE_MEMBERS: "Time members out, and mute them in voice channels.",
  SEND_MESSAGES: "Post messages in text channels.",
  READ_MESSAGE_HISTORY: "Read messages posted before they arrived.",
  EMBED_LINKS: "Links they post show previews.",
  ATTACH_FILES: "Upload files and images.",
  ADD_REACTIONS: "React to messages with emoji.",
  USE_EXTERNAL_EMOJIS: "Use custom emojis from other servers.",
  MENTION_EVERYONE: "Notify everyone with @everyone.",
  MANAGE_MESSAGES: "Delete and pin anyone's messages.",
  MANAGE_REACTIONS: "Remove anyone's reactions.",
  USE_APPLICATION_COMMANDS: "Use bots' slash commands.",
  CONNECT: "Join voice channels.",
  SPEAK: "Talk in voice channels.",
  STREAM: "Share video in voice channels.",
  USE_SOUNDBOARD: "Play soundboard sounds in voice channels.",
  DEAFEN_MEMBERS: "Deafen others in voice channels.",
  MOVE_MEMBERS: "Move others between voice channels and disconnect them.",
};

/** `bits` with `name` set or cleared. */
export function withPermission(bits: number, name: PermissionName, on: boolean): number {
  return on ? bits | PERMISSIONS[name] : bits & ~PERMISSIONS[name];
}

export type OverrideState = "allow" | "neutral" | "deny";

export const overrideStateOf = (bit: number, allow: number, deny: number): OverrideState =>
  (deny & bit) !== 0 ? "deny" : (allow & bit) !== 0 ? "allow" : "neutral";

/** The override's allow and deny after setting one bit to `state`. */
export function withOverrideState(bit: number, state: OverrideState, allow: number, deny: number): { allow: number; deny: number } {
  return {
    allow: state === "allow" ? allow | bit : allow & ~bit,
    deny: state === "deny" ? deny | bit : deny & ~bit,
  };
}
