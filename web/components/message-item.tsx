/**
 * One message: author (with the BOT tag or the WEBHOOK badge), time, reply preview, content,
 * "(edited)", attachments, embeds and components, reactions, the "no answer" notice, and the
 * actions the reader may take (react, reply, edit, delete, pin).
 */
import { memo } from "preact/compat";
import { useEffect, useRef, useState } from "preact/hooks";
import { rest } from "../state/app-state.ts";
import { deleteMessage, editMessage } from "../state/place-requests.ts";
import { errorMessage } from "../lib/api-errors.ts";
import type { Message } from "../lib/wire-types.ts";
import { contentPreview } from "../lib/content-preview.ts";
import { formatFullTime, formatMessageTime } from "../lib/format.ts";
import { can } from "../lib/permissions.ts";
import { nameColour } from "../lib/role-colour.ts";
import { Avatar } from "./avatar.tsx";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { Attachments } from "./attachments.tsx";
import { EmbedView } from "./embed-view.tsx";
import { EmojiPicker } from "./emoji-picker.tsx";
import { MessageContent } from "./message-content.tsx";
import { mayHere, usePlace } from "./place-context.ts";
import { ReactionBar } from "./reaction-bar.tsx";
import { Icon } from "./icons.tsx";
import { ErrorAlert } from "./error-alert.tsx";

/**
 * The author's name, in the colour of their highest coloured role in a server (the member as the
 * app knows it, looked up when a large server's list lacks them). Its own component: a member's
 * change re-renders the name, not the message.
 */
function AuthorName({ id, message }: { id: string; message: Message }) {
  const { server } = usePlace();
  const member = server && !message.webhook_id ? server.members.lookup(message.user_id) : undefined;
  const color = member ? nameColour(member.roles, server!.roles.value) : undefined;
  return (
    <span class="author" id={id} style={color ? { color } : undefined}>
      {message.username}
    </span>
  );
}

interface MessageItemProps {
  message: Message;
  /** The message continues the previous one's group: no avatar or name line. */
  grouped: boolean;
  onReply: (message: Message) => void;
}

/**
 * Memoized on its props: a burst of live messages re-renders the log once per frame, and then
 * only the new rows render (each row still follows the signals it reads: reactions, pins, notices).
 */
export const MessageItem = memo(MessageItemView);

function MessageItemView({ message, grouped, onReply }: MessageItemProps) {
  const place = usePlace();
  const { timeline, me } = place;
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [picking, setPicking] = useState(false);
  const reactButton = useRef<HTMLButtonElement>(null);
  const [error, setError] = useState<string | null>(null);
  const isChannel = place.place.kind === "channel";
  const own = message.user_id === me.id && !message.webhook_id;
  const manages = isChannel && can(place.permissions, "MANAGE_MESSAGES");
  const pinned = timeline.pinned.value?.has(message.id) ?? false;
  const reactions = timeline.reactions.value.get(message.id) ?? [];
  const notice = timeline.notices.value.get(message.id);
  const highlighted = timeline.highlight.value === message.id;
  const mentionsMe = message.content.includes(`<@${me.id}>`) || message.content.includes(`<@!${me.id}>`);
  const authorId = `m-${message.id}-author`;
  const timeId = `m-${message.id}-time`;

  useEffect(() => {
    if (isChannel) timeline.wantReactions(message.id);
  }, [message.id]);

  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const toggleReaction = (emoji: string) => {
    if (place.place.kind !== "channel") return;
    const channelId = place.place.channelId;
    void act(() => rest.request("toggleReaction", { params: { id: channelId, messageId: message.id }, body: { emoji } }));
  };
  const togglePin = () => {
    if (place.place.kind !== "channel") return;
    const channelId = place.place.channelId;
    void act(() => rest.request(pinned ? "unpinMessage" : "pinMessage", { params: { id: channelId, messageId: message.id } }));
  };

  return (
    <article
      class={`message${grouped ? " grouped" : ""}${mentionsMe ? " mentions-me" : ""}${highlighted ? " highlighted" : ""}`}
      aria-labelledby={`${authorId} ${timeId}`}
      aria-current={highlighted ? "true" : undefined}
      data-message-id={message.id}
      // Focusable by a tap or a click (not by Tab): touch has no hover, and the focus within is
      // what shows the action bar.
      tabIndex={-1}
    >
      <div class="message-gutter">
        {grouped ? (
          <time class="hover-time" dateTime={new Date(message.created_at * 1000).toISOString()} title={formatFullTime(message.created_at)}>
            {formatMessageTime(message.created_at)}
          </time>
        ) : (
          <Avatar name={message.username} src={message.avatar} />
        )}
      </div>
      <div class="message-body">
        {message.reply_to && <ReplyPreview replyTo={message.reply_to} messageId={message.id} />}
        <div class={grouped ? "message-header visually-hidden" : "message-header"}>
          <AuthorName id={authorId} message={message} />
          {message.webhook_id ? (
            <span class="badge webhook" title="Sent by a webhook">
              WEBHOOK
            </span>
          ) : message.is_bot === 1 ? (
            <span class="badge bot">BOT</span>
          ) : null}
          <time id={timeId} class="time" dateTime={new Date(message.created_at * 1000).toISOString()} title={formatFullTime(message.created_at)}>
            {formatMessageTime(message.created_at)}
          </time>
          {pinned && (
            <span class="pinned-mark">
              <Icon name="pin" size={12} /> Pinned
            </span>
          )}
        </div>
        {editing ? (
          <EditBox message={message} onDone={() => setEditing(false)} />
        ) : (
          (message.content || message.updated_at) && (
            <div class="message-text">
              <MessageContent content={message.content} />
              {message.updated_at !== null && (
                <span class="edited" title={`Edited ${formatFullTime(message.updated_at)}`}>
                  {" "}
                  (edited)
                </span>
              )}
            </div>
          )
        )}
        {message.attachments.length > 0 && <Attachments attachments={message.attachments} />}
        {message.embeds.map((embed, i) => (
          <EmbedView key={i} embed={embed} message={message} />
        ))}
        <ReactionBar reactions={reactions} meId={me.id} onToggle={toggleReaction} />
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <ErrorAlert message={error} />
      </div>
      {!editing && (
        <div class="message-actions" role="toolbar" aria-label="Message actions">
          {isChannel && mayHere(place, "ADD_REACTIONS") && (
            <button ref={reactButton} type="button" class="icon" aria-label="Add reaction" title="Add reaction" aria-expanded={picking} onClick={() => setPicking(!picking)}>
              <Icon name="smile" />
            </button>
          )}
          {mayHere(place, "SEND_MESSAGES") && (
            <button type="button" class="icon" aria-label="Reply" title="Reply" onClick={() => onReply(message)}>
              <Icon name="reply" />
            </button>
          )}
          {own && (
            <button type="button" class="icon" aria-label="Edit" title="Edit" onClick={() => setEditing(true)}>
              <Icon name="edit" />
            </button>
          )}
          {manages && (
            <button type="button" class="icon" aria-label={pinned ? "Unpin" : "Pin"} title={pinned ? "Unpin" : "Pin"} onClick={togglePin}>
              <Icon name="pin" />
            </button>
          )}
          {(own || manages) && (
            <button type="button" class="icon danger" aria-label="Delete" title="Delete" onClick={() => setConfirmDelete(true)}>
              <Icon name="trash" />
            </button>
          )}
        </div>
      )}
      {picking && reactButton.current && (
        <EmojiPicker
          label="Add reaction"
          anchor={reactButton.current}
          server={place.server}
          onClose={() => setPicking(false)}
          onPick={(emoji) => {
            setPicking(false);
            reactButton.current?.focus();
            toggleReaction(emoji);
          }}
        />
      )}
      {confirmDelete && (
        <ConfirmDialog title="Delete message" confirm="Delete" onConfirm={() => deleteMessage(rest, place.place, message.id)} onClose={() => setConfirmDelete(false)}>
          <p>Delete this message{own ? "" : ` by ${message.username}`}? This cannot be undone.</p>
          <blockquote class="quote">{message.content ? <MessageContent content={message.content} /> : (message.attachments[0]?.original_name ?? "(no text)")}</blockquote>
        </ConfirmDialog>
      )}
    </article>
  );
}

function EditBox({ message, onDone }: { message: Message; onDone: () => void }) {
  const place = usePlace();
  const [text, setText] = useState(message.content);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const box = ref.current!;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }, []);
  async function save() {
    if (text === message.content) return onDone();
    try {
      await editMessage(rest, place.place, message.id, text);
      onDone();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }
  return (
    <div class="edit-box">
      <textarea
        ref={ref}
        aria-label="Edit message"
        value={text}
        rows={Math.min(8, text.split("\n").length)}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onDone();
          } else if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            void save();
          }
        }}
      />
      <p class="hint">
        Escape to <button type="button" class="link" onClick={onDone}>cancel</button> · Enter to <button type="button" class="link" onClick={save}>save</button>
      </p>
      <ErrorAlert message={error} />
    </div>
  );
}

/** The quoted original of a reply; pressing it jumps to the original (loading its page when it is far back). */
function ReplyPreview({ replyTo, messageId }: { replyTo: string; messageId: string }) {
  const place = usePlace();
  const loaded = place.timeline.messages.value.find((m) => m.id === replyTo);
  const [fetched, setFetched] = useState<Message | null | undefined>(undefined);
  useEffect(() => {
    if (loaded || place.place.kind !== "channel") return;
    rest.request("getMessage", { params: { messageId: replyTo } }).then(setFetched, () => setFetched(null));
  }, [replyTo, Boolean(loaded)]);
  const original = loaded ?? fetched;
  if (original === null) {
    return (
      <div class="reply-preview">
        <span aria-hidden="true">↪ </span>
        <span class="muted">The original message was deleted</span>
      </div>
    );
  }
  const labelId = `m-${messageId}-reply-label`;
  const quoteId = `m-${messageId}-reply-quote`;
  return (
    <>
      <span id={labelId} hidden>
        Jump to the replied message:
      </span>
      <button type="button" class="reply-preview" aria-labelledby={`${labelId} ${quoteId}`} title="Jump to the replied message" onClick={() => void place.timeline.jumpTo(replyTo)}>
        <span aria-hidden="true">↪ </span>
        <span id={quoteId}>
          {original ? (
            <>
              <span class="sr-only">Replying to </span>
              <strong>{original.username}</strong>{" "}
              <span class="muted">{original.content ? <MessageContent content={contentPreview(original.content, 200)} preview /> : "(attachment)"}</span>
            </>
          ) : (
            <span class="muted">Replying to a message</span>
          )}
        </span>
      </button>
    </>
  );
}

