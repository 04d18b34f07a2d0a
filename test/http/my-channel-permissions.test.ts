/**
 * GET /api/v1/channels/:channelId/permissions/me (docs/channels.md, "Your permissions in a
 * channel"): the caller's own bits in a channel, overrides and a running timeout applied, so a
 * client can say what may be done before the server would refuse it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ALL_PERMISSIONS, PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { auditEntries, community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let c: Community & { moderator: { token: string; id: string } };
beforeAll(async () => {
  server = await startServer();
  c = await community(server, { moderator: true });
});
afterAll(() => server.stop());

const mine = (channelId: string, token: string) => server.api("GET", `/api/v1/channels/${channelId}/permissions/me`, { token });

test("a member's bits in a channel: the server's, less what an override denies; the owner holds every bit", async () => {
  const plain = await mine(c.channelId, c.member.token);
  expect(plain.status).toBe(200);
  expect(plain.body).toEqual({ channel_id: c.channelId, permissions: expect.any(Number), timeout_until: null });
  expect(plain.body.permissions & P.SEND_MESSAGES).toBe(P.SEND_MESSAGES);
  expect(plain.body.permissions & P.MANAGE_CHANNELS).toBe(0);

  const readOnly = (await server.api("POST", `/api/v1/channels/${c.serverId}`, { token: c.owner.token, body: { name: "announcements", type: "text" } })).body.id as string;
  expect((await server.api("PUT", `/api/v1/channels/${readOnly}/permissions/${c.everyone}`, { token: c.owner.token, body: { allow: 0, deny: P.SEND_MESSAGES } })).status).toBe(200);
  const denied = await mine(readOnly, c.member.token);
  expect(denied.body.permissions & P.SEND_MESSAGES).toBe(0);
  expect(denied.body.permissions & P.VIEW_CHANNEL).toBe(P.VIEW_CHANNEL);
  // Lifted again: the next read says so (no stale decision).
  await server.api("DELETE", `/api/v1/channels/${readOnly}/permissions/${c.everyone}`, { token: c.owner.token });
  expect((await mine(readOnly, c.member.token)).body.permissions & P.SEND_MESSAGES).toBe(P.SEND_MESSAGES);

  expect((await mine(c.channelId, c.owner.token)).body).toEqual({ channel_id: c.channelId, permissions: ALL_PERMISSIONS, timeout_until: null });
});

test("a timed-out member holds only the read bits until the timeout ends, and is told when", async () => {
  const timeout = await server.api("POST", `/api/v1/servers/${c.serverId}/timeouts`, { token: c.owner.token, body: { targetUserId: c.member.id, duration: 60 } });
  expect(timeout.status).toBe(200);
  const during = await mine(c.channelId, c.member.token);
  expect(during.status).toBe(200);
  expect(during.body.timeout_until).toBe(timeout.body.expiresAt);
  expect(during.body.permissions & P.SEND_MESSAGES).toBe(0);
  expect(during.body.permissions & P.VIEW_CHANNEL).toBe(P.VIEW_CHANNEL);
  expect((await server.api("DELETE", `/api/v1/servers/${c.serverId}/timeouts/${c.member.id}`, { token: c.owner.token })).status).toBe(200);
  const after = await mine(c.channelId, c.member.token);
  expect(after.body.timeout_until).toBeNull();
  expect(after.body.permissions & P.SEND_MESSAGES).toBe(P.SEND_MESSAGES);
});

test("refusals: 401 without a token, 403 for a non-member or a hidden channel, 404 for an unknown or malformed channel id", async () => {
  expect((await server.api("GET", `/api/v1/channels/${c.channelId}/permissions/me`)).status).toBe(401);
  const outsider = await mine(c.channelId, c.outsider.token);
  expect(outsider.status).toBe(403);
  expect(outsider.body).toEqual({ error: expect.any(String) });
  const hidden = (await server.api("POST", `/api/v1/channels/${c.serverId}`, { token: c.owner.token, body: { name: "staff", type: "text" } })).body.id as string;
  await server.api("PUT", `/api/v1/channels/${hidden}/permissions/${c.everyone}`, { token: c.owner.token, body: { allow: 0, deny: P.VIEW_CHANNEL } });
  expect(await mine(hidden, c.member.token)).toMatchObject({ status: 403, body: { error: "Missing permission: VIEW_CHANNEL" } });
  expect(await mine("01a20805-7d72-77cc-b541-8c28e661b52b", c.member.token)).toMatchObject({ status: 404, body: { error: "Channel not found" } });
  // Not an id at all: the same 404 as any unknown channel (path ids are never a 400 here).
  expect(await mine("not-a-channel", c.member.token)).toMatchObject({ status: 404, body: { error: "Channel not found" } });
  // A read writes nothing to the audit log.
  const before = (await auditEntries(server, c.serverId)).length;
  expect((await mine(c.channelId, c.member.token)).status).toBe(200);
  expect((await auditEntries(server, c.serverId)).length).toBe(before);
});
