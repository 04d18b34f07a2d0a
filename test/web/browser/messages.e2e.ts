/**
 * Point 3, the text channel: live new, edited and deleted messages; send, reply, edit, delete
 * (own, and others' with MANAGE_MESSAGES); reactions (Unicode and custom); pins; attachments
 * with upload progress and inline images; typing; mentions as names; history paging up
 * without jumping.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { history, say } from "../../helpers/bot-platform.ts";
import { joinChannel } from "../../helpers/community.ts";
import { recordEvents, uniqueName, waitForEvent, type TestUser } from "../../helpers/server.ts";
import { eventually, messageLog, messageWith, solidPng, startWebSuite, type WebSuite } from "./harness.ts";
import { eventually as eventuallyTruthy, letTimePass, quietWindow } from "../../helpers/wait.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

async function twoPeople(serverName = "Chatter") {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, serverName);
  const member = await suite.server.register(uniqueName("member"));
  await addMember(suite.server, serverId, member);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const path = `/channels/${serverId}/${general!.id}`;
  return { owner, member, serverId, channelId: general!.id, path };
}

async function open(user: TestUser, path: string) {
  const person = await suite.person({ user, path });
  await person.page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  return person.page;
}

test("send, see it live, reply, edit your own, delete your own; others' messages live too", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);
  // Each sees themselves (and the other) online, however the member list and the socket raced.
  for (const [page, name] of [[ownerPage, owner.username], [memberPage, member.username], [memberPage, owner.username]] as const) {
    await page.getByRole("navigation", { name: "Members", exact: true }).getByRole("group", { name: /^Online/ }).getByRole("button", { name, exact: true }).waitFor();
  }

  const box = ownerPage.getByRole("textbox", { name: "Message #general", exact: true });
  await box.fill("Hello **everyone**, welcome!");
  await box.press("Enter");
  await messageWith(memberPage, "Hello everyone, welcome!").waitFor();
  expect(await messageWith(memberPage, "Hello everyone").locator("strong").textContent()).toBe("everyone");
  expect(await box.inputValue()).toBe("");

  // The member replies.
  const original = messageWith(memberPage, "Hello everyone, welcome!");
  await original.hover();
  await original.getByRole("button", { name: "Reply" }).click();
  await memberPage.getByText(`Replying to ${owner.username}`).waitFor();
  await memberPage.getByRole("textbox", { name: "Message #general", exact: true }).fill("Thanks, glad to be here");
  await memberPage.keyboard.press("Enter");
  const reply = messageWith(ownerPage, "Thanks, glad to be here");
  await reply.waitFor();
  expect(await reply.locator(".reply-preview").textContent()).toBe(`↪ Replying to ${owner.username} Hello everyone, welcome!`);
  const stored = await history(suite.server, owner.token, channelId);
  expect(stored[0].reply_to).toBe(stored[1].id);

  // The original, not the reply that quotes it.
  const original_ = (page: typeof ownerPage, text: string) => messageWith(page, text).filter({ hasNotText: "Thanks" });
  // The owner edits their message; both see the edit and the marker.
  const mine = original_(ownerPage, "Hello everyone, welcome!");
  await mine.hover();
  await mine.getByRole("button", { name: "Edit" }).click();
  const edit = ownerPage.getByRole("textbox", { name: "Edit message" });
  await edit.fill("Hello everyone, welcome aboard!");
  await suite.shot(ownerPage, "messages-1-editing");
  await edit.press("Enter");
  await original_(memberPage, "welcome aboard!").getByText("(edited)").waitFor();
  await original_(ownerPage, "welcome aboard!").getByText("(edited)").waitFor();
  // Nobody may edit someone else's message: the member has no Edit on it.
  await original_(memberPage, "welcome aboard!").hover();
  expect(await original_(memberPage, "welcome aboard!").getByRole("button", { name: "Edit" }).count()).toBe(0);
  expect(await original_(memberPage, "welcome aboard!").getByRole("button", { name: "Delete" }).count()).toBe(0);

  // Messages from elsewhere: sent, edited and deleted through the API.
  const elsewhere = await say(suite.server, member, channelId, "from my phone");
  await messageWith(ownerPage, "from my phone").waitFor();
  await suite.server.api("PUT", `/api/v1/messages/${elsewhere.body.id}`, { token: member.token, body: { content: "from my phone, fixed" } });
  await messageWith(ownerPage, "from my phone, fixed").getByText("(edited)").waitFor();
  await suite.server.api("DELETE", `/api/v1/messages/${elsewhere.body.id}`, { token: member.token });
  await eventually(async () => expect(await messageWith(ownerPage, "from my phone").count()).toBe(0));

  // The owner deletes their own message, after confirming.
  await original_(ownerPage, "welcome aboard!").hover();
  await original_(ownerPage, "welcome aboard!").getByRole("button", { name: "Delete" }).click();
  const confirm = ownerPage.getByRole("dialog", { name: "Delete message" });
  await suite.shot(ownerPage, "messages-2-delete-confirm");
  await confirm.getByRole("button", { name: "Delete" }).click();
  await eventually(async () => expect(await original_(memberPage, "welcome aboard!").count()).toBe(0));
  // The reply now says its original is gone.
  await messageWith(memberPage, "Thanks, glad to be here").getByText("The original message was deleted").waitFor();
  await suite.shot(memberPage, "messages-3-after-delete");
});

test("with MANAGE_MESSAGES one deletes others' messages and pins; the pins panel lists them", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  await say(suite.server, member, channelId, "please pin this rule");
  await say(suite.server, member, channelId, "spam spam spam");
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);

  const spam = messageWith(ownerPage, "spam spam spam");
  await spam.hover();
  await spam.getByRole("button", { name: "Delete" }).click();
  await ownerPage.getByRole("dialog", { name: "Delete message" }).getByRole("button", { name: "Delete" }).click();
  await eventually(async () => expect(await messageWith(memberPage, "spam spam spam").count()).toBe(0));

  const rule = messageWith(ownerPage, "please pin this rule");
  await rule.hover();
  await rule.getByRole("button", { name: "Pin" }).click();
  await messageWith(memberPage, "please pin this rule").getByText("Pinned").waitFor();
  // A plain member cannot pin.
  await messageWith(memberPage, "please pin this rule").hover();
  expect(await messageWith(memberPage, "please pin this rule").getByRole("button", { name: "Pin" }).count()).toBe(0);

  await memberPage.getByRole("button", { name: "Pinned messages" }).click();
  const panel = memberPage.getByRole("complementary", { name: "Pinned messages" });
  await panel.getByText("please pin this rule").waitFor();
  await suite.shot(memberPage, "messages-4-pins");

  await rule.hover();
  await rule.getByRole("button", { name: "Unpin" }).click();
  await panel.getByText("No pinned messages yet").waitFor();
  expect(await messageWith(memberPage, "please pin this rule").getByText("Pinned").count()).toBe(0);
});

test("reactions with Unicode and custom emoji, live for everyone", async () => {
  const { owner, member, serverId, channelId, path } = await twoPeople();
  const form = new FormData();
  form.append("emoji", new File([solidPng(32, 32, [232, 89, 12])], "party.png", { type: "image/png" }));
  form.append("name", "party");
  const uploaded = await suite.server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: owner.token, raw: form });
  expect(uploaded.status).toBe(201);
  await say(suite.server, owner, channelId, "react to me");
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);

  const target = messageWith(memberPage, "react to me");
  await target.hover();
  await target.getByRole("button", { name: "Add reaction" }).click();
  const picker = memberPage.getByRole("dialog", { name: "Add reaction" });
  await picker.getByRole("button", { name: ":party:" }).waitFor();
  await suite.shot(memberPage, "messages-5-emoji-picker");
  // Each emoji is named by its label.
  await picker.getByRole("button", { name: "thumbs up", exact: true }).click();
  const mine = target.getByRole("button", { name: "👍 1" });
  await mine.waitFor();
  expect(await mine.getAttribute("aria-pressed")).toBe("true");

  const seen = messageWith(ownerPage, "react to me").getByRole("button", { name: "👍 1" });
  await seen.waitFor();
  expect(await seen.getAttribute("aria-pressed")).toBe("false");
  await seen.click();
  await target.getByRole("button", { name: "👍 2" }).waitFor();

  // A custom emoji of the server.
  await target.hover();
  await target.getByRole("button", { name: "Add reaction" }).click();
  await picker.getByRole("button", { name: ":party:" }).click();
  const custom = messageWith(ownerPage, "react to me").getByRole("button", { name: ":party: 1" });
  await custom.waitFor();
  expect(await custom.locator("img").getAttribute("alt")).toBe(":party:");
  await suite.shot(ownerPage, "messages-6-reactions");

  // Taking one back.
  await target.getByRole("button", { name: "👍 2" }).click();
  await messageWith(ownerPage, "react to me").getByRole("button", { name: "👍 1" }).waitFor();
  // A reload shows the stored reactions.
  await memberPage.reload();
  await messageWith(memberPage, "react to me").getByRole("button", { name: ":party: 1" }).waitFor();
  expect(await messageWith(memberPage, "react to me").getByRole("button", { name: "👍 1" }).getAttribute("aria-pressed")).toBe("false");
});

test("attachments: an upload progress bar, images inline, other files as downloads", async () => {
  const { owner, member, path } = await twoPeople();
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);

  // Slow the upload so its progress can be seen.
  const cdp = await ownerPage.context().newCDPSession(ownerPage);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  const picture = solidPng(240, 160, [76, 110, 245]);
  const padding = new Uint8Array(700 * 1024).fill(65);
  await ownerPage.locator('input[type="file"]').setInputFiles([
    { name: "blue.png", mimeType: "image/png", buffer: Buffer.from(picture) },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from(padding) },
  ]);
  const staged = ownerPage.getByRole("list", { name: "Files to send" });
  await staged.getByText("blue.png").waitFor();
  await staged.getByText("notes.txt").waitFor();
  await ownerPage.getByRole("textbox", { name: "Message #general", exact: true }).fill("holiday pictures");
  await ownerPage.keyboard.press("Enter");
  const progress = ownerPage.getByRole("progressbar", { name: "Upload progress" });
  await progress.waitFor();
  await suite.shot(ownerPage, "messages-7-upload-progress");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  const sent = messageWith(memberPage, "holiday pictures");
  await sent.waitFor();
  const image = sent.getByRole("img", { name: "blue.png" });
  await image.waitFor();
  await eventually(async () => expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(240));
  const file = sent.getByRole("link", { name: /notes\.txt/ });
  expect(await file.getAttribute("download")).toBe("notes.txt");
  expect(await file.textContent()).toContain("700 KB");
  await eventually(async () => expect(await progress.count()).toBe(0));
  await suite.shot(memberPage, "messages-8-attachments");
});

test("typing indicators both ways, and the composer sends typing:start only every few seconds", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  const ownerPage = await open(owner, path);
  const socket = await joinChannel(suite.server, member, channelId);
  socket.emit("typing:start", channelId);
  const indicator = ownerPage.getByText(`${member.username} is typing…`);
  await indicator.waitFor();
  await suite.shot(ownerPage, "messages-9-typing");
  socket.emit("typing:stop", channelId);
  await eventually(async () => expect(await indicator.count()).toBe(0));

  const starts = recordEvents(socket, "typing:start");
  const first = waitForEvent(socket, "typing:start");
  await ownerPage.getByRole("textbox", { name: "Message #general", exact: true }).pressSequentially("typing a long sentence", { delay: 20 });
  expect((await first).userId).toBe(owner.id);
  await quietWindow(); // the page's later keystrokes start no second typing:start
  expect(starts.length).toBe(1);
  const stop = waitForEvent(socket, "typing:stop");
  await ownerPage.keyboard.press("Enter");
  expect((await stop).userId).toBe(owner.id);
  socket.close();
});

test("mentions: rendered as names, and written with @ suggestions", async () => {
  const { owner, member, serverId, channelId, path } = await twoPeople();
  const role = await suite.server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "Helpers", color: "#2F9E44", permissions: 0 } });
  await say(suite.server, member, channelId, `hey <@${owner.id}>, see <#${channelId}> and ask <@&${role.body.id}>`);
  const ownerPage = await open(owner, path);
  const line = messageWith(ownerPage, "hey @");
  await line.waitFor();
  expect(await line.locator(".message-text").textContent()).toBe(`hey @${owner.username}, see #general and ask @Helpers`);
  expect(await line.getByRole("link", { name: "#general" }).getAttribute("href")).toBe(path);
  await suite.shot(ownerPage, "messages-10-mentions");

  const box = ownerPage.getByRole("textbox", { name: "Message #general", exact: true });
  await box.pressSequentially(`thanks @${member.username.slice(0, 4)}`);
  const suggestions = ownerPage.getByRole("listbox", { name: "Members", exact: true });
  await suggestions.getByRole("option", { name: `@${member.username}` }).waitFor();
  await box.press("Enter"); // chooses the suggestion
  expect(await box.inputValue()).toBe(`thanks @${member.username} `);
  await box.press("Enter"); // sends
  await messageWith(ownerPage, `thanks @${member.username}`).waitFor();
  const [latest] = await history(suite.server, owner.token, channelId);
  expect(latest.content).toBe(`thanks <@${member.id}>`);
});

test("history loads older pages when scrolling up, without moving what one is looking at", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  for (let i = 1; i <= 200; i++) await say(suite.server, i % 2 ? owner : member, channelId, `line ${i}`);
  const page = await open(owner, path);
  const log = messageLog(page);
  await messageWith(page, "line 200").waitFor();
  await eventually(async () => expect(await messageWith(page, "line 200").isVisible()).toBe(true));
  expect(await messageWith(page, /^.*line 1$/).count()).toBe(0);
  await suite.shot(page, "messages-11-latest");

  // Older pages answer slowly here, so what the reader looks at can be measured before and after each prepend.
  // Older pages served, counted where they are answered: on a loaded machine a prepend may land
  // after the window in which one step measures, so the count does not come from heights.
  let olderPages = 0;
  await page.route(/\/api\/v1\/messages\/[^/?]+\?before=/, async (route) => {
    await letTimePass(300, "older pages answer slowly");
    await route.continue();
    olderPages++;
  });
  // Scroll near the top: an older page is prepended, and the message in the middle of the view stays exactly where it was.
  for (let step = 0; step < 16; step++) {
    if ((await page.getByRole("heading", { name: "Welcome to #general!" }).count()) > 0) break;
    const pagesBefore = olderPages;
    await log.evaluate((el) => {
      el.scrollTop = 150;
    });
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))));
    const probe = await log.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      const articles = Array.from(el.querySelectorAll("article")) as any[];
      const middle = articles.find((a) => a.getBoundingClientRect().top > top + 200);
      return { text: middle.querySelector(".message-text").textContent as string, y: middle.getBoundingClientRect().top as number, height: el.scrollHeight as number };
    });
    // The older page this scroll asked for is served and prepended (the log grows; two frames to
    // lay it out). A step that asks for none waits the deadline out and measures all the same.
    const prepended = async () => olderPages > pagesBefore && (await log.evaluate((el) => el.scrollHeight as number)) !== probe.height;
    await eventuallyTruthy(prepended, "an older page prepended", { timeoutMs: 3000, intervalMs: 20 }).catch(() => {});
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))));
    const after = await log.evaluate((el, text) => {
      const found = (Array.from(el.querySelectorAll("article")) as any[]).find((a) => a.querySelector(".message-text")?.textContent === text);
      return { y: found ? (found.getBoundingClientRect().top as number) : null, height: el.scrollHeight as number };
    }, probe.text);
    expect(after.y).not.toBeNull();
    expect(Math.abs(after.y! - probe.y)).toBeLessThan(3);
  }
  await page.getByRole("heading", { name: "Welcome to #general!" }).waitFor();
  // 200 messages, 50 a page: the first page and at least three older ones.
  expect(olderPages).toBeGreaterThanOrEqual(3);
  await messageWith(page, /^.*line 1$/).waitFor();
  await suite.shot(page, "messages-12-oldest");
  // Only what is in view is rendered.
  expect(await log.getByRole("article").count()).toBeLessThan(60);
});
