/**
 * One message in a side panel (a pin, a search result): its author, time and text, and a "Jump"
 * button (named "Jump to message") that shows it in the log.
 */
import type { Message } from "../lib/wire-types.ts";
import { formatFullTime, formatMessageTime } from "../lib/format.ts";
import { Avatar } from "./avatar.tsx";
import { MessageContent } from "./message-content.tsx";

export function MessageSummary({ message, onJump, where }: { message: Message; onJump: () => void; where?: string }) {
  return (
    <li class="found-message">
      {where && <div class="muted found-message-where">{where}</div>}
      <div class="found-message-meta">
        <Avatar name={message.username} src={message.avatar} size={20} />
        <strong>{message.username}</strong>
        <time class="muted" dateTime={new Date(message.created_at * 1000).toISOString()} title={formatFullTime(message.created_at)}>
          {formatMessageTime(message.created_at)}
        </time>
        <button type="button" class="secondary small" aria-label="Jump to message" title="Jump to message" onClick={onJump}>
          Jump
        </button>
      </div>
      <div class="found-message-text">
        <MessageContent content={message.content || (message.attachments[0]?.original_name ?? "")} />
      </div>
    </li>
  );
}
