/**
 * The message log of a place, virtualized (virtua's VList renders only what is in view). It
 * opens at the newest message and follows new ones while the reader is at the bottom, also when
 * the newest message grows after it was laid out (an embed's image loading late: virtua measures
 * every row with a ResizeObserver and says so through `onResize`). It loads older pages near the
 * top, keeping what the reader looks at in place when a page is prepended (virtua's `shift`),
 * and newer pages near the bottom of a window away from the present (after a jump). It scrolls to
 * a jumped-to message (the Timeline's `scrollTarget`), centred, and shows "Jump to present"
 * whenever the reader is not at the newest message. Day dividers and the "New messages" divider
 * are rows of their own (web/lib/message-rows.ts).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { VList, type VListHandle } from "virtua";
import type { Message } from "../lib/wire-types.ts";
import { buildRows, type MessageRow } from "../lib/message-rows.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { MessageItem } from "./message-item.tsx";
import { usePlace } from "./place-context.ts";
import { Icon } from "./icons.tsx";
import { channelLabel, formatFullTime } from "../lib/format.ts";

/** Load the previous page when the reader is this close to the top (px). */
const LOAD_OLDER_AT = 400;
/** Load the next page (a window away from the present) when the reader is this close to the bottom (px). */
const LOAD_NEWER_AT = 400;
/** This close to the end counts as at the bottom (px). */
const AT_BOTTOM = 8;

export interface MessageListProps {
  onReply: (m: Message) => void;
  /** Bumped when the reader sent a message: the log goes back to the newest one. */
  stickSignal: number;
  /** The "New messages" divider goes above the first loaded message with a greater id; none when null. */
  newMessagesAfter?: string | null;
  /** The reader is at the bottom of the present: when the log opens there, scrolls back there, and as new messages arrive there. */
  onReachedBottom?: () => void;
}

export function MessageList({ onReply, stickSignal, newMessagesAfter = null, onReachedBottom }: MessageListProps) {
  const place = usePlace();
  const { timeline } = place;
  const messages = timeline.messages.value;
  const status = timeline.status.value;
  const hasOlder = timeline.hasOlder.value;
  const hasNewer = timeline.hasNewer.value;
  const loadingOlder = timeline.loadingOlder.value;
  const loadingNewer = timeline.loadingNewer.value;
  const jumping = timeline.jumping.value;
  const target = timeline.scrollTarget.value;
  const ref = useRef<VListHandle>(null);
  /** At the end of the loaded window (of the present only when `hasNewer` is false). */
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);
  /** The first loaded message and its row, as last rendered: what a prepend is measured by. */
  const firstMessage = useRef<{ id: string; index: number } | undefined>(undefined);
  /** Set once the log was first brought to its place: scroll positions before that mean nothing. */
  const positioned = useRef(false);
  const lastId = useRef<string | undefined>(undefined);
  const reachedBottom = useRef(onReachedBottom);
  reachedBottom.current = onReachedBottom;

  const ready = status === "ready";
  const rows = useMemo(() => buildRows(messages, { atStart: ready && !hasOlder, newMessagesAfter }), [messages, ready, hasOlder, newMessagesAfter]);

  // A prepend (an older page, or the channel's intro and first day once the history ends) keeps
  // the reader's place: virtua shifts when rows came in above the previous first message. Rows are
  // compared by that message, not by the first row, which may be a divider that moves up with the
  // page ("New messages" above a window that is all unread). Never while a jump is owed: the
  // window was replaced, and the list scrolls to the jump's row.
  const firstMessageIndex = rows.findIndex((r) => r.kind === "message");
  const firstMessageId = firstMessageIndex === -1 ? undefined : rows[firstMessageIndex]!.key;
  const before = firstMessage.current;
  const shift = !target && before !== undefined && rows.findIndex((r) => r.key === before.id) > before.index;

  const followsPresent = () => positioned.current && atBottom.current && !timeline.hasNewer.value && timeline.status.value === "ready";
  const reportBottom = () => {
    if (followsPresent()) reachedBottom.current?.();
  };
  const scrollToEnd = () => {
    if (rows.length) ref.current?.scrollToIndex(rows.length - 1, { align: "end" });
  };

  useLayoutEffect(() => {
    firstMessage.current = firstMessageId === undefined ? undefined : { id: firstMessageId, index: firstMessageIndex };
    const newest = messages[messages.length - 1]?.id;
    const appended = newest !== lastId.current;
    lastId.current = newest;
    const list = ref.current;
    if (!list || !ready || rows.length === 0) return;
    if (target?.kind === "present") {
      atBottom.current = true;
      positioned.current = true;
      setShowJump(false);
      scrollToEnd();
      timeline.takeScrollTarget();
      reportBottom();
      return;
    }
    if (target?.kind === "message") {
      const index = rows.findIndex((r) => r.kind === "message" && r.key === target.messageId);
      if (index === -1) return;
      atBottom.current = false;
      positioned.current = true;
      setShowJump(true);
      list.scrollToIndex(index, { align: "center" });
      timeline.takeScrollTarget();
      return;
    }
    // The first placing (the end of the window), and new messages while the reader is at the newest one.
    if (!positioned.current || (appended && atBottom.current && !hasNewer)) {
      scrollToEnd();
      positioned.current = true;
      reportBottom();
    }
  });

  // Sending a message brings the reader back to the newest one (loading it when the window is away from the present).
  useEffect(() => {
    if (stickSignal === 0) return;
    atBottom.current = true;
    setShowJump(false);
    void timeline.jumpToPresent();
  }, [stickSignal]);

  // A window shorter than the view: load more until the view is full or the history ends (both ways after a jump).
  useEffect(() => {
    const list = ref.current;
    if (!list || !ready || jumping) return;
    const short = list.scrollSize <= list.viewportSize + LOAD_OLDER_AT;
    if (short && hasOlder && !loadingOlder) void timeline.loadOlder();
    else if (short && hasNewer && !loadingNewer) void timeline.loadNewer();
  }, [ready, hasOlder, hasNewer, loadingOlder, loadingNewer, jumping, messages.length]);

  function onScroll(offset: number) {
    const list = ref.current;
    if (!list || !positioned.current) return;
    const fromEnd = list.scrollSize - (offset + list.viewportSize);
    const bottom = fromEnd <= AT_BOTTOM;
    const was = atBottom.current;
    atBottom.current = bottom;
    if (bottom === showJump) setShowJump(!bottom);
    if (bottom && !was) reportBottom();
    if (offset < LOAD_OLDER_AT && hasOlder && !loadingOlder) void timeline.loadOlder();
    if (fromEnd < LOAD_NEWER_AT && hasNewer && !loadingNewer) void timeline.loadNewer();
  }

  // A row that grows or shrinks after it was laid out (an image or embed loading late), or a
  // viewport that changes (the composer growing): a reader at the newest message stays there.
  function onResize() {
    if (timeline.scrollTarget.value) return;
    if (followsPresent()) return scrollToEnd();
    // A window that fits the view (a jump near the newest message) is at the bottom without any scroll.
    const list = ref.current;
    if (!list || !positioned.current || atBottom.current || list.viewportSize === 0) return;
    if (list.scrollSize - (list.scrollOffset + list.viewportSize) > AT_BOTTOM) return;
    atBottom.current = true;
    setShowJump(false);
    reportBottom();
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

  const highlighted = timeline.highlight.value;
  const shown = highlighted ? messages.find((m) => m.id === highlighted) : undefined;
  return (
    <div class="message-log">
      {(loadingOlder || loadingNewer || jumping) && (
        <div class={loadingNewer && !jumping ? "loading-older loading-newer" : "loading-older"} role="status">
          {jumping ? "Loading messages…" : loadingOlder ? "Loading older messages…" : "Loading newer messages…"}
        </div>
      )}
      {timeline.error.value && (
        <div class="message-log-error">
          <ErrorAlert message={timeline.error.value} />
        </div>
      )}
      <p class="visually-hidden" role="status">
        {shown ? `Showing the message from ${shown.username}, ${formatFullTime(shown.created_at)}` : ""}
      </p>
      {/* preact/compat's div attributes add their own `ref` type to VList's props: the handle ref is VList's. */}
      <VList ref={ref as never} class="message-scroller" role="log" aria-label="Messages" tabIndex={0} shift={shift} onScroll={onScroll} onResize={onResize} data={rows}>
        {(row: MessageRow) => {
          switch (row.kind) {
            case "intro":
              return <Intro key="intro" />;
            case "day":
              return (
                <div key={row.key} class="day-divider" role="separator" aria-label={row.label}>
                  <span aria-hidden="true">{row.label}</span>
                </div>
              );
            case "new":
              return (
                <div key={row.key} class="new-divider" role="separator" aria-label="New messages">
                  <span aria-hidden="true">New messages</span>
                </div>
              );
            case "message":
              return <MessageItem key={row.key} message={row.message} grouped={row.grouped} onReply={onReply} />;
          }
        }}
      </VList>
      {(showJump || hasNewer) && (
        <button
          type="button"
          class="jump"
          onClick={() => {
            atBottom.current = true;
            setShowJump(false);
            void timeline.jumpToPresent();
          }}
        >
          Jump to present <span aria-hidden="true">↓</span>
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
