import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Message } from "../lib/wire-types.ts";
import type { CannotSend } from "../lib/permissions.ts";
import { Composer } from "./composer.tsx";
import { ComposerNotice } from "./composer-notice.tsx";
import { MessageList } from "./message-list.tsx";
import { PinsPanel } from "./pins-panel.tsx";
import { PlaceContext, type PlaceContextValue } from "./place-context.ts";
import { SearchBox } from "./search-box.tsx";
import { closeSearch, openSearch, SearchPanel, searchShownIn } from "./search-panel.tsx";
import { TypingIndicator } from "./typing-indicator.tsx";
import { Icon } from "./icons.tsx";
import { NavOpener } from "./nav-drawer.tsx";

/**
 * A place's main column (a channel or a DM): its header (with the search box), the message log,
 * who is typing, the composer, and one side panel at a time (pinned messages or search results).
 */
export function PlaceView({ value, title, topic, tools, cannotSend = null, above, chat = true, newMessagesAfter, onReachedBottom }: {
  value: PlaceContextValue;
  title: ComponentChildren;
  topic?: string | null;
  tools?: ComponentChildren;
  /** Why the reader may not send here (the composer's place says so), or null. */
  cannotSend?: CannotSend | null;
  /** Shown above the messages (a voice channel's room). */
  above?: ComponentChildren;
  /** False: no messages at all (a voice channel with its text chat off). */
  chat?: boolean;
  /** The "New messages" divider goes above the first loaded message with a greater id (MessageList). */
  newMessagesAfter?: string | null;
  /** The reader is at the bottom of the present (MessageList). */
  onReachedBottom?: () => void;
}) {
  const [replyTo, setReplyTo] = useState<Message | null>(null);
  const [showPins, setShowPins] = useState(false);
  const [stick, setStick] = useState(0);
  const isChannel = value.place.kind === "channel";
  const search = openSearch.value;
  const searching = chat && searchShownIn(search, value);
  // A search that opens takes the side panel's place from the pins.
  useEffect(() => {
    if (searching) setShowPins(false);
  }, [searching, search?.seq]);
  return (
    <PlaceContext.Provider value={value}>
      <main class="place" aria-label={value.label}>
        <header class="place-header">
          <NavOpener />
          <h1>{title}</h1>
          {topic && <p class="topic" title={topic}>{topic}</p>}
          <div class="place-tools">
            {isChannel && chat && (
              <button
                type="button"
                class="tool"
                aria-pressed={showPins}
                onClick={() => {
                  if (searching) closeSearch();
                  setShowPins(searching || !showPins);
                }}
              >
                <Icon name="pin" size={16} /> <span class="tool-label">Pinned messages</span>
              </button>
            )}
            {tools}
            {chat && <SearchBox key={value.timeline.key} />}
          </div>
        </header>
        <div class="place-body">
          <div class={chat ? "place-main" : "place-main voice-only"}>
            {above}
            {chat && <MessageList onReply={setReplyTo} stickSignal={stick} newMessagesAfter={newMessagesAfter} onReachedBottom={onReachedBottom} />}
            {chat && <TypingIndicator />}
            {cannotSend ? (
              <ComposerNotice reason={cannotSend} />
            ) : (
              chat && <Composer replyTo={replyTo} onCancelReply={() => setReplyTo(null)} onSent={() => setStick((n) => n + 1)} />
            )}
          </div>
          {searching ? <SearchPanel request={search} onClose={closeSearch} /> : showPins && <PinsPanel onClose={() => setShowPins(false)} />}
        </div>
      </main>
    </PlaceContext.Provider>
  );
}
