/**
 * The message log of a place, virtualized (virtua's VList renders only what is in view). It
 * opens at the newest message, follows new ones while the reader is at the bottom, loads older
 * pages when they scroll near the top, and keeps what they look at in place when a page is
 * prepended (virtua's `shift`).
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { VList, type VListHandle } from "virtua";
import type { Message } from "../lib/wire-types.ts";
import { continuesGroup } from "../lib/message-list.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { MessageItem } from "./message-item.tsx";
import { usePlace } from "./place-context.ts";
import { Icon } from "./icons.tsx";
import { channelLabel } from "../lib/format.ts";

/** Load the previous page when the reader is this close to the top (px). */
const LOAD_OLDER_AT = 400;

type Row = { kind: "intro"; key: "intro" } | { kind: "message"; key: string; message: Message };

export function MessageList({ onReply, stickSignal }: { onReply: (m: Message) => void; stickSignal: number }) {
  const place = usePlace();
  const { timeline } = place;
  const messages = timeline.messages.value;
  const status = timeline.status.value;
  const hasOlder = timeline.hasOlder.value;
  const loadingOlder = timeline.loadingOlder.value;
  const ref = useRef<VListHandle>(null);
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const firstId = useRef<string | undefined>(undefined);
  /** Set once the log was first brought to its newest message: scroll positions before that mean nothing. */
  const positioned = useRef(false);
  const lastId = useRef<string | undefined>(undefined);

  const rows: Row[] = [];
  if (!hasOlder && status === "ready") rows.push({ kind: "intro", key: "intro" });
  for (const message of messages) rows.push({ kind: "message", key: message.id, message });

  // A prepend (an older page, or the channel's intro once the history ends) keeps the reader's
  // place: virtua shifts when the first row changed while the previous first row is still there.
  const currentFirst = rows[0]?.key;
  const shift = firstId.current !== undefined && currentFirst !== firstId.current && rows.some((r) => r.key === firstId.current);

  useLayoutEffect(() => {
    firstId.current = currentFirst;
    const newest = messages[messages.length - 1]?.id;
    const appended = newest !== lastId.current;
    lastId.current = newest;
    if (appended && atBottom.current && rows.length > 0) {
      ref.current?.scrollToIndex(rows.length - 1, { align: "end" });
      positioned.current = true;
    }
  });

  // Sending a message brings the reader back to the newest one.
  useEffect(() => {
    if (stickSignal === 0) return;
    atBottom.current = true;
    setShowJump(false);
    if (rows.length) ref.current?.scrollToIndex(rows.length - 1, { align: "end" });
  }, [stickSignal]);

  // A first page shorter than the view: load more until the view is full or the history ends.
  useEffect(() => {
    const list = ref.current;
    if (!list || status !== "ready" || !hasOlder || loadingOlder) return;
    if (list.scrollSize <= list.viewportSize + LOAD_OLDER_AT) void timeline.loadOlder();
  }, [status, hasOlder, loadingOlder, messages.length]);

  function onScroll(offset: number) {
    const list = ref.current;
    if (!list || !positioned.current) return;
    const bottom = offset + list.viewportSize >= list.scrollSize - 8;
    atBottom.current = bottom;
    if (bottom === showJump) setShowJump(!bottom);
    if (offset < LOAD_OLDER_AT && hasOlder && !loadingOlder) void timeline.loadOlder();
  }

  if (status === "loading" || status === "idle") {
    return (
      <div class="message-log-state" role="status">
        Loading messages…
      </div>
    );
  }
  if (status === "error") {
    return (
      <div class="message-log-state">
        <ErrorAlert message={timeline.error.value} />
        <button type="button" class="secondary" onClick={() => void timeline.open()}>
          Try again
        </button>
      </div>
    );
  }

  return (
    <div class="message-log">
      {loadingOlder && (
        <div class="loading-older" role="status">
          Loading older messages…
        </div>
      )}
      {/* preact/compat's div attributes add their own `ref` type to VList's props: the handle ref is VList's. */}
      <VList ref={ref as never} class="message-scroller" role="log" aria-label="Messages" tabIndex={0} shift={shift} onScroll={onScroll} data={rows}>
        {(row: Row, index: number) =>
          row.kind === "intro" ? (
            <Intro key="intro" />
          ) : (
            <MessageItem
              key={row.key}
              message={row.message}
              grouped={continuesGroup(rows[index - 1]?.kind === "message" ? (rows[index - 1] as { message: Message }).message : undefined, row.message)}
              onReply={onReply}
            />
          )
        }
      </VList>
      {showJump && (
        <button
          type="button"
          class="jump"
          onClick={() => {
            atBottom.current = true;
            setShowJump(false);
            ref.current?.scrollToIndex(rows.length - 1, { align: "end" });
          }}
        >
          Jump to present ↓
        </button>
      )}
    </div>
  );
}

function Intro() {
  const place = usePlace();
  const channel = place.channel;
  const voice = channel?.type === "voice";
  const shown = channel ? channelLabel(channel) : "";
  return (
    <div class="intro">
      <div class="intro-icon" aria-hidden="true">
        {voice ? <Icon name="speaker" size={32} /> : channel ? "#" : "@"}
      </div>
      <h2>{channel ? `Welcome to ${shown}!` : place.label}</h2>
      <p class="muted">
        {channel
          ? voice
            ? `This is the start of the text chat of the voice channel ${shown}.`
            : `This is the start of the ${shown} channel.`
          : `This is the beginning of your conversation with ${place.label}.`}
      </p>
    </div>
  );
}
