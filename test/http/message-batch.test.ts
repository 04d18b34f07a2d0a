import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { onPostgres } from "../helpers/database.ts";
import { community } from "../helpers/community.ts";
import { recordEvents, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

// Message sends under concurrency: the group commit in src/store/write-batch.ts.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const send = (channelId: string, user: TestUser, content: string) =>
  server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });

describe("concurrent message sends (group commit)", () => {
  test("all land once, in one order: ids, pages and message:new agree", async () => {
    const { owner, members, channelId } = await community(server, { extraMembers: 2 });
    const users = [owner, ...members];
    const socket = await server.connect(owner.token);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const events = recordEvents<{ id: string; content: string }>(socket, "message:new");

    const N = 200;
    const responses = await Promise.all(Array.from({ length: N }, (_, i) => send(channelId, users[i % users.length]!, `m${i}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(N).fill(201));
    const ids = responses.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(N);
    // Each answer is the message as stored.
    for (const [i, r] of responses.entries()) expect(r.body.content).toBe(`m${i}`);

    // Stored order (UUIDv7 ids sort by commit order) is what a page reads back, newest first.
    const page = await server.api("GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token });
    const older = await server.api("GET", `/api/v1/messages/${channelId}?limit=100&before=${page.body.at(-1).id}`, { token: owner.token });
    const stored = [...page.body, ...older.body].map((m: { id: string }) => m.id).reverse();
    expect(stored).toEqual([...ids].sort());

    // message:new once per message, after its commit, in the same order as the ids.
    await until(() => events.length >= N, "message:new of every message");
    await quietWindow(50); // once each
    expect(events.map((e) => e.id)).toEqual(stored);
    socket.close();
  });

  test("a send refused inside the batch fails alone (slowmode is checked in the insert's transaction)", async () => {
    const { owner, members, channelId } = await community(server, { extraMembers: 1 });
    const users = [owner, ...members];
    const patch = await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { slowmode: 60 } });
    expect(patch.status).toBe(200);
    const [, slowA, slowB] = users as [TestUser, TestUser, TestUser];
    // Five sends at once from each member, plus the owner (exempt), all in the same turn.
    const sends = [
      ...Array.from({ length: 5 }, (_, i) => send(channelId, slowA, `a${i}`)),
      ...Array.from({ length: 5 }, (_, i) => send(channelId, slowB, `b${i}`)),
      ...Array.from({ length: 5 }, (_, i) => send(channelId, owner, `o${i}`)),
    ];
    const statuses = (await Promise.all(sends)).map((r) => r.status);
    // Exactly one of each slowmoded member's sends passes; the others are 429 and stored nothing.
    expect(statuses.slice(0, 5).filter((s) => s === 201).length).toBe(1);
    expect(statuses.slice(0, 5).filter((s) => s === 429).length).toBe(4);
    expect(statuses.slice(5, 10).filter((s) => s === 201).length).toBe(1);
    expect(statuses.slice(10)).toEqual(Array(5).fill(201));
    const page = await server.api("GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token });
    expect(page.body.length).toBe(7);
  });

  test("a write that breaks a constraint rejects only its own caller", async () => {
    const { owner, serverId, channelId } = await community(server);
    const messages = server.app.store.messages;
    const base = { serverId, userId: owner.id, embeds: "[]", replyTo: null };
    const results = await Promise.allSettled([
      messages.insert({ ...base, channelId, content: "before" }),
      // No such channel: a foreign-key violation inside the batch.
      messages.insert({ ...base, channelId: "01a20805-7d72-77cc-b541-8c28e661b52b", content: "orphan" }),
      messages.insert({ ...base, channelId, content: "after" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    // SQLite: "FOREIGN KEY constraint failed"; PostgreSQL: "violates foreign key constraint".
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/foreign key/i);
    const stored = await messages.page(channelId, null, 10);
    expect(stored.map((m) => m.content).reverse()).toEqual(["before", "after"]);
  });

  test("DM sends are batched too: all land once, in one order, each answered with the stored message and pushed as dm:new", async () => {
    const { owner, member } = await community(server);
    const users = [owner, member];
    const [a, b] = users as [TestUser, TestUser];
    const socket = await server.connect(b.token);
    const events = recordEvents<{ id: string }>(socket, "dm:new");
    const N = 100;
    const transactions = server.app.store.writes.transactions;
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        server.api("POST", `/api/v1/dm/${i % 2 ? a.id : b.id}/messages`, { token: (i % 2 ? b : a).token, body: { content: `d${i}` } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(N).fill(201));
    // Sends that arrived together went through the group commit, together: fewer transactions than sends.
    const used = server.app.store.writes.transactions - transactions;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(N);
    for (const [i, r] of responses.entries()) expect(r.body.content).toBe(`d${i}`);
    const ids = responses.map((r) => r.body.id as string);
    const stored: string[] = [];
    let before = "";
    for (let page = 0; page < 3 && stored.length < N; page++) {
      const got = await server.api("GET", `/api/v1/dm/${b.id}/messages?limit=50${before}`, { token: a.token });
      stored.push(...got.body.map((m: { id: string }) => m.id));
      before = `&before=${got.body.at(-1).id}`;
    }
    expect(stored.reverse()).toEqual([...ids].sort());
    await until(() => events.length >= N, "dm:new of every message");
    // Announced once each. On SQLite in id order; on PostgreSQL what a send does after its
    // commit (the members' rooms) is itself a round trip, so concurrent sends may be announced in
    // another order than their ids (clients order by id).
    const announced = events.map((e) => e.id);
    expect(onPostgres ? announced.sort() : announced).toEqual([...ids].sort());
    socket.close();
  });
});
