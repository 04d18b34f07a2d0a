/**
 * The permission bits grouped as a person looks for them (general, text, voice), each
 * with its label (the spec's bit names in words, e.g. "Send Messages"). Every bit is in exactly
 * one group; screens that show permission checkboxes (bot invites, the developer portal, role
 * settings) use this one list.
 */
import { PERMISSION_LABELS, PERMISSIONS, type PermissionName } from "./shared-rules.ts";

export interface PermissionGroup {
  /** A stable key (also a CSS grid area of the checkboxes). */
  key: "general" | "text" | "voice";
  title: string;
  names: PermissionName[];
}

export const PERMISSION_GROUPS: PermissionGroup[] = [
  {
    key: "general",
    title: "General",
    names: ["ADMINISTRATOR", "VIEW_CHANNEL", "MANAGE_SERVER", "MANAGE_ROLES", "MANAGE_CHANNELS", "KICK_MEMBERS", "BAN_MEMBERS"],
  },
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
      "USE_APPLICATION_COMMANDS",
      "MANAGE_MESSAGES",
      "MANAGE_REACTIONS",
    ],
  },
  { key: "voice", title: "Voice", names: ["CONNECT", "SPEAK", "STREAM", "USE_SOUNDBOARD", "MUTE_MEMBERS", "DEAFEN_MEMBERS", "MOVE_MEMBERS"] },
];

export const permissionLabel = (name: PermissionName): string => PERMISSION_LABELS[name];

/** `bits` with `name` set or cleared. */
export function withPermission(bits: number, name: PermissionName, on: boolean): number {
  return on ? bits | PERMISSIONS[name] : bits & ~PERMISSIONS[name];
}
