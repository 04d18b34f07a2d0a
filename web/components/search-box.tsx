/**
 * The "Search" box of a place's header; in a server channel with the "Search in" choice of this
 * channel or the whole server. Enter runs the search (the panel shows the results), Escape closes it.
 */
import { useState } from "preact/hooks";
import { closeSearch, openSearch, runSearch, searchShownIn, type SearchScope } from "./search-panel.tsx";
import { usePlace } from "./place-context.ts";

export function SearchBox() {
  const place = usePlace();
  const open = openSearch.value;
  const shown = searchShownIn(open, place) ? open : null;
  const [query, setQuery] = useState(shown?.query ?? "");
  const [scope, setScope] = useState<SearchScope>(shown?.scope ?? "place");
  const inServer = place.place.kind === "channel" && place.server !== null;

  function run() {
    const q = query.trim();
    if (!q) return;
    runSearch({ query: q, scope: inServer ? scope : "place", placeKey: place.timeline.key, place: place.place, serverId: place.server?.id ?? null, userId: place.me.id });
  }

  return (
    <form
      class="search-box"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      {inServer && (
        <select aria-label="Search in" value={scope} onChange={(e) => setScope(e.currentTarget.value as SearchScope)}>
          <option value="place">This channel</option>
          <option value="server">Whole server</option>
        </select>
      )}
      <span class="search-input">
        <svg class="icon-svg" width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true" focusable="false">
          <path d="M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.3-4.3" />
        </svg>
        <input
          type="search"
          aria-label="Search"
          placeholder="Search"
          maxLength={200}
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape" && shown) {
              e.preventDefault();
              closeSearch();
            }
          }}
        />
      </span>
    </form>
  );
}
