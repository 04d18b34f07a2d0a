/**
 * The audit log (MANAGE_SERVER), newest first, filtered by action and by actor, a page at a
 * time: "Load older entries" asks for the entries after the last one shown (`before=<entry id>`,
 * docs/moderation.md), so no entry is skipped or repeated.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { AuditEntry } from "../../lib/wire-types.ts";
import { errorMessage } from "../../lib/api-errors.ts";
import { Avatar } from "../../components/avatar.tsx";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { formatFullTime, formatMessageTime } from "../../lib/format.ts";
import { AUDIT_ACTIONS } from "../../lib/shared-rules.ts";
import { actionLabel, changeLines, entrySubject } from "./audit-labels.ts";
import { rest } from "../../state/app-state.ts";
import type { SectionProps } from "./context.ts";

const PAGE = 25;

export function AuditLogSection({ server, state }: SectionProps) {
  const [action, setAction] = useState("");
  const [actorId, setActorId] = useState("");
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A page asked for under filters that have changed since is dropped.
  const generation = useRef(0);

  async function load(before?: string) {
    const mine = generation.current;
    setLoading(true);
    setError(null);
    try {
      const page = await rest.request("getAuditLog", { params: { id: server.id }, query: { limit: String(PAGE), before, action: action || undefined, actor_id: actorId || undefined } });
      if (mine !== generation.current) return;
      setEntries((current) => (before && current ? [...current, ...page.entries] : page.entries));
      setHasMore(page.hasMore);
    } catch (failure) {
      if (mine === generation.current) setError(errorMessage(failure));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }
  useEffect(() => {
    generation.current++;
    setEntries(null);
    setHasMore(false);
    void load();
  }, [server.id, action, actorId]);

  // Actors to filter by: the members the app knows (a large server's: those loaded), and anyone seen acting.
  const people = new Map((state.members.members.value ?? []).map((m) => [m.user_id, m.username]));
  for (const entry of entries ?? []) if (entry.actor_id && !people.has(entry.actor_id)) people.set(entry.actor_id, entry.actor_username ?? "a deleted account");
  const actors = [...people].sort((a, b) => a[1].localeCompare(b[1]));
  const sortedActions = [...AUDIT_ACTIONS].sort((a, b) => actionLabel(a).localeCompare(actionLabel(b)));
  return (
    <div class="settings-stack">
      <div class="field-row filters" role="group" aria-label="Filters">
        <label class="field">
          <span>Action</span>
          <select value={action} onChange={(e) => setAction(e.currentTarget.value)}>
            <option value="">All actions</option>
            {sortedActions.map((a) => (
              <option key={a} value={a}>
                {actionLabel(a)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Done by</span>
          <select value={actorId} onChange={(e) => setActorId(e.currentTarget.value)}>
            <option value="">Anyone</option>
            {actors.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorAlert message={error} />
      {entries === null && !error && <p class="muted" role="status">Loading the audit log…</p>}
      {entries?.length === 0 && <p class="empty">{action || actorId ? "No entries match these filters." : "Nothing has been recorded yet."}</p>}
      {entries && entries.length > 0 && (
        <ol class="settings-list audit-list" aria-label="Audit log entries, newest first">
          {entries.map((entry) => {
            const subject = entrySubject(entry);
            const lines = changeLines(entry);
            const actor = entry.actor_username ?? "A deleted account";
            return (
              <li key={entry.id} class="settings-row audit-entry" data-entry-id={entry.id}>
                <Avatar name={actor} src={entry.actor_avatar} size={32} />
                <div class="row-main">
                  <div class="row-title">
                    <strong>{actor}</strong>
                    <span class="audit-action">{actionLabel(entry.action)}</span>
                    {subject && <span class="audit-subject">{subject}</span>}
                  </div>
                  {lines.length > 0 && (
                    <details class="audit-details">
                      <summary>Details</summary>
                      <ul>
                        {lines.map((line, i) => (
                          <li key={i}>{line}</li>
                        ))}
                      </ul>
                    </details>
                  )}
                </div>
                <time class="muted small" dateTime={new Date(entry.created_at * 1000).toISOString()} title={formatFullTime(entry.created_at)}>
                  {formatMessageTime(entry.created_at)}
                </time>
              </li>
            );
          })}
        </ol>
      )}
      {hasMore && (
        <div class="actions center">
          <button type="button" class="secondary" disabled={loading} onClick={() => load(entries?.at(-1)?.id)}>
            {loading ? "Loading…" : "Load older entries"}
          </button>
        </div>
      )}
    </div>
  );
}
