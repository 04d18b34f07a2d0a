/**
 * The composer says what the reader may do before they type (docs/web.md, "Composer"): a
 * channel without SEND_MESSAGES, a running timeout with its countdown (and the composer back by
 * itself when it ends), a voice channel whose text chat is off, and the attach and reaction
 * buttons following ATTACH_FILES and ADD_REACTIONS. Every change arrives live.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PERMISSIONS as P } from "../../../src/domain/access/permission-bits.ts";
import { addMember, createServer, createVoiceChannel } from "../../helpers/community.ts";
import { say } from "../../helpers/bot-platform.ts";
import { uniqueName } from "../../helpers/server.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const NO_PERMISSION = "You do not have permission to send messages in this channel";

async function place() {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, "Rules");
  const member = await suite.server.register(uniqueName("member"));
  await addMember(suite.server, serverId, member);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const everyone = (await suite.server.app.store.access.member(serverId, owner.id))!.everyone_id;
  const api = (method: string, path: string, body?: unknown) => suite.server.api(method, path, { token: owner.token, body });
  return { owner, member, serverId, channelId: general!.id, everyone, api };
}

test("a read-only channel replaces the composer with the reason, live, and gives it back when the override goes", async () => {
  const { owner, member, serverId, channelId, everyone, api } = await place();
  await say(suite.server, owner, channelId, "read me");
  const { page } = await suite.person({ user: member, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.waitFor();
  expect(await page.getByRole("button", { name: "Attach files", exact: true }).count()).toBe(1);

  expect((await api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { allow: 0, deny: P.SEND_MESSAGES | P.ATTACH_FILES | P.ADD_REACTIONS })).status).toBe(200);
  await page.getByRole("status").filter({ hasText: NO_PERMISSION }).waitFor();
  expect(await page.getByRole("status").filter({ hasText: NO_PERMISSION }).textContent()).toBe(NO_PERMISSION);
  expect(await box.count()).toBe(0);
  // Hovering a message offers neither a new reaction nor a reply.
  const message = page.getByRole("article", { name: /^owner/ });
  await message.hover();
  const actions = message.getByRole("toolbar", { name: "Message actions", exact: true });
  expect(await actions.getByRole("button", { name: "Add reaction" }).count()).toBe(0);
  expect(await actions.getByRole("button", { name: "Reply" }).count()).toBe(0);
  await suite.shot(page, "composer-1-read-only");
  await suite.shot(page, "composer-1-read-only", { phone: true });

  // Sending allowed again, files still not: the composer is back without its attach button.
  expect((await api("PUT", `/api/v1/channels/${channelId}/permissions/${everyone}`, { allow: 0, deny: P.ATTACH_FILES })).status).toBe(200);
  await box.waitFor();
  expect(await page.getByRole("button", { name: "Attach files" }).count()).toBe(0);
  await box.fill("allowed again");
  await box.press("Enter");
  await page.getByRole("article", { name: /^member/ }).filter({ hasText: "allowed again" }).waitFor();
});

test("a timed-out member sees until when and the time left, and the composer comes back by itself when it ends", async () => {
  const { member, serverId, channelId, api } = await place();
  const { page } = await suite.person({ user: member, path: `/channels/${serverId}/${channelId}` });
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.waitFor();

  // A timeout through the route arrives live (member:timeout); lifted, the composer returns.
  expect((await api("POST", `/api/v1/servers/${serverId}/timeouts`, { targetUserId: member.id, duration: 600 })).status).toBe(200);
  const notice = page.getByRole("status").filter({ hasText: "You are timed out until" });
  await notice.waitFor();
  expect(await notice.textContent()).toMatch(/^You are timed out until \S.* \((9:5\d|10:00) left\)$/);
  await suite.shot(page, "composer-2-timed-out");
  await suite.shot(page, "composer-2-timed-out", { phone: true });
  expect((await api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`)).status).toBe(200);
  await box.waitFor();

  // A timeout that ends in a few seconds (set in the store: the route's shortest is a minute):
  // the countdown runs down and the composer is back without any event.
  await suite.server.app.store.moderation.setTimeout(serverId, member.id, Math.floor(Date.now() / 1000) + 3);
  await page.reload();
  await notice.waitFor();
  const left = async () => Number(/\(0:0(\d) left\)/.exec((await notice.textContent()) ?? "")?.[1]);
  const first = await left();
  await eventually(async () => expect(await left()).toBeLessThan(first));
  await box.waitFor({ timeout: 10_000 });
  await box.fill("back again");
  await box.press("Enter");
  await page.getByRole("article", { name: /^member/ }).filter({ hasText: "back again" }).waitFor();
});

test("a voice channel whose text chat is off says so in the composer's place", async () => {
  const { owner, serverId } = await place();
  const voiceId = await createVoiceChannel(suite.server, owner, serverId, { chat_enabled: false });
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${voiceId}` });
  const notice = page.getByRole("status").filter({ hasText: "Text chat is disabled for this voice channel" });
  await notice.waitFor();
  expect(await notice.textContent()).toBe("Text chat is disabled for this voice channel");
  expect(await page.getByRole("textbox", { name: /^Message/ }).count()).toBe(0);
});
