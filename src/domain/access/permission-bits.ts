/** The permission bits of SPEC.md "Permission bits", by name. */
export const PERMISSIONS = {
  MANAGE_CHANNELS: 1 << 0,
  MANAGE_ROLES: 1 << 1,
  KICK_MEMBERS: 1 << 2,
  BAN_MEMBERS: 1 << 3,
  MANAGE_MESSAGES: 1 << 4,
  MANAGE_SERVER: 1 << 5,
  MUTE_MEMBERS: 1 << 6,
  DEAFEN_MEMBERS: 1 << 7,
  MOVE_MEMBERS: 1 << 8,
  ADMINISTRATOR: 1 << 9,
  ADD_REACTIONS: 1 << 10,
  VIEW_CHANNEL: 1 << 11,
  SEND_MESSAGES: 1 << 12,
  CONNECT: 1 << 13,
  MANAGE_REACTIONS: 1 << 14,
  SPEAK: 1 << 15,
  ATTACH_FILES: 1 << 16,
  EMBED_LINKS: 1 << 17,
  READ_MESSAGE_HISTORY: 1 << 18,
  MENTION_EVERYONE: 1 << 19,
  USE_EXTERNAL_EMOJIS: 1 << 20,
  STREAM: 1 << 21,
  USE_SOUNDBOARD: 1 << 22,
  USE_APPLICATION_COMMANDS: 1 << 23,
} as const;

export type PermissionName = keyof typeof PERMISSIONS;

/** Every defined bit. */
export const ALL_PERMISSIONS = Object.values(PERMISSIONS).reduce((all, bit) => all | bit, 0);

/** Least-privilege default for new bots (SPEC.md "Application"). */
export const DEFAULT_BOT_PERMISSIONS = 8895488;

/** `@everyone` of a new server (CONTRACT.md "Permissions"). */
export const DEFAULT_EVERYONE_PERMISSIONS =
  DEFAULT_BOT_PERMISSIONS | PERMISSIONS.USE_EXTERNAL_EMOJIS | PERMISSIONS.STREAM | PERMISSIONS.USE_SOUNDBOARD;

/** The names of the bits set in `bits`, in bit order. */
export function permissionNames(bits: number): PermissionName[] {
  return (Object.keys(PERMISSIONS) as PermissionName[]).filter((name) => (bits & PERMISSIONS[name]) !== 0);
}

/** The human label of each bit, as invite cards and settings screens show it. */
export const PERMISSION_LABELS: Record<PermissionName, string> = {
  MANAGE_CHANNELS: "Manage Channels",
  MANAGE_ROLES: "Manage Roles",
  KICK_MEMBERS: "Kick Members",
  BAN_MEMBERS: "Ban Members",
  MANAGE_MESSAGES: "Manage Messages",
  MANAGE_SERVER: "Manage Server",
  MUTE_MEMBERS: "Mute Members",
  DEAFEN_MEMBERS: "Deafen Members",
  MOVE_MEMBERS: "Move Members",
  ADMINISTRATOR: "Administrator",
  ADD_REACTIONS: "Add Reactions",
  VIEW_CHANNEL: "View Channels",
  SEND_MESSAGES: "Send Messages",
  CONNECT: "Connect",
  MANAGE_REACTIONS: "Manage Reactions",
  SPEAK: "Speak",
  ATTACH_FILES: "Attach Files",
  EMBED_LINKS: "Embed Links",
  READ_MESSAGE_HISTORY: "Read Message History",
  MENTION_EVERYONE: "Mention Everyone",
  USE_EXTERNAL_EMOJIS: "Use External Emojis",
  STREAM: "Stream",
  USE_SOUNDBOARD: "Use Soundboard",
  USE_APPLICATION_COMMANDS: "Use Application Commands",
};

/** The labels of the bits set in `bits`, in bit order. */
export function permissionLabels(bits: number): string[] {
  return permissionNames(bits).map((name) => PERMISSION_LABELS[name]);
}

/** A bot's permissions as stored: ADMINISTRATOR, when present, is stored alone (SPEC.md "Permission bits"). */
export const normalizeBotPermissions = (bits: number): number =>
  (bits & PERMISSIONS.ADMINISTRATOR) !== 0 ? PERMISSIONS.ADMINISTRATOR : bits & ALL_PERMISSIONS;
