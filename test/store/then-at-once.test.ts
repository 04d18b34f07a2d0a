/**
 * `thenAtOnce` (src/store/then-at-once.ts): `promise.then(f)`, except that a promise already
 * settled gives an answer already settled. And what it is for: on SQLite the page read, behind
 * a kept access decision, is settled when it returns, so the native route answers in its turn.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { thenAtOnce } from "../../src/store/then-at-once.ts";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { onPostgres } from "../helpers/database.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("thenAtOnce", () => {
  test("a fulfilled promise: f runs now and the answer is fulfilled with its value", async () => {
    let ran = false;
    const answer = thenAtOnce(Promise.resolve(2), (n) => {
      ran = true;
      return n * 21;
    });
    expect(ran).toBe(true);
    expect(Bun.peek.status(answer)).toBe("fulfilled");
    expect(await answer).toBe(42);
  });

  test("f answering a promise: that promise is the answer", async () => {
    const answer = thenAtOnce(Promise.resolve(1), (n) => Promise.resolve(n + 1));
    expect(Bun.peek.status(answer)).toBe("fulfilled");
    expect(await answer).toBe(2);
  });

  test("f throwing: the answer is rejected with what it threw, not thrown", async () => {
    const answer = thenAtOnce(Promise.resolve(1), () => {
      throw new Error("no");
    });
    expect(Bun.peek.status(answer)).toBe("rejected");
    await expect(answer).rejects.toThrow("no");
  });

  test("a rejected promise: f does not run, the rejection is the answer", async () => {
    let ran = false;
    const answer = thenAtOnce(Promise.reject(new Error("before")), () => {
      ran = true;
    });
    expect(ran).toBe(false);
    await expect(answer).rejects.toThrow("before");
  });

  test("a pending promise: f runs when it settles", async () => {
    let ran = false;
    const answer = thenAtOnce(Bun.sleep(5).then(() => 3), (n) => {
      ran = true;
      return n + 1;
    });
    expect(ran).toBe(false);
    expect(Bun.peek.status(answer)).toBe("pending");
    expect(await answer).toBe(4);
    expect(ran).toBe(true);
  });
});

describe.skipIf(onPostgres)("the page read on SQLite", () => {
  let server: TestServer;
  let c: Community;
  beforeAll(async () => {
    server = await startServer();
    c = await community(server);
    for (const content of ["one", "two"]) {
      const sent = await server.api("POST", `/api/v1/messages/${c.channelId}`, { token: c.member.token, body: { content } });
      expect(sent.status).toBe(201);
    }
  });
  afterAll(() => server.stop());

  test("is settled when it returns once the caller's access decision is kept, and answers what the route answers", async () => {
    const viaRoute = await server.api("GET", `/api/v1/messages/${c.channelId}?limit=50`, { token: c.member.token });
    expect(viaRoute.status).toBe(200);
    const user = (await server.app.store.users.findById(c.member.id))!;
    const page = server.app.domain.messages.list(c.channelId, user, undefined, 50);
    expect(Bun.peek.status(page)).toBe("fulfilled");
    expect(JSON.parse(JSON.stringify(await page))).toEqual(viaRoute.body);
    expect((await page).map((m) => m.content)).toEqual(["two", "one"]);
  });

  test("a refusal is a rejection (never a throw), also when the decision is worked out again", async () => {
    const outsider = (await server.app.store.users.findById(c.outsider.id))!;
    const refused = server.app.domain.messages.list(c.channelId, outsider, undefined, 50);
    await expect(refused).rejects.toMatchObject({ status: 403 });
    const member = (await server.app.store.users.findById(c.member.id))!;
    const badBefore = server.app.domain.messages.list(c.channelId, member, "not-an-id", 50);
    await expect(badBefore).rejects.toMatchObject({ status: 400 });
  });

  test("a permission taken away counts from the next read", async () => {
    const user = (await server.app.store.users.findById(c.member.id))!;
    expect(Bun.peek.status(server.app.domain.messages.list(c.channelId, user, undefined, 50))).toBe("fulfilled");
    // READ_MESSAGE_HISTORY denied to @everyone on the channel.
    const denied = await server.api("PUT", `/api/v1/channels/${c.channelId}/permissions/${c.everyone}`, { token: c.owner.token, body: { allow: 0, deny: PERMISSIONS.READ_MESSAGE_HISTORY } });
    expect(denied.status).toBe(200);
    await expect(server.app.domain.messages.list(c.channelId, user, undefined, 50)).rejects.toMatchObject({ status: 403 });
    const viaRoute = await server.api("GET", `/api/v1/messages/${c.channelId}`, { token: c.member.token });
    expect(viaRoute.status).toBe(403);
  });
});
