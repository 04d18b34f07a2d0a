/**
 * Who a channel message mentions, worked out once when it is written (docs/read-states.md):
 * `<@userId>`, `<@&roleId>`, `@everyone` / `@here` (counted alike, as @everyone; a sender
 * reaches this only with MENTION_EVERYONE, or as a webhook) and the author of the message it
 * replies to. The author never mentions themself (a role or @everyone row is filtered per
 * reader, who is never the author, at read time).
 */
export type MentionKind = "user" | "role" | "everyone";

export interface Mention {
  kind: MentionKind;
  /** A user id, a role id, or the server's id for `everyone`. */
  targetId: string;
}

const ID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const USER = new RegExp(`<@!?(${ID})>`, "g");
const ROLE = new RegExp(`<@&(${ID})>`, "g");
const MASS = /@(everyone|here)\b/;

export function mentionsIn(content: string, at: { authorId: string; serverId: string; replyAuthorId?: string | null }): Mention[] {
  const users = new Set<string>();
  for (const match of content.matchAll(USER)) users.add(match[1]!.toLowerCase());
  if (at.replyAuthorId) users.add(at.replyAuthorId);
  users.delete(at.authorId);
  const roles = new Set<string>();
  for (const match of content.matchAll(ROLE)) roles.add(match[1]!.toLowerCase());
  const mentions: Mention[] = [];
  for (const targetId of users) mentions.push({ kind: "user", targetId });
  for (const targetId of roles) mentions.push({ kind: "role", targetId });
  if (MASS.test(content)) mentions.push({ kind: "everyone", targetId: at.serverId });
  return mentions;
}
