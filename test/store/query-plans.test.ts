/**
 * The plans of the hot queries (docs/architecture.md, "Tests"): the member page, search, count
 * and one member, the friend search, the message pages (latest, before, after, around), the
 * channel list of a server, the read-state queries and the batches of the background deletes. Each statement is the repository's own
 * prepared statement (read from its private field, so the test follows the code), and a plan
 * fails when it reads a table that grows in full:
 *
 * - SQLite (`EXPLAIN QUERY PLAN`, the plan every call gets: Hearth runs no ANALYZE, so the plan
 *   does not depend on the data): `SCAN t`, with or without an index (walking a whole index is
 *   a full scan too);
 * - PostgreSQL: the generic plan (`plan_cache_mode = force_generic_plan`: the one a prepared
 *   statement switches to after its fifth call), over tables given rows and statistics (a plan
 *   for empty tables says little), with sequential scans, hash and merge joins disabled, as they
 *   win on small tables: what is left is whatever an index can serve, so a `Seq Scan`, an index
 *   scan without an index condition, or one whose condition lacks the index's first column (a
 *   walk of the whole index), means no index serves it;
 * - on both, an index range whose only condition is a column of a few values (`kind`, `type`)
 *   reads every row of that value: a full scan in all but name;
 * - a page (`keyset`: ordered, with a LIMIT) must come in the index's order: a sort would read
 *   every row that matches before the first is answered; so must a list read whole in an order
 *   at every call (`ordered`: a server's channels), which a sort would redo each time;
 * - where a query names the columns that must serve it (`served`), its table is read by an
 *   index condition on them (the whole key of one member, not all of the server's rows).
 *
 * Tables that do not grow with use (one row, or a row per setting) may be scanned.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database, Statement } from "../../src/store/database.ts";
import { orderedParams, toPostgresPlaceholders } from "../../src/store/postgres/placeholders.ts";
import { createStore, type Store } from "../../src/store/store.ts";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

/** Tables of a fixed size (a row per counter, per setting, per migration): a scan of them costs nothing more as Hearth is used. */
const FIXED_SIZE = new Set(["platform_counters", "access_version", "schema_migrations", "platform_settings"]);
/** Columns of a few values: an index range on them alone is as good as a scan. */
const FEW_VALUES = new Set(["kind", "type", "status", "is_bot", "is_default", "role", "muted", "target_type"]);

interface HotQuery {
  /** `Repo.field`, as named in the repository. */
  name: string;
  statement: Statement;
  /** Values as the repository passes them (PostgreSQL's EXECUTE needs them; the generic plan does not depend on them). */
  params: unknown[];
  /** A page: ordered, with a LIMIT, answered in the index's order. */
  keyset?: boolean;
  /** A list read whole at every call, in an order: answered in an index's order too, not sorted each time. */
  ordered?: boolean;
  /** Tables that must be read by an index condition on (at least) these columns. */
  served?: Record<string, string[]>;
}

const id = (n: number) => `01a20805-7d72-77cc-b541-${n.toString().padStart(12, "0")}`;
const [SERVER, USER, OTHER, CHANNEL, MESSAGE, DM] = [1, 2, 3, 4, 5, 6].map(id) as [string, string, string, string, string, string];

/**
 * The hot queries, each the statement a repository method runs (bracket access reaches the
 * private fields, and fails the typecheck when one is renamed or removed).
 */
function hotQueries(store: Store): HotQuery[] {
  const { members, servers, friends, messages, channels, readStates, applications, users, access } = store;
  const json = (list: string[]) => JSON.stringify(list);
  const ids = (list: string[]) => store.db.dialect.idList(list);
  return [
    // GET /servers/:id/members: the whole list (the spec's answer), a page, a search; Bot REST's one member.
    { name: "MembersRepo.listStmt", statement: members["listStmt"], params: [SERVER] },
    { name: "MembersRepo.memberRolesOfServer", statement: members["memberRolesOfServer"], params: [SERVER] },
    { name: "MembersRepo.pageStmt", statement: members["pageStmt"], params: [SERVER, USER, 100], keyset: true, served: { server_members: ["server_id", "user_id"], users: ["id"] } },
    { name: "MembersRepo.searchStmt", statement: members["searchStmt"], params: [SERVER, "ann", "anp", 100], keyset: true, served: { server_members: ["server_id", "username_lower"] } },
    { name: "MembersRepo.searchFromStmt", statement: members["searchFromStmt"], params: [SERVER, "\u{10FFFF}", 100], keyset: true, served: { server_members: ["server_id", "username_lower"] } },
    { name: "MembersRepo.rolesOfMembers", statement: members["rolesOfMembers"], params: [SERVER, ids([USER, OTHER])], served: { member_roles: ["server_id", "user_id"] } },
    // By the key or by the user's memberships (server_members_user): either reads one user's rows, never the server's.
    { name: "MembersRepo.oneStmt", statement: members["oneStmt"], params: [SERVER, USER], served: { server_members: ["user_id"], users: ["id"] } },
    { name: "MembersRepo.memberRoleIds", statement: members["memberRoleIds"], params: [SERVER, USER], served: { member_roles: ["server_id", "user_id"] } },
    // The channel list and a server-wide search: every override of the server's channels and categories at once.
    // Through the server's roles (a few), not its channels (up to 500).
    { name: "AccessRepo.serverChannelOverridesStmt", statement: access["serverChannelOverridesStmt"], params: [SERVER], served: { roles: ["server_id"], channel_overrides: ["role_id"] } },
    { name: "AccessRepo.serverCategoryOverridesStmt", statement: access["serverCategoryOverridesStmt"], params: [SERVER], served: { roles: ["server_id"], category_overrides: ["role_id"] } },
    // The member count: read with the server's row, kept by every add and remove.
    { name: "ServersRepo.byId", statement: servers["byId"], params: [SERVER], served: { servers: ["id"] } },
    { name: "ServersRepo.forUser", statement: servers["forUser"], params: [USER] },
    { name: "MembersRepo.insertStmt", statement: members["insertStmt"], params: [SERVER, USER, "member", 0, 1, USER] },
    { name: "MembersRepo.deleteStmt", statement: members["deleteStmt"], params: [SERVER, USER] },
    { name: "MembersRepo.countUp", statement: members["countUp"], params: [SERVER], served: { servers: ["id"] } },
    { name: "ApplicationsRepo.uncountBot", statement: applications["uncountBot"], params: [USER], served: { server_members: ["user_id"], servers: ["id"] } },
    { name: "UsersRepo.refreshMemberNames", statement: users["refreshMemberNames"], params: [USER], served: { server_members: ["user_id"] } },
    // GET /friends/search?q=: a whole username, regardless of case.
    { name: "FriendsRepo.searchStmt", statement: friends["searchStmt"], params: [{ me: USER, q: "ann" }], served: { users: ["username"] } },
    // GET /messages/:channelId: latest, before, after, around (older and newer halves), and the authors apart (SQLite).
    { name: "MessagesRepo.latestStmt", statement: messages["latestStmt"], params: [CHANNEL, 50], keyset: true, served: { messages: ["channel_id"] } },
    { name: "MessagesRepo.pageStmt", statement: messages["pageStmt"], params: [CHANNEL, MESSAGE, 50], keyset: true, served: { messages: ["channel_id", "id"] } },
    { name: "MessagesRepo.afterStmt", statement: messages["afterStmt"], params: [CHANNEL, MESSAGE, "g", 50], keyset: true, served: { messages: ["channel_id", "id"] } },
    { name: "MessagesRepo.newerOrSameStmt", statement: messages["newerOrSameStmt"], params: [CHANNEL, MESSAGE, 50], keyset: true, served: { messages: ["channel_id", "id"] } },
    { name: "MessagesRepo.authorsStmt", statement: messages["authorsStmt"], params: [json([USER])] },
    // GET /messages/:channelId/search and GET /servers/:id/search: each statement of the newest-first search.
    ...searchQueries(store),
    // The channel list of a server (every channel route, the server's sidebar, a reorder's answer),
    // and its places (a reorder's check, a server-wide search, joining every channel room): in
    // the channels' order, read whole at every call, so never sorted per call.
    { name: "ChannelsRepo.byServer", statement: channels["byServer"], params: [SERVER], ordered: true, served: { channels: ["server_id"] } },
    { name: "ChannelsRepo.placesByServer", statement: channels["placesByServer"], params: [SERVER], ordered: true, served: { channels: ["server_id"] } },
    // A server-wide search's channels with overrides (Access.channelScope): by id and by category, never the server's every channel.
    { name: "ChannelsRepo.placesAmongStmt", statement: channels["placesAmongStmt"], params: [ids([CHANNEL]), ids([id(8)])] },
    // A reorder with `Prefer: return=minimal`: the channels and categories it names, by id.
    { name: "ChannelsRepo.namedChannels", statement: channels["namedChannels"], params: [ids([CHANNEL])] },
    { name: "ChannelsRepo.namedCategories", statement: channels["namedCategories"], params: [ids([id(8)])] },
    // Read states: unread channels and DMs, mention counts, marking read, a message's mentions.
    { name: "ReadStatesRepo.unreadChannels", statement: readStates["unreadChannels"], params: [USER], served: { server_members: ["user_id"], channels: ["server_id"] } },
    { name: "ReadStatesRepo.mentionCounts", statement: readStates["mentionCounts"], params: [USER, USER, USER, USER, USER], served: { channel_mentions: ["kind", "target_id"] } },
    {
      name: "ReadStatesRepo.mentionCountInStmt",
      statement: readStates["mentionCountInStmt"],
      params: [USER, CHANNEL, USER, CHANNEL, USER, CHANNEL, USER, USER],
    },
    { name: "ReadStatesRepo.unreadDms", statement: readStates["unreadDms"], params: [USER] },
    { name: "ReadStatesRepo.markChannelStmt", statement: readStates["markChannelStmt"], params: [USER, CHANNEL, MESSAGE, 1] },
    { name: "ReadStatesRepo.channelRead", statement: readStates["channelRead"], params: [USER, CHANNEL] },
    { name: "ReadStatesRepo.markDmStmt", statement: readStates["markDmStmt"], params: [MESSAGE, DM, USER, MESSAGE] },
    { name: "ReadStatesRepo.dmRead", statement: readStates["dmRead"], params: [DM, USER] },
    { name: "ReadStatesRepo.deleteMentions", statement: readStates["deleteMentions"], params: [MESSAGE] },
    { name: "ReadStatesRepo.insertMention", statement: readStates["insertMention"], params: ["user", OTHER, MESSAGE, CHANNEL, USER] },
    // Background deletes (a server, a channel, a ban's recent messages): every batch by an index.
    ...deletionQueries(store),
  ];
}

/** The statements of a background delete's batches (store/deletions-repo.ts), each by the index of the key it deletes by. */
function deletionQueries(store: Store): HotQuery[] {
  const { deletions } = store;
  const ids = store.db.dialect.idList([MESSAGE, OTHER]);
  const batch = (name: string, key: string, batches: { table: string; statement: Statement<unknown, [string, number]> }[], column: string): HotQuery[] =>
    batches.map((b) => ({
      name: `DeletionsRepo.${name}.${b.table}`,
      statement: b.statement,
      params: [key, 1000],
      // invite_uses are found through their server's invites.
      served: b.table === "invite_uses" ? { invites: ["server_id"], invite_uses: ["invite_id"] } : { [b.table]: [column] },
    }));
  return [
    { name: "DeletionsRepo.hideServerChannels", statement: deletions["hideServerChannels"], params: [1, SERVER], served: { channels: ["server_id"] } },
    { name: "DeletionsRepo.claimStmt", statement: deletions["claimStmt"], params: [2, 1], served: { deletion_jobs: ["lease_until"] } },
    { name: "DeletionsRepo.firstChannel", statement: deletions["firstChannel"], params: [SERVER], served: { channels: ["server_id"] } },
    { name: "DeletionsRepo.channelMessages", statement: deletions["channelMessages"], params: [CHANNEL, 1000], keyset: true, served: { messages: ["channel_id"] } },
    { name: "DeletionsRepo.memberMessages", statement: deletions["memberMessages"], params: [USER, SERVER, 0, 1000], keyset: true, served: { messages: ["user_id", "server_id"] } },
    { name: "DeletionsRepo.messageFiles", statement: deletions["messageFiles"], params: [1, ids], served: { attachments: ["message_id"] } },
    { name: "DeletionsRepo.deleteMessages", statement: deletions["deleteMessages"], params: [ids], served: { messages: ["id"] } },
    ...batch("channelBatches", CHANNEL, deletions["channelBatches"], "channel_id"),
    ...batch("serverBatches", SERVER, deletions["serverBatches"], "server_id"),
    { name: "DeletionsRepo.deleteChannelStmt", statement: deletions["deleteChannelStmt"], params: [CHANNEL], served: { channels: ["id"] } },
    { name: "DeletionsRepo.deleteServerStmt", statement: deletions["deleteServerStmt"], params: [SERVER], served: { servers: ["id"] } },
  ];
}

/**
 * The newest-first search's statements (src/store/message-search.ts), for one channel, for
 * several and for a server (but a few channels). SQLite: FTS5 read by MATCH in rowid order,
 * messages by rowid, the checks by one range of (channel_id, id), of (server_id, id) for a
 * server, or of the rowids, and the fallback by MATCH; never a scan of messages (nor of the
 * server's channels: those being deleted come from channels_deleting).
 * PostgreSQL: the window along (channel_id, id) (the primary key for several channels,
 * (server_id, id) for a server) in the
 * generic plan a connection's sixth run gets; the text-index statement is checked in its own
 * test below, in the plan its settings give it.
 */
function searchQueries(store: Store): HotQuery[] {
  const scopes = store.messages.searcher["scopes"];
  const match = store.db.dialect.search.param(["word"]);
  const one = CHANNEL;
  const many = store.db.dialect.search.channelIds([CHANNEL, id(7)]);
  const server = store.db.dialect.search.serverScope(SERVER, [id(7)]);
  const queries: HotQuery[] = [];
  for (const [scope, channel] of [["channel", one], ["channels", many], ["server", server]] as const) {
    const sqlite = scopes[scope].sqlite;
    const postgres = scopes[scope].postgres;
    const name = (statement: string) => `MessageSearch.${scope}.${statement}`;
    if (sqlite) {
      queries.push(
        { name: name("newest"), statement: sqlite.newest, params: [match, channel, 25], keyset: true, served: { messages_fts: ["MATCH"], messages: ["rowid"] } },
        { name: name("newer"), statement: sqlite.newer, params: [channel, MESSAGE, 25_000], served: { messages: [scope === "server" ? "server_id" : "channel_id", "id"] } },
        { name: name("older"), statement: sqlite.older, params: [channel, MESSAGE, 1000, 25_000], served: { messages: ["rowid"] } },
        { name: name("all"), statement: sqlite.all, params: [match, channel, 25], served: { messages_fts: ["MATCH"], messages: ["rowid"] } },
        { name: name("top"), statement: sqlite.top, params: [] },
      );
    }
    if (postgres) {
      const walked = { channel: ["channel_id", "id"], channels: ["id"], server: ["server_id", "id"] }[scope];
      queries.push({ name: name("window"), statement: postgres.window, params: [["word"], channel, 25, 1000, "g"], served: { messages: walked } });
    }
  }
  return queries;
}

/** What is wrong with one step of a plan, or null. */
type Check = (step: PlanStep) => string | null;

/** One node of a plan, as both databases' plans are read here. */
interface PlanStep {
  /** The table read (resolved from its alias), or null for a subquery, a function, a sort. */
  table: string | null;
  /** The index read, when the plan names it and the index's first column is known (PostgreSQL). */
  leadingColumn: string | null;
  /** A full read of the table (a scan, or an index walked without a condition). */
  full: boolean;
  /** The columns of the index condition, when an index range is read. */
  conditionColumns: string[];
  /** The results are sorted (not read in an index's order). */
  sort: boolean;
  /** The plan's own words, for the failure message. */
  text: string;
}

function problemsOf(query: HotQuery, steps: PlanStep[], tables: Set<string>): string[] {
  const grows = (table: string | null) => table !== null && tables.has(table) && !FIXED_SIZE.has(table);
  const checks: Check[] = [
    (s) => (grows(s.table) && s.full ? `a full scan of ${s.table}` : null),
    (s) =>
      grows(s.table) && s.leadingColumn !== null && s.conditionColumns.length > 0 && !s.conditionColumns.includes(s.leadingColumn)
        ? `${s.table}'s index walked whole: its condition lacks the index's first column, ${s.leadingColumn}`
        : null,
    (s) =>
      grows(s.table) && s.conditionColumns.length > 0 && s.conditionColumns.every((c) => FEW_VALUES.has(c))
        ? `${s.table} read by ${s.conditionColumns.join(", ")} alone (a column of a few values)`
        : null,
    (s) => (query.keyset && s.sort ? "a sort: the page is not read in an index's order" : null),
    (s) => (query.ordered && s.sort ? "a sort: the list is not read in an index's order" : null),
  ];
  const problems = steps.flatMap((step) => checks.map((check) => check(step)).filter((p): p is string => p !== null).map((p) => `${p}: ${step.text}`));
  for (const [table, columns] of Object.entries(query.served ?? {})) {
    const servedBy = steps.some((step) => step.table === table && columns.every((c) => step.conditionColumns.includes(c)));
    if (!servedBy) problems.push(`${table} is not read by an index condition on ${columns.join(", ")}`);
  }
  return problems;
}

/** `alias -> table` of a statement's FROM and JOIN clauses (SQLite's plans name the alias). */
function aliases(sql: string): Map<string, string> {
  const map = new Map<string, string>();
  const keywords = new Set(["WHERE", "ON", "JOIN", "LEFT", "CROSS", "INNER", "ORDER", "GROUP", "LIMIT", "USING", "SET", "VALUES", "UNION", "AND", "RETURNING"]);
  for (const match of sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    const table = match[1]!;
    map.set(table, table);
    const alias = match[2];
    if (alias && !keywords.has(alias.toUpperCase())) map.set(alias, table);
  }
  return map;
}

/** SQLite: each line of `EXPLAIN QUERY PLAN` (a SEARCH always uses its index's leading columns). */
async function sqlitePlan(db: Database, query: HotQuery): Promise<PlanStep[]> {
  const rows = await db.all(db.prepare<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${query.statement.sql}`));
  const names = aliases(query.statement.sql);
  return rows.map(({ detail }) => {
    const access = /^(SCAN|SEARCH) (\w+)/.exec(detail);
    const condition = /\((.*)\)\s*(LEFT-JOIN)?$/.exec(detail)?.[1] ?? "";
    // FTS5's plan: `SCAN f VIRTUAL TABLE INDEX <flags>:<constraints>`, an `M` among them for a
    // MATCH (a read of the terms' doclists, not of every row); without one, the whole index.
    const fts = /VIRTUAL TABLE INDEX \d+:(\S*)/.exec(detail);
    const matched = fts !== null && fts[1]!.includes("M");
    return {
      table: access ? (names.get(access[2]!) ?? access[2]!) : null,
      leadingColumn: null,
      full: access?.[1] === "SCAN" && !matched,
      conditionColumns: matched ? ["MATCH"] : access?.[1] === "SEARCH" ? condition.split(" AND ").map((c) => /^(\w+)/.exec(c)?.[1] ?? c) : [],
      sort: /USE TEMP B-TREE FOR (RIGHT PART OF |LAST \d+ TERMS OF )?ORDER BY/.test(detail),
      text: detail,
    };
  });
}

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  Alias?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PgNode[];
}

/** SQL literal of a parameter value, for PostgreSQL's EXECUTE. */
const literal = (value: unknown): string =>
  value === null
    ? "NULL"
    : typeof value === "number"
      ? String(value)
      : Array.isArray(value)
        ? `ARRAY[${value.map(literal).join(", ")}]::text[]`
        : `'${String(value).replaceAll("'", "''")}'`;

/** Each index's first column (null for an expression), by index name. */
async function leadingColumns(db: Database): Promise<Map<string, string | null>> {
  const rows = await db.all(
    db.prepare<{ index: string; column: string | null }, []>(
      `SELECT c.relname AS index, a.attname AS column FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
         LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]`,
    ),
  );
  return new Map(rows.map((r) => [r.index, r.column]));
}

/**
 * PostgreSQL: the generic plan of the statement as the repository prepared it, with what only
 * wins on small tables turned off (see the file's comment), every node flattened.
 */
async function postgresPlan(db: Database, query: HotQuery, leading: Map<string, string | null>): Promise<PlanStep[]> {
  const { text, names } = toPostgresPlaceholders(query.statement.sql);
  const values = orderedParams(names, query.params, query.statement.sql);
  const plan = await db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off;
      SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_sort = off`);
    await tx.exec(`PREPARE hearth_plan AS ${text}`);
    try {
      const rows = await tx.all(db.prepare<{ "QUERY PLAN": string }, []>(`EXPLAIN (FORMAT JSON) EXECUTE hearth_plan(${values.map(literal).join(", ")})`));
      return (JSON.parse(rows[0]!["QUERY PLAN"]) as { Plan: PgNode }[])[0]!.Plan;
    } finally {
      await tx.exec("DEALLOCATE hearth_plan");
    }
  });
  const steps: PlanStep[] = [];
  // `table` for a Bitmap Index Scan is its Bitmap Heap Scan's: it reads that table's index.
  const visit = (node: PgNode, heap: string | null) => {
    const type = node["Node Type"];
    const table = node["Relation Name"] ?? (type === "Bitmap Index Scan" ? heap : null);
    const condition = node["Index Cond"] ?? "";
    const index = node["Index Name"] ?? null;
    steps.push({
      table,
      leadingColumn: index === null ? null : (leading.get(index) ?? null),
      // The heap scan of a bitmap reads what its index scan found: that child is judged.
      full: type === "Seq Scan" || (index !== null && table !== null && condition === ""),
      conditionColumns: conditionColumns(condition),
      sort: type === "Sort" || type === "Incremental Sort",
      text: `${type}${table ? ` on ${table}${node.Alias && node.Alias !== table ? ` ${node.Alias}` : ""}` : ""}${index ? ` using ${index}` : ""}${condition ? ` ${condition}` : ""}`,
    });
    for (const child of node.Plans ?? []) visit(child, type === "Bitmap Heap Scan" ? (node["Relation Name"] ?? null) : heap);
  };
  visit(plan, null);
  return steps;
}

/**
 * The columns an Index Cond compares: `((kind = 'user'::text) AND ((target_id)::text = $1))`
 * names kind and target_id (casts and the parentheses around a column dropped first).
 */
function conditionColumns(condition: string): string[] {
  const plain = condition.replace(/::[a-z_ ]+?(\[\])?(?=[)\s=<>!~,])/gi, "").replace(/\((\w+(?:\.\w+)?)\)/g, "$1");
  return [...plain.matchAll(/(?:^|[(\s])(?:\w+\.)?(\w+)\s*(?:=|<|>|<=|>=|~)/g)].map((m) => m[1]!);
}

/** Tables given rows for PostgreSQL's statistics: those the hot queries read. */
const FILLED = [
  "users", "servers", "server_members", "roles", "member_roles", "categories", "channels", "messages", "channel_mentions",
  "channel_read_states", "channel_last_messages", "conversations", "conversation_members", "friendships",
  "attachments", "bans", "audit_log", "invites", "invite_uses", "interactions", "commands", "webhooks", "emojis", "server_gifs",
  "soundboard_sounds", "deletion_jobs", "deletion_files",
];
/** Rows per table, and how many share a value of a column that is not unique (a server's members, ...). */
const ROWS = 10_000;
const FAN_OUT = 50;
/** Columns whose values a CHECK limits, or whose few values matter to the plans. */
const VALUES: Record<string, string> = {
  "channels.type": "'text'",
  "conversations.type": "(ARRAY['dm', 'group'])[1 + g % 2]",
  "friendships.status": "'accepted'",
  "server_gifs.kind": "'gif'",
  "deletion_jobs.kind": "'server'",
  "channel_mentions.kind": "(ARRAY['user', 'role', 'everyone'])[1 + g % 3]",
  // Role assignments concentrate in big servers: with FAN_OUT per server, reading a server's
  // whole list and filtering the users looks as cheap as the key, once VACUUM has set the
  // visibility map (an index-only scan), and that plan would read 100k rows in a big server.
  "member_roles.server_id": "'x' || lpad((g % 5)::text, 10, '0')",
};

/**
 * Gives the tables the hot queries read ROWS rows each, so PostgreSQL plans them as a used
 * database's statistics would have it (on empty tables it takes any condition for a selective
 * one). The rows exist for the statistics only: foreign keys and triggers are off while they
 * are written (`session_replication_role = replica`). Every column that must have a value gets
 * one: a column of a unique index a value of its own (but the first of a key of several, whose
 * values repeat, as a server's id repeats in its memberships), any other `FAN_OUT` rows per
 * value; ids are numbered in one sequence (`friendships` wants `user_low < user_high`).
 */
async function fillForStatistics(db: Database): Promise<void> {
  const columns = await db.all(
    db.prepare<{ table_name: string; column_name: string; data_type: string; needed: number; unique_position: number | null }, []>(
      `SELECT c.table_name, c.column_name, c.data_type,
         CASE WHEN c.is_nullable = 'NO' AND c.column_default IS NULL THEN 1 ELSE 0 END AS needed,
         (SELECT min(array_position(i.indkey::int2[], a.attnum)) FROM pg_index i
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attname = c.column_name
            WHERE i.indrelid = to_regclass(c.table_name) AND i.indisunique AND i.indnatts > 0) AS unique_position
       FROM information_schema.columns c WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
    ),
  );
  const keyWidth = async (table: string) =>
    (await db.get(db.prepare<{ n: number }, [string]>("SELECT max(indnatts) AS n FROM pg_index WHERE indrelid = to_regclass(?) AND indisprimary"), table))?.n ?? 1;
  const id = (expression: string) => `'x' || lpad((${expression})::text, 10, '0')`;
  await db.transaction(async (tx) => {
    await tx.exec("SET LOCAL session_replication_role = replica");
    for (const table of FILLED) {
      const width = await keyWidth(table);
      const filled = columns.filter((c) => c.table_name === table && (c.needed === 1 || c.unique_position !== null));
      const values = filled.map((c) => {
        const given = VALUES[`${table}.${c.column_name}`];
        if (given) return given;
        // indkey is an int2vector, subscripted from 0: the key's first column is at 0.
        const unique = c.unique_position !== null && !(width > 1 && c.unique_position === 0);
        // Flags (smallint, 0 or 1), times, positions: 0 unless unique.
        if (c.data_type === "smallint") return "0";
        if (/int|numeric/.test(c.data_type)) return unique ? "g" : "0";
        return unique ? id(`${ROWS} + g`) : id(`g % ${ROWS / FAN_OUT}`);
      });
      await tx.exec(
        `INSERT INTO ${table} (${filled.map((c) => c.column_name).join(", ")}) SELECT ${values.join(", ")} FROM generate_series(1, ${ROWS}) AS g`,
      );
    }
  });
  // VACUUM too: autovacuum sets the visibility map sooner or later, and index-only scans change the plans.
  await db.exec(`VACUUM ANALYZE ${FILLED.join(", ")}`);
}

let database: TestDatabase;
let store: Store;
let tables: Set<string>;
let leading = new Map<string, string | null>();
beforeAll(async () => {
  database = await freshDatabase();
  store = await createStore(database.location, crypto.getRandomValues(new Uint8Array(32)));
  tables = new Set(await store.db.tables());
  if (store.db.dialect.name === "postgres") {
    await fillForStatistics(store.db);
    leading = await leadingColumns(store.db);
  }
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

const planOf = (query: HotQuery) => (store.db.dialect.name === "sqlite" ? sqlitePlan(store.db, query) : postgresPlan(store.db, query, leading));

describe("the hot queries' plans read no table that grows in full", () => {
  test("none scans, and each is served by the index it names", async () => {
    const failures: string[] = [];
    for (const query of hotQueries(store)) {
      const steps = await planOf(query);
      // An INSERT of values has no plan on SQLite (its conflict check is the key's own lookup).
      if (steps.length === 0 && !/^\s*INSERT\b/i.test(query.statement.sql)) failures.push(`${query.name}: no plan`);
      for (const problem of problemsOf(query, steps, tables)) failures.push(`${query.name}: ${problem}`);
      // `PRINT_PLANS=1 bun test test/store/query-plans.test.ts` shows them all.
      if (process.env.PRINT_PLANS) console.log(`${query.name}\n${steps.map((step) => `  ${step.text}`).join("\n")}`);
    }
    expect(failures).toEqual([]);
  });

  test("the checks themselves: a scan, a range of a few values, a page's or a list's sort and a table not served as named all fail", async () => {
    const db = store.db;
    const probe = (name: string, sql: string, more: Partial<HotQuery> = {}): HotQuery => ({ name, statement: db.prepare(sql), params: [USER], ...more });
    const bad = [
      probe("scan", "SELECT * FROM messages WHERE content = ?"),
      probe("few values", "SELECT * FROM channel_mentions WHERE kind = 'role' AND author_id = ?"),
      probe("sort", "SELECT * FROM server_members WHERE server_id = ? ORDER BY joined_at LIMIT 10", { keyset: true }),
      probe("sorted list", "SELECT * FROM server_members WHERE server_id = ? ORDER BY joined_at", { ordered: true }),
      probe("not served", "SELECT * FROM server_members WHERE server_id = ?", { served: { server_members: ["server_id", "user_id"] } }),
    ];
    // SQLite: FTS5 walked without a MATCH reads the whole index.
    if (db.dialect.name === "sqlite") bad.push(probe("fts without match", "SELECT rowid FROM messages_fts WHERE rowid > ? ORDER BY rowid DESC LIMIT 10"));
    for (const query of bad) {
      const problems = problemsOf(query, await planOf(query), tables);
      expect({ query: query.name, failed: problems.length > 0 }).toEqual({ query: query.name, failed: true });
    }
  });
});

/**
 * PostgreSQL: the search's read of the text index (`MessageSearch`'s `rest`: the matches below
 * the newest messages walked) keeps a plan that reads `messages_search` first, from its sixth run
 * on a connection on, when a prepared statement may switch to a generic plan that knows neither
 * the channel's size nor the words (one that walks the channel through (channel_id, id) and
 * tokenizes each message: 50 s for a rare word in a channel of a million messages). Over a
 * database of many small channels and one of 20,000 messages, analyzed.
 */
describe.skipIf(!onPostgres)("PostgreSQL: the search's text-index read from a connection's sixth run on", () => {
  let big: TestDatabase;
  let bigStore: Store;
  let channelIds: string[] = [];
  let serverId = "";
  beforeAll(async () => {
    big = await freshDatabase();
    // One connection: every statement of this store runs on it, so its runs are that connection's.
    bigStore = await createStore(`${big.location}?max=1`, crypto.getRandomValues(new Uint8Array(32)));
    const user = await bigStore.users.create({ username: "plans", email: "plans@example.test", passwordHash: "x", isBot: false });
    if (!user.ok) throw new Error("user");
    const server = await bigStore.servers.create(
      { ownerId: user.user.id, name: "plans", description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: "plans" },
      Number.POSITIVE_INFINITY,
    );
    serverId = server!.id;
    for (let i = 0; i < 2; i++) {
      const channel = await bigStore.channels.create(
        { serverId: server!.id, name: `c${i}`, type: "text", categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: true },
        Number.POSITIVE_INFINITY,
      );
      channelIds.push(channel!.id);
    }
    await bigStore.db.transaction(async (tx) => {
      // Rows for the plans: no triggers or foreign keys while they are written (as fillForStatistics).
      await tx.exec("SET LOCAL session_replication_role = replica");
      const add = bigStore.db.prepare<unknown, [string, string, string, string, number, number]>(
        `INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
         SELECT ?1 || lpad(to_hex(g), 12, '0'), ?2, ?3, ?4,
           'message ' || g || CASE WHEN g % 5 = 0 THEN ' fifth' ELSE '' END || CASE WHEN g % 4000 = 7 THEN ' zyzzyva' ELSE '' END || ' hearth', 0
         FROM generate_series(?5::int, ?6::int) AS g`,
      );
      // 400 small channels of 25 messages (no channel rows: the plans need their statistics only), then the big one.
      await tx.exec(
        `INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
         SELECT '01a20805-0000-7000-8000-' || lpad(to_hex(g), 12, '0'), 'small-' || (g % 400), 'small', 'small', 'small talk ' || g, 0
         FROM generate_series(1, 10000) AS g`,
      );
      await tx.run(add, "01a20806-0000-7000-8000-", channelIds[0]!, server!.id, user.user.id, 1, 20_000);
      await tx.run(add, "01a20807-0000-7000-8000-", channelIds[1]!, server!.id, user.user.id, 1, 200);
    });
    await bigStore.db.exec("ANALYZE messages");
  });
  afterAll(async () => {
    await bigStore.close();
    await big.drop();
  });

  /** The plan's nodes, each as "<type> [on <table>] [using <index>]". */
  const nodes = (plan: PgNode): string[] => {
    const out: string[] = [];
    const visit = (node: PgNode) => {
      out.push(`${node["Node Type"]}${node["Relation Name"] ? ` on ${node["Relation Name"]}` : ""}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}`);
      for (const child of node.Plans ?? []) visit(child);
    };
    visit(plan);
    return out;
  };

  test("EXPLAIN of its seventh run, one channel, several and a server: the rare word is read from messages_search first", async () => {
    const db = bigStore.db;
    const settings = db.dialect.search.newestFirst.kind === "window" ? db.dialect.search.newestFirst.restSettings : "";
    for (const scope of ["channel", "channels", "server"] as const) {
      const rest = bigStore.messages.searcher["scopes"][scope].postgres!.rest;
      const { text, names } = toPostgresPlaceholders(rest.sql);
      const channel = scope === "channel" ? channelIds[0]! : scope === "channels" ? channelIds : db.dialect.search.serverScope(serverId, [channelIds[1]!]);
      const values = orderedParams(names, [["zyzzyva"], channel, 25, "g"], rest.sql).map(literal).join(", ");
      const plan = await db.transaction(async (tx) => {
        await tx.exec(settings);
        await tx.exec(`PREPARE hearth_rest AS ${text}`);
        try {
          // Past the five custom plans after which PostgreSQL may keep a generic one.
          for (let i = 0; i < 6; i++) await tx.exec(`EXECUTE hearth_rest(${values})`);
          const rows = await tx.all(db.prepare<{ "QUERY PLAN": string }, []>(`EXPLAIN (FORMAT JSON) EXECUTE hearth_rest(${values})`));
          return (JSON.parse(rows[0]!["QUERY PLAN"]) as { Plan: PgNode }[])[0]!.Plan;
        } finally {
          await tx.exec("DEALLOCATE hearth_rest");
        }
      });
      const steps = nodes(plan);
      if (process.env.PRINT_PLANS) console.log(`MessageSearch.${scope}.rest\n${steps.map((step) => `  ${step}`).join("\n")}`);
      expect({ scope, readsTextIndex: steps.includes("Bitmap Index Scan using messages_search") }).toEqual({ scope, readsTextIndex: true });
      // The channel (or the server) is never walked to tokenize its messages.
      expect(steps.filter((step) => /Index (Only )?Scan( Backward)? on messages using messages_(channel|server)/.test(step))).toEqual([]);
    }
  });

  test("the repository's own searches get a plan for their values every time (none generic), and answer the rare word", async () => {
    for (let i = 0; i < 8; i++) {
      const found = await bigStore.messages.search(channelIds[0]!, ["zyzzyva"], 25);
      expect(found.length).toBe(5);
    }
    const statements = await bigStore.db.all(
      bigStore.db.prepare<{ generic_plans: number; custom_plans: number }, []>(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%WITH hits AS MATERIALIZED%'",
      ),
    );
    expect(statements.length).toBe(1);
    expect(statements[0]!.generic_plans).toBe(0);
    expect(statements[0]!.custom_plans).toBeGreaterThanOrEqual(8);
  });
});
