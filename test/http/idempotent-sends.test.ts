/**
 * Idempotent sends (docs/messages.md, "Idempotent sends"): every message-creating route takes
 * `nonce` + `enforce_nonce: true`; a retry answers the first message, stores nothing and emits
 * no second event. Run on PostgreSQL too: `bun scripts/test-postgres.ts test/http/idempotent-sends.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerCommands } from "../helpers/bot-platform.ts";
import { addBot } from "../helpers/bots.ts";
import { community, joinChannel } from "../helpers/community.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** What a send answered: the HTTP status (the gateway's ack: 201 for ok, 400 for an error) and the message or `{error}`. */
type Sent = { status: number; body: any };

/** One message-creating route: how to send on it, read what it stored, and hear its event. */
interface Route {
  send(fields: Record<string, unknown>): Promise<Sent>;
  /** Every stored message of the channel or DM, newest first. */
  stored(): Promise<any[]>;
  /** A socket of someone who hears the route's event. */
  listener: ClientSocket;
  event: "message:new" | "dm:new";
  /** 201, or 200 for the webhook's `?wait=true`. */
  created: number;
}

let counter = 0;
const nextNonce = () => `n-${process.pid}-${++counter}`;

function form(fields: Record<string, unknown>, content: string): FormData {
  const data = new FormData();
  data.append("files", new File([PNG_1X1], "dot.png", { type: "image/png" }));
  data.append("content", content);
  for (const [key, value] of Object.entries(fields)) data.append(key, String(value));
  return data;
}

async function channelRoute(kind: "user" | "gif" | "upload" | "bot" | "gateway" | "interaction" | "webhook"): Promise<Route> {
  const { owner, member, serverId, channelId } = await community(server);
  const listener = await joinChannel(server, owner, channelId);
  const stored = async () => (await server.api("GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token })).body as any[];
  const base = { stored, listener, event: "message:new" as const, created: 201 };
  const content = `hello ${kind}`;
  if (kind === "user") return { ...base, send: (f) => server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content, ...f } }) };
  if (kind === "gif") {
    return { ...base, send: (f) => server.api("POST", `/api/v1/messages/${channelId}/gif`, { token: member.token, body: { url: "https://media.example.test/a.gif", ...f } }) };
  }
  if (kind === "upload") return { ...base, send: (f) => server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: member.token, raw: form(f, content) }) };
  const bot = await addBot(server, owner, serverId);
  if (kind === "bot") return { ...base, send: (f) => server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token, body: { content, ...f } }) };
  if (kind === "interaction") {
    // A slash command's interaction, answered (and followed up) with interaction:response; the
    // user's own `/ping` message is left out of what the route stored.
    await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
    const socket = await server.connect(bot.token);
    const delivered = waitForEvent(socket, "interaction:create");
    // Heard before the route's events are recorded, so that they are the bot's alone.
    const heardPing = waitForEvent(listener, "message:new", { filter: (m: any) => m.content === "/ping" });
    expect((await server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content: "/ping" } })).status).toBe(201);
    const interaction = await delivered;
    await heardPing;
    return {
      ...base,
      stored: async () => (await stored()).filter((m) => m.user_id === bot.botUserId),
      send: async (f) => {
        const ack = await socket.emitWithAck("interaction:response", { interaction_id: interaction.id, channel_id: channelId, content, ...f });
        return ack.ok ? { status: 201, body: ack.message } : { status: 400, body: { error: ack.error } };
      },
    };
  }
  if (kind === "gateway") {
    const socket = await server.connect(bot.token);
    return {
      ...base,
      send: async (f) => {
        const ack = await socket.emitWithAck("bot:send_message", { channel_id: channelId, content, ...f });
        return ack.ok ? { status: 201, body: ack.message } : { status: 400, body: { error: ack.error } };
      },
    };
  }
  const hook = (await server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Deploys" } })).body;
  return { ...base, created: 200, send: (f) => server.api("POST", `/api/webhooks/${hook.id}/${hook.token}?wait=true`, { body: { content, ...f } }) };
}

async function dmRoute(kind: "dm" | "dm-gif" | "dm-upload" | "group" | "bot-dm"): Promise<Route> {
  const { owner, member, members, serverId } = await community(server, { extraMembers: 1 });
  const listener = await server.connect(owner.token);
  const base = { listener, event: "dm:new" as const, created: 201 };
  const content = `hello ${kind}`;
  if (kind === "group") {
    const group = (await server.api("POST", "/api/v1/dm/groups", { token: member.token, body: { member_ids: [owner.id, members[1]!.id] } })).body;
    return {
      ...base,
      stored: async () => (await server.api("GET", `/api/v1/dm/groups/${group.id}/messages?limit=100`, { token: owner.token })).body,
      send: (f) => server.api("POST", `/api/v1/dm/groups/${group.id}/messages`, { token: member.token, body: { content, ...f } }),
    };
  }
  if (kind === "bot-dm") {
    const bot = await addBot(server, owner, serverId);
    const recipient = await server.connect(member.token);
    return {
      ...base,
      listener: recipient,
      stored: async () => (await server.api("GET", `/api/v1/dm/${bot.botUserId}/messages?limit=100`, { token: member.token })).body,
      send: (f) => server.api("POST", `/api/v1/oauth2/bot/dm/${member.id}`, { token: bot.token, body: { content, ...f } }),
    };
  }
  const stored = async () => (await server.api("GET", `/api/v1/dm/${member.id}/messages?limit=100`, { token: owner.token })).body;
  const path = `/api/v1/dm/${owner.id}`;
  if (kind === "dm") return { ...base, stored, send: (f) => server.api("POST", `${path}/messages`, { token: member.token, body: { content, ...f } }) };
  if (kind === "dm-gif") return { ...base, stored, send: (f) => server.api("POST", `${path}/gif`, { token: member.token, body: { url: "https://media.example.test/b.gif", ...f } }) };
  return { ...base, stored, send: (f) => server.api("POST", `${path}/upload`, { token: member.token, raw: form(f, content) }) };
}

const ROUTES = {
  "user REST": () => channelRoute("user"),
  "channel GIF": () => channelRoute("gif"),
  "channel upload (multipart)": () => channelRoute("upload"),
  "Bot REST channel message": () => channelRoute("bot"),
  "bot:send_message": () => channelRoute("gateway"),
  "interaction:response": () => channelRoute("interaction"),
  "webhook execute": () => channelRoute("webhook"),
  "1:1 DM": () => dmRoute("dm"),
  "DM GIF": () => dmRoute("dm-gif"),
  "DM upload (multipart)": () => dmRoute("dm-upload"),
  "group DM": () => dmRoute("group"),
  "Bot REST DM": () => dmRoute("bot-dm"),
};
/** Multipart fields are text: the nonce goes as a string, enforce_nonce as "true". */
const isForm = (name: string) => name.includes("multipart");

for (const [name, make] of Object.entries(ROUTES)) {
  describe(name, () => {
    test("a retry with the same nonce answers the first message: one row, one event", async () => {
      const route = await make();
      const events = recordEvents(route.listener, route.event);
      const nonce = nextNonce();
      const first = await route.send({ nonce, enforce_nonce: true });
      expect(first.status).toBe(route.created);
      expect(first.body.nonce).toBe(nonce);
      const retry = await route.send({ nonce, enforce_nonce: true });
      expect(retry.status).toBe(route.created);
      expect(retry.body).toEqual(first.body);

      // A different nonce is a new message; its event arriving means the retry's would have too.
      const other = nextNonce();
      const arrived = waitForEvent(route.listener, route.event, { filter: (m: any) => m.nonce === other });
      const second = await route.send({ nonce: other, enforce_nonce: true });
      expect(second.status).toBe(route.created);
      expect(second.body.id).not.toBe(first.body.id);
      await arrived;
      expect(events.map((m) => m.id)).toEqual([first.body.id, second.body.id]);
      expect(events[0].nonce).toBe(nonce);
      expect((await route.stored()).map((m) => m.id)).toEqual([second.body.id, first.body.id]);
      // Stored messages do not carry the nonce: only the answer and the event echo it.
      expect((await route.stored())[0].nonce).toBeUndefined();
    });

    test("without enforce_nonce the nonce is only echoed: two sends, two messages", async () => {
      const route = await make();
      const nonce = isForm(name) ? "plain" : 42;
      const a = await route.send({ nonce });
      const b = await route.send({ nonce, enforce_nonce: false });
      expect([a.status, b.status]).toEqual([route.created, route.created]);
      expect(a.body.nonce).toBe(nonce);
      expect(b.body.id).not.toBe(a.body.id);
      expect(await route.stored()).toHaveLength(2);
    });

    test("an integer nonce is a key too; a bad nonce is a 400 {error}", async () => {
      const route = await make();
      const bad: Record<string, unknown>[] = [{ nonce: "x".repeat(26), enforce_nonce: true }, { nonce: "", enforce_nonce: true }, { enforce_nonce: true }];
      if (!isForm(name)) bad.push({ nonce: 1.5 }, { nonce: { id: 1 } }, { nonce: true }, { nonce: "a", enforce_nonce: "yes" });
      else bad.push({ nonce: "a", enforce_nonce: "yes" });
      for (const fields of bad) {
        const res = await route.send(fields);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.stringMatching(/nonce/) });
      }
      if (!isForm(name)) {
        const first = await route.send({ nonce: 987654321, enforce_nonce: true });
        const retry = await route.send({ nonce: 987654321, enforce_nonce: true });
        expect(first.body.nonce).toBe(987654321);
        expect(retry.body.id).toBe(first.body.id);
      }
      expect(await route.stored()).toHaveLength(isForm(name) ? 0 : 1);
    });

    test("20 concurrent sends of one nonce store one message", async () => {
      const route = await make();
      const nonce = nextNonce();
      const answers = await Promise.all(Array.from({ length: 20 }, () => route.send({ nonce, enforce_nonce: true })));
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([route.created]));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(await route.stored()).toHaveLength(1);
    });
  });
}

test("the key is per sender: another member's send of the same nonce is their own message", async () => {
  const { owner, member, channelId } = await community(server);
  const nonce = nextNonce();
  const send = (token: string) => server.api("POST", `/api/v1/messages/${channelId}`, { token, body: { content: "same", nonce, enforce_nonce: true } });
  const a = await send(member.token);
  const b = await send(owner.token);
  expect(b.body.id).not.toBe(a.body.id);
  expect((await send(member.token)).body.id).toBe(a.body.id);
});

test("once the first message is deleted, a retry stores a new one", async () => {
  const { member, channelId } = await community(server);
  const nonce = nextNonce();
  const send = () => server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content: "gone", nonce, enforce_nonce: true } });
  const first = await send();
  expect((await server.api("DELETE", `/api/v1/messages/${first.body.id}`, { token: member.token })).status).toBe(200);
  const again = await send();
  expect(again.status).toBe(201);
  expect(again.body.id).not.toBe(first.body.id);
  expect((await send()).body.id).toBe(again.body.id);
});

test("a retry inside slowmode answers the first message (no 429); a new send is still slowed", async () => {
  const { owner, member, channelId } = await community(server);
  await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { slowmode: 30 } });
  const nonce = nextNonce();
  const send = (body: Record<string, unknown>) => server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content: "slow", ...body } });
  const first = await send({ nonce, enforce_nonce: true });
  expect(first.status).toBe(201);
  const retry = await send({ nonce, enforce_nonce: true });
  expect(retry.status).toBe(201);
  expect(retry.body.id).toBe(first.body.id);
  expect((await send({ nonce: nextNonce(), enforce_nonce: true })).status).toBe(429);
});

test("a retry of a slash command does not deliver the interaction again", async () => {
  const { owner, member, serverId, channelId } = await community(server);
  const bot = await addBot(server, owner, serverId);
  await registerCommands(server, bot, [{ name: "ping", description: "Ping" }]);
  const botSocket = await server.connect(bot.token);
  const interactions = recordEvents(botSocket, "interaction:create");
  const nonce = nextNonce();
  const send = (content: string, n = nonce) => server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content, nonce: n, enforce_nonce: true } });
  const first = await send("/ping");
  expect((await send("/ping")).body.id).toBe(first.body.id);
  // A second, different command: once its interaction is in, the retry's would have been too.
  const next = waitForEvent(botSocket, "interaction:create", { filter: (i: any) => i.message_id !== first.body.id });
  await send("/ping", nextNonce());
  await next;
  expect(interactions.filter((i) => i.message_id === first.body.id)).toHaveLength(1);
});

test("the send rules before storing apply to a retry: a sender who may no longer send is refused", async () => {
  const { owner, member, serverId, channelId } = await community(server);
  const nonce = nextNonce();
  const send = () => server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content: "x", nonce, enforce_nonce: true } });
  expect((await send()).status).toBe(201);
  expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token })).status).toBe(200);
  const retry = await send();
  expect(retry.status).toBe(403);
  expect(retry.body).toEqual({ error: expect.any(String) });
  // And without a token, 401 as for any send.
  expect((await server.api("POST", `/api/v1/messages/${channelId}`, { body: { content: "x", nonce, enforce_nonce: true } })).status).toBe(401);
});
