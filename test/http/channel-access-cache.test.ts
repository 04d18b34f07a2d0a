import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { expectError, startServer, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

/**
 * Every check of a caller in a channel is `Access.requireChannel`, whose decisions are cached
 * on SQLite under the database's access version (docs/architecture.md, "Access decisions
 * cached while nothing they read changes"). The message page and the send have their own
 * files (message-page-access, message-send-access); this one takes the other operations: each
 * is done once (its decision is then cached), the channel is hidden from the member, each is
 * refused at once, the override goes, and each works again at once.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const as = (user: TestUser, method: string, path: string, body?: unknown) => server.api(method, `/api/v1${path}`, { token: user.token, body });
const ok = async (res: Promise<{ status: number; body: unknown }>) => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string };
};

/** Each operation: an answer when allowed, and its refusal's status and error when the channel is hidden. */
function operations(member: TestUser, socket: ClientSocket, channelId: string, voiceId: string, messageId: string) {
  const rest = (method: string, path: string, body?: unknown) => async () => {
    const res = await as(member, method, path, body);
    return { status: res.status, error: (res.body as { error?: string }).error };
  };
  const event = (name: string, payload: unknown) => async () => {
    const ack = (await socket.emitWithAck(name, payload)) as { ok: boolean; error?: string };
    return { status: ack.ok ? 200 : 403, error: ack.error };
  };
  return {
    "GET /messages/id/:messageId": rest("GET", `/messages/id/${messageId}`),
    "PUT /messages/:id (edit)": rest("PUT", `/messages/${messageId}`, { content: "edited" }),
    "POST /messages/:id/read": rest("POST", `/messages/${channelId}/read`, {}),
    "PUT reaction": rest("PUT", `/messages/${channelId}/reactions/${messageId}`, { emoji: "👍" }),
    "GET reactions": rest("GET", `/messages/${channelId}/reactions/${messageId}`),
    "GET pins": rest("GET", `/messages/${channelId}/pins`),
    // A stop ends the streak, so each round's start is relayed, not coalesced as a repeat
    // (src/gateway/typing-repeats.ts; a repeat is checked too: test/gateway/abuse-events.test.ts).
    "typing:start, typing:stop": async () => {
      const start = await event("typing:start", channelId)();
      return start.status === 200 ? event("typing:stop", channelId)() : start;
    },
    "channel:join": event("channel:join", channelId),
    "voice:join": event("voice:join", { channelId: voiceId }),
  };
}

describe("every channel operation follows a change of access at once", () => {
  test("hidden by an override: refused at once; the override removed: allowed at once", async () => {
    const { owner, member, channelId, voiceId, everyone } = await community(server, { voice: true });
    const message = await ok(as(member, "POST", `/messages/${channelId}`, { content: "hello" }));
    const socket = await server.connect(member.token);
    const ops = Object.entries(operations(member, socket, channelId, voiceId, message.id));
    const allowed = async () => {
      for (const [name, run] of ops) {
        const { status, error } = await run();
        expect({ name, status, error }).toEqual({ name, status: 200, error: undefined });
      }
      expect((await socket.emitWithAck("voice:leave", {})).ok).toBe(true);
    };
    await allowed();
    const version = await server.app.store.access.version();

    for (const id of [channelId, voiceId]) await ok(as(owner, "PUT", `/channels/${id}/permissions/${everyone}`, { allow: 0, deny: P.VIEW_CHANNEL }));
    // SQLite's version changed (the cache was emptied); PostgreSQL has none and checks in full.
    if (version !== null) expect(await server.app.store.access.version()).not.toBe(version);
    for (const [name, run] of ops) {
      const { status, error } = await run();
      expect({ name, status, error }).toEqual({ name, status: 403, error: "Missing permission: VIEW_CHANNEL" });
    }

    for (const id of [channelId, voiceId]) await ok(as(owner, "DELETE", `/channels/${id}/permissions/${everyone}`));
    await allowed();
  });

  test("the member kicked: refused at once, as a non-member", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const message = await ok(as(member, "POST", `/messages/${channelId}`, { content: "hello" }));
    expect((await as(member, "GET", `/messages/id/${message.id}`)).status).toBe(200);
    expect((await as(member, "GET", `/messages/${channelId}/pins`)).status).toBe(200);
    await ok(as(owner, "DELETE", `/servers/${serverId}/members/${member.id}`));
    expectError(await as(member, "GET", `/messages/id/${message.id}`), 403, "You are not a member of this server");
    expectError(await as(member, "GET", `/messages/${channelId}/pins`), 403, "You are not a member of this server");
  });
});
