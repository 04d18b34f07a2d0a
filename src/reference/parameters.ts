/**
 * What each path and query parameter of the REST API means, by name, in one place: a name means
 * the same on every route (`channelId` is a channel's id, `before` pages back the same way
 * everywhere). A route where a name means something else says so in its `doc({params})`
 * (src/http/operation-doc.ts), which wins over this table; `id`, which names a different thing
 * under each prefix, is read from the path segment before it. test/http/reference-lint.test.ts
 * fails on a parameter left without a description.
 */

const PATH: Record<string, string> = {
  appId: "The application's id.",
  attachmentId: "The attachment's id (an `id` of a message's `attachments`).",
  botUserId: "The bot's user id (an application's `bot_user_id`).",
  channelId: "The channel's id.",
  cmdId: "The command's id.",
  code: "The invite's code (the last part of its link).",
  inviteCode: "The invite's code (the last part of its link).",
  connectionId: "The connection's id.",
  dmId: "The DM conversation's id.",
  emoji: "The reaction's emoji, URL-encoded: a Unicode emoji, or a custom emoji as `<:name:id>` (docs/reactions-pins.md, \"Emoji strings\").",
  emojiId: "The custom emoji's id.",
  file: "`hearth-sdk-<version>.tgz` (this server's SDK version) or `latest.tgz`.",
  friendId: "The other user's id.",
  gifId: "The server GIF's id.",
  groupId: "The group DM's id.",
  inviteId: "The invite's id.",
  kind: "The kind of file: `avatars`, `banners`, `server-icons`, `server-banners`, `server-gifs`, `attachments`, `group-icons`, `emojis` or `sounds`.",
  memberId: "The member's user id.",
  messageId: "The message's id.",
  name: "The file's name, as the server stored it (from the URL a record holds).",
  roleId: "The role's id.",
  serverId: "The server's id.",
  soundId: "The sound's id.",
  targetId: "The other user's id.",
  targetUserId: "The other user's id.",
  token: "The webhook's token (the last part of its URL).",
  userId: "The user's id.",
};

/** `{id}` by the path segment before it (`/servers/{id}` is a server's id). */
const ID_AFTER: Record<string, string> = {
  users: "The user's id.",
  servers: "The server's id.",
  emojis: "The custom emoji's id.",
  messages: "The channel's id.",
  channels: "The channel's id.",
  id: "The channel's id.",
  categories: "The category's id.",
  webhooks: "The webhook's id.",
  reports: "The report's id.",
  conversations: "The conversation's id.",
  keys: "The provider key's id.",
};

const QUERY: Record<string, string> = {
  limit: "The most items to answer (a page's size): a whole number up to the route's maximum; left out, the route's default.",
  before: "The page before: only items that come before this id in the list's order (older messages, older entries): the last id of the previous page.",
  after: "Only items after this id in the list's order (newer messages, higher user ids); not with `before` or `around`.",
  around: "A page centred on this message id: half the page older than it, the rest it and newer; not with `before` or `after`.",
  q: "The text to search for.",
  query: "Only members whose username starts with this (1-32 characters, any case); not with `after`.",
  cursor: "Where the next page starts: the previous page's `next`, as it was.",
  kind: "Only this kind: `gif` or `sticker`.",
  action: "Only entries of this action (one of the audit log's actions).",
  actor_id: "Only entries made by this user id.",
  admin: "`true`: only platform administrators; `false`: only the others.",
  bot: "`true`: only bot users; `false`: only people.",
  premium: "`true`: only premium accounts; `false`: only the others.",
  disabled: "`true`: only disabled accounts; `false`: only enabled ones.",
  verified: "`true`: only verified servers; `false`: only the others.",
  status: "Only reports with this status: `open` (the default), `resolved`, `dismissed`, or `all`.",
  type: "Only reports of this kind: `message` or `user`.",
  wait: "`true`: answer 200 with the message created; left out or `false`: 204 without a body.",
};

/** The description of parameter `name` (in `where`) of the route at `path` (OpenAPI form, `{id}`), or null. */
export function parameterDescription(name: string, where: string, path: string): string | null {
  if (where === "path") {
    if (name === "id") {
      const segments = path.split("/");
      return ID_AFTER[segments[segments.indexOf("{id}") - 1] ?? ""] ?? null;
    }
    return PATH[name] ?? null;
  }
  if (where === "query") return QUERY[name] ?? null;
  return null;
}
