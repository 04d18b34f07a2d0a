import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createServer } from "../helpers/community.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

// Jump to any message: `around` and `after` on channel, DM and group DM pages (docs/messages.md,
// docs/dms.md). Each test sends a few dozen messages: the sends limit is raised.
let server: TestServer;
beforeAll(async () => {
  server = await startServer(raisedRestRateLimits("sends"));
});
afterAll(() => server.stop());

const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const ids = (res: { body: { id: string }[] }): unknown[] => res.body.map((m) => m.id);
const page = (channelId: string, user: TestUser | null, query: string) =>
  server.api("GET", `/api/v1/messages/${channelId}?${query}`, { token: user?.token });

/** `count` messages sent to the channel in order; their ids, oldest first. */
async function fill(channelId: string, user: TestUser, count: number): Promise<string[]> {
  const sent: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content: `m${i}` } });
    expect(res.status).toBe(201);
    sent.push(res.body.id);
  }
  return sent;
}

describe("GET /api/v1/messages/:channelId?around=&after=", () => {
  test("around: limit messages centred on the id, the message included, newest first", async () => {
    const { member, channelId } = await community(server);
    const sent = await fill(channelId, member, 11);
    const res = await page(channelId, member, `around=${sent[5]}&limit=5`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([sent[7], sent[6], sent[5], sent[4], sent[3]]);
    // The same shape as every page: the message with its author.
    const latest = await page(channelId, member, "limit=11");
    expect(res.body[2]).toEqual(latest.body[5]);
    // Even limits: half below, the rest from it up.
    expect(ids(await page(channelId, member, `around=${sent[5]}&limit=4`))).toEqual([sent[6], sent[5], sent[4], sent[3]]);
    expect(ids(await page(channelId, member, `around=${sent[5]}&limit=1`))).toEqual([sent[5]]);
    // At an edge the short side is filled from the other.
    expect(ids(await page(channelId, member, `around=${sent[0]}&limit=4`))).toEqual([sent[3], sent[2], sent[1], sent[0]]);
    expect(ids(await page(channelId, member, `around=${sent[10]}&limit=4`))).toEqual([sent[10], sent[9], sent[8], sent[7]]);
    // More than there are: all of them.
    expect(ids(await page(channelId, member, `around=${sent[5]}&limit=100`))).toEqual([...sent].reverse());
    // The default limit is 50, as for every page.
    expect(await page(channelId, member, `around=${sent[5]}`)).toMatchObject({ status: 200 });
    expect(ids(await page(channelId, member, `around=${sent[5]}`))).toHaveLength(11);
  });

  test("around a 60-message history with the default limit of 50 is centred", async () => {
    const { member, channelId } = await community(server);
    const sent = await fill(channelId, member, 60);
    const res = await page(channelId, member, `around=${sent[30]}`);
    expect(ids(res)).toEqual(sent.slice(5, 55).reverse());
  });

  test("around an id that is not a message of the channel is its position: the page around it, without it", async () => {
    const { member, channelId, serverId, owner } = await community(server);
    const sent = await fill(channelId, member, 4);
    // Older than every message: the oldest ones.
    expect(ids(await page(channelId, member, `around=${"00000000-0000-7000-8000-000000000000"}&limit=2`))).toEqual([sent[1], sent[0]]);
    // A message of another channel, sent in between, is only a position here.
    const other = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "other", type: "text" } });
    const elsewhere = await server.api("POST", `/api/v1/messages/${other.body.id}`, { token: owner.token, body: { content: "x" } });
    const more = await fill(channelId, member, 2);
    expect(ids(await page(channelId, member, `around=${elsewhere.body.id}&limit=4`))).toEqual([more[1], more[0], sent[3], sent[2]]);
    expect(await page(channelId, member, `around=${UNKNOWN}`)).toMatchObject({ status: 200 });
  });

  test("after: the limit messages right after the id, newest first; empty at the newest", async () => {
    const { member, channelId } = await community(server);
    const sent = await fill(channelId, member, 8);
    expect(ids(await page(channelId, member, `after=${sent[2]}&limit=3`))).toEqual([sent[5], sent[4], sent[3]]);
    expect(ids(await page(channelId, member, `after=${sent[5]}&limit=10`))).toEqual([sent[7], sent[6]]);
    expect(await page(channelId, member, `after=${sent[7]}`)).toMatchObject({ status: 200, body: [] });
    // Paging forward: the first id of a page (its newest) is the next page's `after`.
    const first = await page(channelId, member, `after=${sent[0]}&limit=4`);
    expect(ids(await page(channelId, member, `after=${first.body[0].id}&limit=4`))).toEqual([sent[7], sent[6], sent[5]]);
  });

  test("400 on bad ids, bad limits and more than one of before, after and around", async () => {
    const { member, channelId } = await community(server);
    expectError(await page(channelId, member, "around=nope"), 400, "around: must be a message id");
    expectError(await page(channelId, member, "after=nope"), 400, "after: must be a message id");
    expectError(await page(channelId, member, `around=${UNKNOWN}&limit=0`), 400, "limit: must be a whole number between 1 and 100");
    expectError(await page(channelId, member, `after=${UNKNOWN}&limit=101`), 400, "limit: must be a whole number between 1 and 100");
    for (const q of [`before=${UNKNOWN}&after=${UNKNOWN}`, `before=${UNKNOWN}&around=${UNKNOWN}`, `after=${UNKNOWN}&around=${UNKNOWN}`]) {
      expectError(await page(channelId, member, q), 400, /before, after and around are mutually exclusive/);
    }
  });

  test("401 without a token, 403 outside the channel, 404 for an unknown channel", async () => {
    const { member, outsider, channelId } = await community(server);
    const [id] = await fill(channelId, member, 1);
    for (const q of [`around=${id}`, `after=${id}`]) {
      expect((await page(channelId, null, q)).status).toBe(401);
      expect((await page(channelId, outsider, q)).status).toBe(403);
      expect((await page(UNKNOWN, member, q)).status).toBe(404);
    }
  });
});

describe("DM and group DM pages: after", () => {
  async function pair() {
    const a = await server.register();
    const b = await server.register();
    const serverId = await createServer(server, a);
    await addMember(server, serverId, b);
    return { a, b, serverId };
  }
  const dmSend = async (from: TestUser, to: TestUser, content: string) =>
    (await server.api("POST", `/api/v1/dm/${to.id}/messages`, { token: from.token, body: { content } })).body.id as string;

  test("after on a 1:1 DM: the messages right after the id, newest first", async () => {
    const { a, b } = await pair();
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) sent.push(await dmSend(i % 2 ? b : a, i % 2 ? a : b, `m${i}`));
    const res = await server.api("GET", `/api/v1/dm/${b.id}/messages?after=${sent[1]}&limit=3`, { token: a.token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([sent[4], sent[3], sent[2]]);
    expect((await server.api("GET", `/api/v1/dm/${b.id}/messages?after=${sent[5]}`, { token: a.token })).body).toEqual([]);
    for (const q of [`after=nope`, `before=${UNKNOWN}&after=${UNKNOWN}`, `after=${UNKNOWN}&around=${UNKNOWN}`]) {
      expect((await server.api("GET", `/api/v1/dm/${b.id}/messages?${q}`, { token: a.token })).status).toBe(400);
    }
    expect((await server.api("GET", `/api/v1/dm/${b.id}/messages?after=${sent[0]}`, {})).status).toBe(401);
  });

  test("after on a group DM", async () => {
    const { a, b, serverId } = await pair();
    const c = await server.register();
    await addMember(server, serverId, c);
    const group = await server.api("POST", "/api/v1/dm/groups", { token: a.token, body: { member_ids: [b.id, c.id] } });
    expect(group.status).toBe(201);
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await server.api("POST", `/api/v1/dm/groups/${group.body.id}/messages`, { token: a.token, body: { content: `g${i}` } });
      sent.push(res.body.id);
    }
    const res = await server.api("GET", `/api/v1/dm/groups/${group.body.id}/messages?after=${sent[0]}&limit=2`, { token: b.token });
    expect(ids(res)).toEqual(sent.slice(1, 3).reverse());
    const stranger = await server.register();
    expect((await server.api("GET", `/api/v1/dm/groups/${group.body.id}/messages?after=${sent[0]}`, { token: stranger.token })).status).toBe(404);
  });
});
