/**
 * Message search: the search that is open (one at a time, kept while the reader moves to another
 * channel of the same server, so a whole-server search survives choosing a result elsewhere) and
 * the panel beside the log that runs it and lists the results, newest first. Choosing a result
 * jumps to the message, in this place or, for another channel of the server, there.
 */
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import { errorMessage } from "../lib/api-errors.ts";
import type { Message } from "../lib/wire-types.ts";
import { channelLabel } from "../lib/format.ts";
import { rest, store } from "../state/app-state.ts";
import { searchMessages, type MessagePlace } from "../state/place-requests.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { Icon } from "./icons.tsx";
import { MessageSummary } from "./message-summary.tsx";
import { usePlace, type PlaceContextValue } from "./place-context.ts";

/** Results asked for at once (the routes allow 1-100). */
const RESULT_LIMIT = 50;

export type SearchScope = "place" | "server";

export interface SearchRequest {
  query: string;
  scope: SearchScope;
  /** Where it was run: the place (its timeline key and routes) and its server, if any. */
  placeKey: string;
  place: MessagePlace;
  serverId: string | null;
  /** Who ran it: another session in the same tab (after logging out) never sees it. */
  userId: string;
  /** Bumped by each run, so the same words asked again are searched again. */
  seq: number;
}

/** The open search, or null. */
export const openSearch = signal<SearchRequest | null>(null);

/** Whether the open search belongs in this place's panel: its own, or a whole-server search of its server. */
export function searchShownIn(request: SearchRequest | null, value: PlaceContextValue): request is SearchRequest {
  if (!request || request.userId !== value.me.id) return false;
  if (request.placeKey === value.timeline.key) return true;
  return request.scope === "server" && request.serverId !== null && request.serverId === (value.server?.id ?? null);
}

let runs = 0;
export function runSearch(request: Omit<SearchRequest, "seq">): void {
  openSearch.value = { ...request, seq: ++runs };
}

export function closeSearch(): void {
  openSearch.value = null;
}

function search(request: SearchRequest): Promise<Message[]> {
  if (request.scope === "server" && request.serverId) {
    return rest.request("searchServerMessages", { params: { id: request.serverId }, query: { q: request.query, limit: RESULT_LIMIT } });
  }
  return searchMessages(rest, request.place, request.query, RESULT_LIMIT);
}

/** The answer of the last run, so the panel of the channel a result led to shows it without asking again. */
let lastAnswer: { seq: number; results: Message[] } | null = null;

export function SearchPanel({ request, onClose }: { request: SearchRequest; onClose: () => void }) {
  const place = usePlace();
  const { route } = useLocation();
  const kept = lastAnswer?.seq === request.seq ? lastAnswer.results : null;
  const [results, setResults] = useState<Message[] | null>(kept);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (lastAnswer?.seq === request.seq) {
      setResults(lastAnswer.results);
      return;
    }
    let current = true;
    setResults(null);
    setError(null);
    search(request).then(
      (found) => {
        lastAnswer = { seq: request.seq, results: found };
        if (current) setResults(found);
      },
      (failure) => current && setError(errorMessage(failure)),
    );
    return () => {
      current = false;
    };
  }, [request.seq]);

  const here = place.timeline.key;
  function choose(message: Message) {
    const placeOfMessage = message.conversation_id ?? message.channel_id;
    if (placeOfMessage === here) return void place.timeline.jumpTo(message.id);
    const server = place.server;
    const channel = server?.channels.value?.find((c) => c.id === message.channel_id);
    if (!server || !channel) return setError("That channel is no longer visible to you.");
    // The other channel's timeline loads the page around the message; the log shows it once the channel is open.
    void store.channelTimeline(channel).jumpTo(message.id);
    route(`/channels/${server.id}/${channel.id}`);
  }

  const count = results?.length ?? 0;
  return (
    <aside
      class="side-panel search-panel"
      aria-label="Message search"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <header class="side-panel-header">
        <h2>Search</h2>
        <button type="button" class="icon" aria-label="Close search results" title="Close search results" onClick={onClose}>
          <Icon name="close" />
        </button>
      </header>
      <p class="search-summary muted" role="status">
        {error ? "" : results === null ? "Searching…" : count === 0 ? "No results" : `${count}${count === RESULT_LIMIT ? "+" : ""} result${count === 1 ? "" : "s"} for “${request.query}”`}
      </p>
      <ErrorAlert message={error} />
      <ul class="search-results" role="list" aria-label="Search results">
        {results?.map((m) => {
          const channel = request.scope === "server" ? place.channelOf(m.channel_id) : undefined;
          return <MessageSummary key={m.id} message={m} where={channel && channelLabel(channel)} onJump={() => choose(m)} />;
        })}
      </ul>
    </aside>
  );
}
