/**
 * The newest-first channel search (src/store/message-search.ts) on both stores: every answer is
 * the `limit` newest messages by id holding every word, the same as reading every match and
 * sorting them, whichever way the search took to get there (SQLite: the first matches by rowid,
 * checked on either side, or every match sorted; PostgreSQL: one window of the newest messages,
 * two, or the text index below them). The words are laid out to cross each bound: only in old
 * messages, only in new ones, in both, in the middle, at exactly the edge of a window or a check,
 * rare, common; limits from 1 to more than the matches; one channel, several, and a server but
 * some of its channels; and rows whose
 * rowid order is not their id order (an imported message). Search has no cursor (`q` and
 * `limit` only: docs/messages.md), so "paging" here is the limit: a smaller limit's answer is
 * the start of a larger one's.
 *
 *   bun test test/store/search.test.ts; bun scripts/test-postgres.ts test/store/search.test.ts
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_EVERYONE_PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { CHECK_SPAN_PER_RESULT, SECOND_WINDOW_MAX_PER_RESULT, WINDOW_PER_RESULT, type SearchAnswer } from "../../src/store/message-search.ts";
import { createStore, type Store } from "../../src/store/store.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

/** Messages of the ordered channel, oldest first. */
const N = 3000;

interface Stored {
  id: string;
  channel: string;
  content: string;
}

/** Message ids in insertion order, as UUIDv7s made one after another would be: `n` orders them. */
const idOf = (n: number) => `01a20805-7d72-77cc-b541-${n.toString(16).padStart(12, "0")}`;

/**
 * The words of message `i` (1 = the oldest) of the ordered channel. `edge<d>` sits on the
 * message with exactly `d` newer messages in its channel: at a window's end or a check's span
 * for limits 1 to 3 (PostgreSQL's first window: 10, 20, 30 messages; after one match in it, a
 * second one below it, to 60 for limit 2 and 150 for limit 3; SQLite's check: 1,000, 2,000).
 */
const EDGES = [9, 10, 11, 19, 20, 21, 29, 30, 31, 59, 60, 61, 149, 150, 151, 249, 250, 999, 1000, 1001, 1500, 1999, 2000, 2001];
/**
 * `pair<d>`: words on a window's lowest message (`d` newer messages) and on older ones, so the
 * next read starts right below a match: the first window's end for limit 2 (19), the second's
 * for limit 3 (149, with one match in the first window), the first's for limit 25 (249, too
 * few in it for a second window); `pair40` is found by the second window for limit 2.
 */
const PAIRS: Record<string, number[]> = { pair19: [19, 2500], pair149: [5, 149, 2500], pair249: [249, 1500, 2500], pair40: [5, 40] };
function wordsOf(i: number): string[] {
  const words = ["every", `w${i % 7}`];
  if (i % 5 === 0) words.push("fifth");
  if (i % 100 === 0) words.push("hundredth");
  if (i % 250 === 0) words.push("sparse");
  if ([7, 1500, 2990].includes(i)) words.push("few");
  if (i <= 150) words.push("old");
  if (i > N - 150) words.push("new");
  if (i <= 50 || i > N - 50) words.push("ends");
  if (i > 1400 && i <= 1500) words.push("middle");
  for (const d of EDGES) if (i === N - d) words.push(`edge${d}`);
  for (const [word, ds] of Object.entries(PAIRS)) if (ds.includes(N - i)) words.push(word);
  return words;
}

let database: TestDatabase;
let store: Store;
let serverId: string;
let authorId: string;
/** Ordered (`ordered`), interleaved with it (`other`), short (`small`), and rows out of order (`mixed`). */
const channels: Record<"ordered" | "other" | "small" | "mixed", string> = { ordered: "", other: "", small: "", mixed: "" };
/** Every stored message, in insertion (rowid) order. */
const stored: Stored[] = [];

/** Inserts `rows` in this order, 500 to a statement, as one bulk statement of generated rows. */
async function insert(rows: Stored[]): Promise<void> {
  const sqlite = store.db.dialect.name === "sqlite";
  const statement = store.db.prepare<unknown, [string, string, string, number]>(
    sqlite
      ? `INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
         SELECT value ->> 'id', value ->> 'channel', ?2, ?3, value ->> 'content', ?4 FROM json_each(?1) ORDER BY key`
      : `INSERT INTO messages (id, channel_id, server_id, user_id, content, created_at)
         SELECT r.value ->> 'id', r.value ->> 'channel', ?2, ?3, r.value ->> 'content', CAST(?4 AS bigint)
         FROM json_array_elements(CAST(CAST(?1 AS text) AS json)) WITH ORDINALITY AS r (value, n) ORDER BY r.n`,
  );
  for (let at = 0; at < rows.length; at += 500) {
    await store.db.run(statement, JSON.stringify(rows.slice(at, at + 500)), serverId, authorId, 1_700_000_000);
  }
  stored.push(...rows);
  // Written around the store's own insert: the SQLite backlog is told (the INSERT's trigger noted the rows).
  store.messages.searchBacklog.added();
}

beforeAll(async () => {
  database = await freshDatabase();
  store = await createStore(database.location, crypto.getRandomValues(new Uint8Array(32)));
  const author = await store.users.create({ username: "searcher", email: "searcher@example.test", passwordHash: "x", isBot: false });
  if (!author.ok) throw new Error("user");
  authorId = author.user.id;
  const server = await store.servers.create(
    { ownerId: authorId, name: "search", description: "", everyonePermissions: DEFAULT_EVERYONE_PERMISSIONS, primaryInviteCode: "searchtest" },
    Number.POSITIVE_INFINITY,
  );
  serverId = server!.id;
  for (const name of Object.keys(channels) as (keyof typeof channels)[]) {
    const channel = await store.channels.create(
      { serverId, name, type: "text", categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: true },
      Number.POSITIVE_INFINITY,
    );
    channels[name] = channel!.id;
  }
  // `mixed`, first: a message with the newest id of all in the oldest row (a copied message
  // whose id is newer than its row), then its ordered messages.
  const mixed = (n: number, words: string[]): Stored => ({ id: idOf(n), channel: channels.mixed, content: words.join(" ") });
  await insert([mixed(10_000_000, ["fifth", "every", "future", "imported"])]);
  // The ordered channel, with the other one's messages between its own (every third row), so a
  // rowid range of one holds the other's too; ids in the same order as rows.
  const rows: Stored[] = [];
  let n = 1000;
  for (let i = 1; i <= N; i++) {
    rows.push({ id: idOf(++n), channel: channels.ordered, content: wordsOf(i).join(" ") });
    if (i % 3 === 0) rows.push({ id: idOf(++n), channel: channels.other, content: ["every", i % 2 ? "fifth" : "other", i === 2400 ? "few" : ""].join(" ").trim() });
  }
  for (let i = 1; i <= 30; i++) rows.push({ id: idOf(++n), channel: channels.small, content: i % 3 ? "every fifth" : "every" });
  for (let i = 1; i <= 400; i++) rows.push(mixed(++n, i % 4 ? ["every", "fifth"] : ["every", "fifth", "imported"]));
  await insert(rows);
  // The oldest id of all in the newest row (an imported old message).
  await insert([mixed(5, ["fifth", "every", "past", "imported"])]);
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

/** What every search must answer: every match of the scope, newest id first, `limit` of them. */
function expected(scope: string[], words: string[], limit: number): string[] {
  return stored
    .filter((m) => scope.includes(m.channel) && words.every((w) => m.content.split(" ").includes(w)))
    .map((m) => m.id)
    .sort()
    .reverse()
    .slice(0, limit);
}

const answersNow = () => ({ ...store.messages.searcher.answers });
/** The ways of answering taken between two `answersNow`. */
const taken = (before: Record<SearchAnswer, number>, after: Record<SearchAnswer, number>) =>
  (Object.keys(after) as SearchAnswer[]).filter((k) => after[k] > before[k]).sort();

async function check(scopeName: (keyof typeof channels)[], words: string[], limits: number[]): Promise<void> {
  const scope = scopeName.map((name) => channels[name]);
  const answers: string[][] = [];
  for (const limit of limits) {
    const rows = scopeName.length === 1 ? await store.messages.search(scope[0]!, words, limit) : await store.messages.searchChannels(scope, words, limit);
    const ids = rows.map((row) => row.id);
    expect({ scope: scopeName, words, limit, ids }).toEqual({ scope: scopeName, words, limit, ids: expected(scope, words, limit) });
    // Whole rows, with their author and nothing of the search's own bookkeeping.
    for (const row of rows) {
      expect(Object.keys(row).filter((key) => key.startsWith("search_"))).toEqual([]);
      expect(row).toMatchObject({ user_id: authorId, username: "searcher" });
    }
    answers.push(ids);
  }
  // A smaller limit answers the start of a larger one's answer.
  for (let i = 1; i < answers.length; i++) expect(answers[i]!.slice(0, answers[i - 1]!.length)).toEqual(answers[i - 1]!);
}

const LIMITS = [1, 2, 3, 25, 100];

describe("newest-first search: the newest matches by id, whichever way it is answered", () => {
  test("words only in old messages, only in new ones, in both ends, in the middle", async () => {
    for (const word of ["old", "new", "ends", "middle"]) await check(["ordered"], [word], LIMITS);
  });

  test("common, one in five, one in a hundred, rare, absent, and every word required", async () => {
    for (const words of [["every"], ["fifth"], ["hundredth"], ["sparse"], ["few"], ["absent"], ["fifth", "hundredth"], ["old", "w3"], ["new", "old"]]) {
      await check(["ordered"], words, LIMITS);
    }
  });

  test("a match right at the end of each window and check span, for limits 1 to 3", async () => {
    // The spans the edges were laid out for.
    expect([WINDOW_PER_RESULT, SECOND_WINDOW_MAX_PER_RESULT, CHECK_SPAN_PER_RESULT]).toEqual([10, 160, 1000]);
    for (const d of EDGES) await check(["ordered"], [`edge${d}`], [1, 2, 3]);
    // A word newer than an edge and the edge itself: the second match at the bound.
    for (const d of [10, 20, 30, 60, 150, 250, 1000, 2000]) await check(["ordered"], ["every", `edge${d}`], [1, 2, 5]);
    for (const word of Object.keys(PAIRS)) await check(["ordered"], [word], [1, 2, 3, 25]);
  });

  test("a limit larger than the matches answers them all; a channel shorter than a window too", async () => {
    await check(["ordered"], ["few"], [3, 4, 100]);
    await check(["small"], ["fifth"], [1, 19, 20, 21, 100]);
    await check(["small"], ["every"], [30, 31, 100]);
  });

  test("several channels at once: matches interleaved by rowid, newest by id across them", async () => {
    for (const words of [["every"], ["fifth"], ["few"], ["old"], ["other"], ["absent"]]) {
      await check(["ordered", "other"], words, LIMITS);
      await check(["ordered", "other", "small", "mixed"], words, LIMITS);
    }
    await check(["other"], ["few"], [1, 25]);
  });

  test("a server but its closed channels: the same answers as the list of the open ones", async () => {
    const names = Object.keys(channels) as (keyof typeof channels)[];
    // Closed: none; the interleaved one; the one of rows out of id order (its newest id sits in
    // the oldest row: the check, which reads the whole server, must not be fooled by it); most.
    for (const closed of [[], ["other"], ["mixed"], ["ordered", "other", "small"]] as (keyof typeof channels)[][]) {
      const open = names.filter((name) => !closed.includes(name)).map((name) => channels[name]);
      for (const words of [["every"], ["fifth"], ["few"], ["old"], ["imported"], ["future"], ["absent"]]) {
        const answers: string[][] = [];
        for (const limit of LIMITS) {
          const ids = (await store.messages.searchServer(serverId, closed.map((name) => channels[name]), words, limit)).map((row) => row.id);
          expect({ closed, words, limit, ids }).toEqual({ closed, words, limit, ids: expected(open, words, limit) });
          answers.push(ids);
        }
        for (let i = 1; i < answers.length; i++) expect(answers[i]!.slice(0, answers[i - 1]!.length)).toEqual(answers[i - 1]!);
      }
    }
  });

  test("rows out of id order (copied or imported messages) are still answered by id", async () => {
    for (const words of [["fifth"], ["every"], ["imported"], ["future"], ["past"], ["past", "fifth"]]) await check(["mixed"], words, LIMITS);
    await check(["ordered", "mixed"], ["fifth"], LIMITS);
  });

  test("an edit and a delete below the newest matches are seen by the next search", async () => {
    const target = stored.find((m) => m.channel === channels.ordered && m.content.split(" ").includes("old"))!;
    await store.messages.update(target.id, "rewritten old edited", "[]");
    target.content = "rewritten old edited";
    await check(["ordered"], ["edited"], [1, 25]);
    await check(["ordered"], ["old"], [1, 25, 200]);
    const gone = stored.findIndex((m) => m.channel === channels.ordered && m.content.split(" ").includes("new"));
    await store.messages.delete(stored[gone]!.id);
    stored.splice(gone, 1);
    await check(["ordered"], ["new"], [1, 149, 150]);
  });

  test("each way of answering was taken", async () => {
    const before = answersNow();
    const all = ["all_read", "newer_checked", "older_checked", "sorted", "window", "second_window", "text_index"] as const;
    for (const words of [["few"], ["every"], ["old"], ["middle"], ["hundredth"], ["edge1500"], ["fifth"], ["pair40"]]) {
      for (const limit of [1, 2, 25]) await store.messages.search(channels.ordered, words, limit);
    }
    await store.messages.search(channels.mixed, ["future"], 1);
    const ways = taken(before, answersNow());
    expect(ways).toEqual(onPostgres ? ["second_window", "text_index", "window"] : ["all_read", "newer_checked", "older_checked", "sorted"]);
    expect(all.filter((way) => !ways.includes(way)).length).toBe(onPostgres ? 4 : 3);
  });
});
