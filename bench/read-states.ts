/**
 * Read states (docs/read-states.md), in one process on a file SQLite database:
 *   answer - `ReadStates.list` (what GET /api/v1/users/me/read-states answers, without HTTP) for
 *            a reader in 2, 20 and 200 servers of 50 channels (1x, 10x, 100x; 100x is 10,000
 *            channels), every channel with one unread message and one in ten mentioning the
 *            reader; then the same with everything read (an empty answer, the same index reads).
 *            Median and p99 of `--rounds` calls, and the growth from 1x.
 *   send   - `Messages.send` of 64 concurrent messages at a time (group commit as in production):
 *            µs a send, plain content and content with `<@user> <@&role> @everyone`, against
 *            the same plain send with migration 19's last-message trigger dropped and no mention
 *            rows ("off", the send path before read states; the author's read upsert, one
 *            statement in the same transaction, stays). Ratios measured in this run.
 * Prints a human summary on stderr and one JSON line on stdout.
 *
 *   bun bench/read-states.ts [--quick] [--rounds 20] [--sends 2000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argOf, hasFlag, latency, log, ratio, startHearth } from "./fixture.ts";
import { loadConfig } from "../src/config.ts";
import type { UserRow } from "../src/store/users-repo.ts";

const QUICK = hasFlag("quick");
const ROUNDS = Number(argOf("rounds", QUICK ? "5" : "20"));
const SENDS = Number(argOf("sends", QUICK ? "640" : "3200"));
const CHANNELS_PER_SERVER = 50;
const STEPS = QUICK ? [1, 10] : [1, 10, 100];
const BASE_SERVERS = 2;

const dataDir = mkdtempSync(join(tmpdir(), "hearth-bench-read-states-"));
const caps = { ...loadConfig({}).caps, serversPerUser: 1000 };
const { app } = await startHearth(dataDir, { caps });
const { domain, store } = app;

async function user(name: string): Promise<UserRow> {
  const session = await domain.accounts.register({ username: name, email: `${name}@example.test`, password: "bench-password" } as never, "127.0.0.1");
  return (await store.users.findById((session as unknown as { user: { id: string } }).user.id))!;
}

const owner = await user("rs_owner");
const reader = await user("rs_reader");
let servers = 0;

/** Servers up to `count`: 50 text channels each, the reader a member, one message a channel. */
async function grow(count: number): Promise<void> {
  for (; servers < count; servers++) {
    const server = await domain.servers.create(owner, { name: `s${servers}` });
    await store.members.add(server.id, reader.id, "member");
    const channels = await store.channels.listByServer(server.id);
    const ids = channels.filter((c) => c.type === "text").map((c) => c.id);
    while (ids.length < CHANNELS_PER_SERVER) ids.push((await domain.channels.create(server.id, owner, { name: `c${ids.length}`, type: "text" })).id);
    await Promise.all(ids.map((id, i) => domain.messages.send(id, owner, { content: i % 10 === 0 ? `hey <@${reader.id}>` : "news" })));
  }
}

async function timeAnswer(): Promise<{ p50_ms: number; p99_ms: number; entries: number }> {
  let entries = 0;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 2; i++) {
    const t0 = performance.now();
    entries = (await domain.readStates.list(reader)).length;
    if (i >= 2) times.push(performance.now() - t0);
  }
  const l = latency(times);
  return { p50_ms: round(l.p50_ms), p99_ms: round(l.p99_ms), entries };
}
const round = (n: number) => Math.round(n * 100) / 100;

const answer: Record<string, { channels: number; unread: { p50_ms: number; p99_ms: number; entries: number }; all_read?: { p50_ms: number; p99_ms: number; entries: number } }> = {};
for (const step of STEPS) {
  const t0 = performance.now();
  await grow(BASE_SERVERS * step);
  log(`seeded ${servers} servers (${servers * CHANNELS_PER_SERVER} channels) in ${Math.round(performance.now() - t0)} ms`);
  const unread = await timeAnswer();
  answer[`${step}x`] = { channels: servers * CHANNELS_PER_SERVER, unread };
  log(`${step}x: ${unread.entries} unread entries, p50 ${unread.p50_ms} ms, p99 ${unread.p99_ms} ms`);
}
// Everything read: the same index reads, nothing to answer.
for (const row of await store.readStates.unreadChannelsOf(reader.id)) await store.readStates.markChannel(reader.id, row.channel_id, row.last_message_id);
const last = `${STEPS.at(-1)}x`;
answer[last]!.all_read = await timeAnswer();
log(`${last} all read: p50 ${answer[last]!.all_read!.p50_ms} ms`);

// The send path, in one channel of its own server.
const sendServer = await domain.servers.create(owner, { name: "sends" });
await store.members.add(sendServer.id, reader.id, "member");
const sendChannel = (await store.channels.listByServer(sendServer.id)).find((c) => c.type === "text")!.id;
const role = await domain.roles.create(sendServer.id, owner.id, { name: "pingable" } as never);
const roleId = (role as { id: string }).id;

async function timeSends(content: string): Promise<number> {
  const batch = 64;
  const t0 = performance.now();
  for (let done = 0; done < SENDS; done += batch) {
    await Promise.all(Array.from({ length: batch }, () => domain.messages.send(sendChannel, owner, { content })));
  }
  return Math.round(((performance.now() - t0) * 1000) / SENDS * 10) / 10;
}

const mentioning = `<@${reader.id}> <@&${roleId}> @everyone look`;
await timeSends("warm up");
const on = { plain_us: await timeSends("plain message"), mentions_us: await timeSends(mentioning) };
await store.db.exec("DROP TRIGGER messages_last_insert");
const off = { plain_us: await timeSends("plain message") };
const onAgain = { plain_us: 0 };
await store.db.exec(`CREATE TRIGGER messages_last_insert AFTER INSERT ON messages BEGIN
  INSERT INTO channel_last_messages (channel_id, last_message_id) VALUES (NEW.channel_id, NEW.id)
    ON CONFLICT (channel_id) DO UPDATE SET last_message_id = excluded.last_message_id
    WHERE excluded.last_message_id > channel_last_messages.last_message_id;
END`);
onAgain.plain_us = await timeSends("plain message");
const send = {
  off_plain_us: off.plain_us,
  on_plain_us: on.plain_us,
  on_plain_again_us: onAgain.plain_us,
  on_mentions_us: on.mentions_us,
  plain_on_vs_off: ratio((on.plain_us + onAgain.plain_us) / 2, off.plain_us),
  mentions_on_vs_off: ratio(on.mentions_us, off.plain_us),
};
log(`send: off ${off.plain_us} µs, on ${on.plain_us}/${onAgain.plain_us} µs, with 3 mentions ${on.mentions_us} µs`);

const base = answer["1x"]!.unread.p50_ms;
const growth = Object.fromEntries(Object.entries(answer).map(([k, a]) => [k, ratio(a.unread.p50_ms, base)]));
console.log(JSON.stringify({ bench: "read-states", quick: QUICK, rounds: ROUNDS, sends: SENDS, answer, answer_growth_vs_1x: growth, send }));
await app.stop();
rmSync(dataDir, { recursive: true, force: true });
