import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community } from "../helpers/community.ts";
import { createBot } from "../helpers/bots.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";

/**
 * A message's attachments are read only for messages stored with some (messages.has_attachments,
 * sqlite/migrations.ts version 15): every read of a message (page, page after, one message,
 * pins, search, edit) shows exactly its files, and nobody else's, after each path that adds or
 * removes attachments (send with uploads, message delete, bulk delete, channel and server
 * delete).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const TEXT = new TextEncoder().encode("notes\n");

async function sendFiles(channelId: string, user: TestUser, content: string, names: string[]) {
  const form = new FormData();
  for (const name of names) form.append("files", new File([name.endsWith(".png") ? PNG_1X1 : TEXT], name));
  form.append("content", content);
  const res = await server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: user.token, raw: form });
  expect(res.status).toBe(201);
  return res.body as { id: string; attachments: { id: string; original_name: string }[] };
}

async function sendText(channelId: string, user: TestUser, content: string) {
  const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
  expect(res.status).toBe(201);
  expect(res.body.attachments).toEqual([]);
  return res.body as { id: string };
}

type Shown = Record<string, string[]>;
/** content -> the original names of its attachments, from a list of wire messages. */
const shown = (messages: { content: string; attachments: { original_name: string }[] }[]): Shown =>
  Object.fromEntries(messages.map((m) => [m.content, m.attachments.map((a) => a.original_name)]));

async function page(channelId: string, user: TestUser, query = "") {
  const res = await server.api("GET", `/api/v1/messages/${channelId}${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return shown(res.body);
}

async function one(messageId: string, user: TestUser) {
  const res = await server.api("GET", `/api/v1/messages/id/${messageId}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.attachments.map((a: { original_name: string }) => a.original_name);
}

describe("attachments on message reads", () => {
  test("a page, one message, pins, search and an edit show each message's own files", async () => {
    const { owner, member, channelId } = await community(server);
    const plain1 = await sendText(channelId, member, "plain one");
    const files = await sendFiles(channelId, member, "with files", ["a.png", "b.txt"]);
    expect(files.attachments.map((a) => a.original_name)).toEqual(["a.png", "b.txt"]);
    const plain2 = await sendText(channelId, owner, "plain two");
    const single = await sendFiles(channelId, owner, "one file", ["c.txt"]);
    const expected = { "plain one": [], "with files": ["a.png", "b.txt"], "plain two": [], "one file": ["c.txt"] };

    expect(await page(channelId, member)).toEqual(expected);
    expect(await page(channelId, member, `?before=${single.id}&limit=2`)).toEqual({ "with files": ["a.png", "b.txt"], "plain two": [] });
    expect(await one(files.id, member)).toEqual(["a.png", "b.txt"]);
    expect(await one(plain2.id, member)).toEqual([]);
    expect(await one(single.id, member)).toEqual(["c.txt"]);

    for (const id of [files.id, plain2.id]) {
      expect((await server.api("POST", `/api/v1/messages/${channelId}/pins/${id}`, { token: owner.token })).status).toBe(200);
    }
    const pins = await server.api("GET", `/api/v1/messages/${channelId}/pins`, { token: member.token });
    expect(pins.status).toBe(200);
    expect(shown(pins.body)).toEqual({ "with files": ["a.png", "b.txt"], "plain two": [] });

    const search = await server.api("GET", `/api/v1/messages/${channelId}/search?q=with`, { token: member.token });
    expect(search.status).toBe(200);
    expect(shown(search.body)).toEqual({ "with files": ["a.png", "b.txt"] });

    const edited = await server.api("PUT", `/api/v1/messages/${files.id}`, { token: member.token, body: { content: "with files, edited" } });
    expect(edited.status).toBe(200);
    expect(edited.body.attachments.map((a: { original_name: string }) => a.original_name)).toEqual(["a.png", "b.txt"]);
    const editedPlain = await server.api("PUT", `/api/v1/messages/${plain1.id}`, { token: member.token, body: { content: "plain one, edited" } });
    expect(editedPlain.body.attachments).toEqual([]);
  });

  test("after a message delete: the deleted message is gone (404) and the others keep exactly their files", async () => {
    const { member, channelId } = await community(server);
    const first = await sendFiles(channelId, member, "first", ["a.txt"]);
    const plain = await sendText(channelId, member, "plain");
    const last = await sendFiles(channelId, member, "last", ["b.txt", "c.txt"]);
    expect((await server.api("DELETE", `/api/v1/messages/${first.id}`, { token: member.token })).status).toBe(200);
    expectError(await server.api("GET", `/api/v1/messages/id/${first.id}`, { token: member.token }), 404);
    expect(await page(channelId, member)).toEqual({ plain: [], last: ["b.txt", "c.txt"] });
    expect((await server.api("DELETE", `/api/v1/messages/${plain.id}`, { token: member.token })).status).toBe(200);
    expect(await page(channelId, member)).toEqual({ last: ["b.txt", "c.txt"] });
    expect(await one(last.id, member)).toEqual(["b.txt", "c.txt"]);
    const next = await sendText(channelId, member, "after");
    expect(await page(channelId, member)).toEqual({ last: ["b.txt", "c.txt"], after: [] });
    expect(await one(next.id, member)).toEqual([]);
  });

  test("after a bulk delete: the rest keep exactly their files", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const bot = await createBot(server, owner);
    const added = await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: { permissions: P.MANAGE_MESSAGES } });
    expect(added.status).toBeLessThan(300);
    const a = await sendFiles(channelId, member, "a", ["a.txt"]);
    const b = await sendText(channelId, member, "b");
    await sendFiles(channelId, member, "c", ["c.txt"]);
    await sendText(channelId, member, "d");
    // The bot's page after a message (the keyset read the other way).
    const after = await server.api("GET", `/api/v1/oauth2/bot/channels/${channelId}/messages?after=${a.id}&limit=2`, { token: bot.token });
    expect(after.status).toBe(200);
    expect(shown(after.body)).toEqual({ b: [], c: ["c.txt"] });
    const res = await server.api("POST", `/api/v1/oauth2/bot/channels/${channelId}/messages/bulk-delete`, { token: bot.token, body: { message_ids: [a.id, b.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect(await page(channelId, member)).toEqual({ c: ["c.txt"], d: [] });
  });

  test("after a channel or server delete: their pages are 404, other channels' files unchanged", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const created = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "files", type: "text" } });
    expect(created.status).toBe(201);
    const doomedChannel = created.body.id as string;
    const doomed = await sendFiles(doomedChannel, member, "doomed", ["x.txt"]);
    await sendFiles(channelId, member, "kept", ["k.txt"]);
    await sendText(channelId, member, "kept plain");
    expect((await server.api("DELETE", `/api/v1/channels/${doomedChannel}`, { token: owner.token })).status).toBe(200);
    expectError(await server.api("GET", `/api/v1/messages/${doomedChannel}`, { token: member.token }), 404);
    expectError(await server.api("GET", `/api/v1/messages/id/${doomed.id}`, { token: member.token }), 404);
    expect(await page(channelId, member)).toEqual({ kept: ["k.txt"], "kept plain": [] });

    const other = await community(server);
    await sendFiles(other.channelId, other.member, "elsewhere", ["e.txt"]);
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    expectError(await server.api("GET", `/api/v1/messages/${channelId}`, { token: member.token }), 404);
    expect(await page(other.channelId, other.member)).toEqual({ elsewhere: ["e.txt"] });
  });
});
