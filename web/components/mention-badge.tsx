import "./unread.css";
/** The red count of mentions (or unread DMs) beside a channel, a server or a DM; its link's name already says it. */
export function MentionBadge({ count }: { count: number }) {
  if (count <= 0) return null;
  return (
    <span class="mention-badge" aria-hidden="true">
      {count > 99 ? "99+" : count}
    </span>
  );
}
