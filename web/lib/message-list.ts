/**
 * A place's loaded messages (a channel or a DM), oldest first, as pure operations. Ids are UUIDv7, so
 * comparing them as strings orders messages by time (the server's order too).
 */
import type { Message, ReactionSummary } from "./wire-types.ts";

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Adds or replaces messages, keeping the list sorted and free of duplicates. */
export function mergeMessages(list: Message[], incoming: Message[]): Message[] {
  if (incoming.length === 0) return list;
  const last = list[list.length - 1];
  // The common case: new messages after everything loaded.
  const sortedIncoming = [...incoming].sort(byId);
  if (!last || sortedIncoming[0]!.id > last.id) {
    const unique = sortedIncoming.filter((m, i) => i === 0 || m.id !== sortedIncoming[i - 1]!.id);
    return [...list, ...unique];
  }
  const byKey = new Map(list.map((m) => [m.id, m]));
  for (const message of incoming) byKey.set(message.id, message);
  return [...byKey.values()].sort(byId);
}

export function removeMessage(list: Message[], messageId: string): Message[] {
  const index = list.findIndex((m) => m.id === messageId);
  return index === -1 ? list : [...list.slice(0, index), ...list.slice(index + 1)];
}

/** A message continues its author's group when it follows theirs within 7 minutes and is not a reply. */
export function continuesGroup(previous: Message | undefined, message: Message): boolean {
  if (!previous || message.reply_to) return false;
  return (
    previous.user_id === message.user_id &&
    (previous.webhook_id ?? null) === (message.webhook_id ?? null) &&
    previous.username === message.username &&
    message.created_at - previous.created_at < 7 * 60
  );
}

/** A reaction added or removed by `userId`, applied to the message's summaries (in first-use order). */
export function applyReaction(
  summaries: ReactionSummary[],
  event: { emoji: string; userId: string; action: "added" | "removed" },
  username = "",
): ReactionSummary[] {
  const index = summaries.findIndex((s) => s.emoji === event.emoji);
  if (event.action === "added") {
    if (index === -1) return [...summaries, { emoji: event.emoji, count: 1, users: [{ id: event.userId, username }] }];
    const summary = summaries[index]!;
    if (summary.users.some((u) => u.id === event.userId)) return summaries;
    const updated = { ...summary, count: summary.count + 1, users: [...summary.users, { id: event.userId, username }] };
    return summaries.map((s, i) => (i === index ? updated : s));
  }
  if (index === -1) return summaries;
  const summary = summaries[index]!;
  if (!summary.users.some((u) => u.id === event.userId)) return summaries;
  if (summary.count <= 1) return summaries.filter((_, i) => i !== index);
  const updated = { ...summary, count: summary.count - 1, users: summary.users.filter((u) => u.id !== event.userId) };
  return summaries.map((s, i) => (i === index ? updated : s));
}
