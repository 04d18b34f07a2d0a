import "./unread.css";
/** The red count of mentions (or unread DMs) beside a channel, a server or a DM; its link's name already says it. */
export function MentionBadge({ count }: { count: number }) {
  if (count <= 0) return null;
  return (
    // The count is drawn by CSS: the control it sits on says it in its name.
    <span class="mention-badge" data-count={count > 99 ? "99+" : String(count)} aria-hidden="true" />
  );
}
