/**
 * Emoji (issue 44, point 2): one searchable picker, "Emoji" in the composer and "Add reaction" on
 * a message, with the full Unicode set (emojibase-data, a chunk loaded on first use), categories,
 * recently used, skin tones and the server's custom emoji; always inside the window; the
 * composer's `:` suggestions; custom emoji sent as `<:name:id>` and seen as their image.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { history, say } from "../../helpers/bot-platform.ts";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { seriousViolations } from "./axe.ts";
import { eventually, isFocused, messageWith, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const CATEGORIES = ["Smileys & Emotion", "People & Body", "Animals & Nature", "Food & Drink", "Travel & Places", "Activities", "Objects", "Symbols", "Flags"];

/** An owner and a member in a server with a custom emoji `pizzaparty`, uploaded before anyone looks. */
async function setting(serverName = "Emoji Town") {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, serverName);
  const member = await suite.server.register(uniqueName("member"));
  await addMember(suite.server, serverId, member);
  const form = new FormData();
  form.append("emoji", new File([solidPng(32, 32, [232, 89, 12])], "pizzaparty.png", { type: "image/png" }));
  form.append("name", "pizzaparty");
  const uploaded = await suite.server.api("POST", `/api/v1/servers/${serverId}/emojis`, { token: owner.token, raw: form });
  expect(uploaded.status).toBe(201);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  return { owner, member, serverId, channelId: general!.id, emojiId: uploaded.body.emoji.id as string, path: `/channels/${serverId}/${general!.id}` };
}

async function open(user: TestUser, path: string) {
  const person = await suite.person({ user, path });
  await composerBox(person.page).waitFor();
  return person.page;
}

const composerBox = (page: Page) => page.getByRole("textbox", { name: "Message #general", exact: true });

/** The picker is wholly inside the window. */
async function insideWindow(page: Page, name: string) {
  const box = (await page.getByRole("dialog", { name }).boundingBox())!;
  const view = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(view.width);
  expect(box.y + box.height).toBeLessThanOrEqual(view.height);
  return box;
}

test("the composer's Emoji picker: search, pick, send; categories, skin tone, recently used, keyboard", async () => {
  const { owner, member, path } = await setting();
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);
  const box = composerBox(ownerPage);
  const scripts: string[] = [];
  ownerPage.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  // The emoji data is a chunk of its own, fetched when the picker first opens.
  const isEmojiSet = (path: string) => /\/assets\/emoji-set-[^/]*\.js$/.test(path);
  await Bun.sleep(300);
  expect(scripts.some(isEmojiSet)).toBe(false);

  await ownerPage.getByRole("button", { name: "Emoji", exact: true }).click();
  const picker = ownerPage.getByRole("dialog", { name: "Emoji", exact: true });
  const search = picker.getByRole("searchbox", { name: "Search emoji", exact: true });
  await search.waitFor();
  expect(await isFocused(search)).toBe(true);
  const categories = picker.getByRole("toolbar", { name: "Categories", exact: true });
  // The server's own emoji under its name, then Unicode's groups (no "Recently used" before a first pick).
  await categories.getByRole("button", { name: "Flags", exact: true }).waitFor();
  for (const name of ["Emoji Town", ...CATEGORIES]) await categories.getByRole("button", { name, exact: true }).waitFor();
  expect(await categories.getByRole("button", { name: "Recently used" }).count()).toBe(0);
  await picker.getByRole("region", { name: "Emoji Town", exact: true }).getByRole("button", { name: ":pizzaparty:", exact: true }).waitFor();
  await picker.getByRole("region", { name: "Smileys & Emotion", exact: true }).getByRole("button", { name: "grinning face", exact: true }).waitFor();
  expect(scripts.filter(isEmojiSet).length).toBe(1);
  await insideWindow(ownerPage, "Emoji");
  expect(await seriousViolations(ownerPage)).toEqual([]);
  await suite.shot(ownerPage, "emoji-1-picker", { phone: true });

  // A category button scrolls to its section.
  await categories.getByRole("button", { name: "Flags", exact: true }).click();
  await eventually(async () => expect(await picker.getByRole("heading", { name: "Flags", exact: true }).isVisible()).toBe(true));
  await picker.getByRole("button", { name: "flag: Japan", exact: true }).waitFor();
  await eventually(async () => expect(await categories.getByRole("button", { name: "Flags", exact: true }).getAttribute("aria-current")).toBe("true"));
  await picker.getByRole("region", { name: "Food & Drink", exact: true }).getByRole("button", { name: "hamburger", exact: true }).scrollIntoViewIfNeeded();
  await eventually(async () => expect(await categories.getByRole("button", { name: "Food & Drink", exact: true }).getAttribute("aria-current")).toBe("true"));

  await search.fill("qqzzx");
  await picker.getByText("No emoji match “qqzzx”").waitFor();
  expect(await picker.getByRole("status").textContent()).toBe("No emoji found");
  await search.fill("pizza");
  await eventually(async () => expect(await picker.getByRole("status").textContent()).toBe("3 emoji found"));
  const found = picker.getByRole("region", { name: "Search results", exact: true });
  // The server's emoji that match come first.
  expect(await found.getByRole("button").first().getAttribute("aria-label")).toBe(":pizzaparty:");
  await suite.shot(ownerPage, "emoji-2-search");
  await found.getByRole("button", { name: "pizza", exact: true }).click();
  expect(await picker.count()).toBe(0);
  expect(await box.inputValue()).toBe("🍕");
  expect(await isFocused(box)).toBe(true);
  await box.press("Enter");
  await messageWith(memberPage, "🍕").waitFor();

  // Skin tone: kept on the device, applied to the emoji that have tones.
  await ownerPage.getByRole("button", { name: "Emoji", exact: true }).click();
  await picker.getByRole("button", { name: "Skin tone", exact: true }).click();
  const tones = picker.getByRole("radiogroup", { name: "Skin tone", exact: true });
  expect(await tones.getByRole("radio").count()).toBe(6);
  await tones.getByRole("radio", { name: "Medium skin tone", exact: true }).click({ force: true });
  expect(await tones.count()).toBe(0);
  expect(await ownerPage.evaluate(() => localStorage.getItem("hearth.emoji.skin-tone"))).toBe("3");
  // Recently used shows the pick, first.
  const recent = picker.getByRole("region", { name: "Recently used", exact: true });
  expect(await recent.getByRole("button").first().getAttribute("aria-label")).toBe("pizza");
  await search.fill("waving hand");
  await picker.getByRole("region", { name: "Search results", exact: true }).getByRole("button", { name: "waving hand", exact: true }).click();
  expect(await box.inputValue()).toBe("👋🏽");
  await box.fill("");

  // The keyboard: Down from the search into the results, arrows move, Enter picks.
  await ownerPage.getByRole("button", { name: "Emoji", exact: true }).click();
  expect(await recent.getByRole("button").first().textContent()).toBe("👋🏽");
  await search.fill("thumbs");
  await search.press("ArrowDown");
  const results = picker.getByRole("region", { name: "Search results", exact: true }).getByRole("button");
  expect(await isFocused(results.nth(0))).toBe(true);
  await ownerPage.keyboard.press("ArrowRight");
  expect(await isFocused(results.nth(1))).toBe(true);
  const second = await results.nth(1).getAttribute("aria-label");
  await ownerPage.keyboard.press("ArrowLeft");
  await ownerPage.keyboard.press("ArrowRight");
  await ownerPage.keyboard.press("Enter");
  expect(await picker.count()).toBe(0);
  expect(second).toBe("thumbs down");
  expect(await box.inputValue()).toBe("👎🏽");

  // Escape closes and gives the focus back to the opener; Tab out of the grid leaves and closes it.
  const opener = ownerPage.getByRole("button", { name: "Emoji", exact: true });
  await opener.click();
  await search.waitFor();
  await ownerPage.keyboard.press("Escape");
  expect(await picker.count()).toBe(0);
  expect(await isFocused(opener)).toBe(true);
  await opener.press("Enter");
  await search.press("ArrowDown");
  await ownerPage.keyboard.press("Tab");
  expect(await picker.count()).toBe(0);
  expect(await isFocused(ownerPage.getByRole("button", { name: "Send", exact: true }))).toBe(true);
});

test("Add reaction through the picker; it stays inside the window for the newest message and on a phone", async () => {
  const { owner, member, channelId, path } = await setting("Reactions Place");
  for (let i = 1; i <= 30; i++) await say(suite.server, owner, channelId, `filler ${i}`);
  await say(suite.server, owner, channelId, "react to the newest");
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);

  const newest = messageWith(memberPage, "react to the newest");
  await newest.hover();
  await newest.getByRole("button", { name: "Add reaction", exact: true }).click();
  const picker = memberPage.getByRole("dialog", { name: "Add reaction", exact: true });
  await picker.getByRole("searchbox", { name: "Search emoji", exact: true }).waitFor();
  const desktop = await insideWindow(memberPage, "Add reaction");
  // The message is at the bottom: the picker opens above it.
  const button = (await newest.getByRole("button", { name: "Add reaction", exact: true }).boundingBox())!;
  expect(desktop.y + desktop.height).toBeLessThanOrEqual(button.y);
  await suite.shot(memberPage, "emoji-3-reaction-picker");

  await picker.getByRole("searchbox", { name: "Search emoji", exact: true }).fill("thumbs up");
  await memberPage.keyboard.press("Enter");
  await messageWith(ownerPage, "react to the newest").getByRole("button", { name: "👍 1", exact: true }).waitFor();
  expect(await picker.count()).toBe(0);

  // A custom emoji of the server, from its own section.
  await newest.hover();
  await newest.getByRole("button", { name: "Add reaction", exact: true }).click();
  await picker.getByRole("region", { name: "Reactions Place", exact: true }).getByRole("button", { name: ":pizzaparty:", exact: true }).click();
  const custom = messageWith(ownerPage, "react to the newest").getByRole("button", { name: ":pizzaparty: 1", exact: true });
  await custom.waitFor();
  expect(await custom.locator("img").getAttribute("alt")).toBe(":pizzaparty:");

  // A phone-sized window: a full-width sheet at the bottom.
  await memberPage.setViewportSize({ width: 390, height: 844 });
  // The message's tools show while focus is in it (a phone has no hover).
  await newest.getByRole("button", { name: "Add reaction", exact: true }).focus();
  await memberPage.keyboard.press("Enter");
  await picker.getByRole("searchbox", { name: "Search emoji", exact: true }).waitFor();
  const phone = await insideWindow(memberPage, "Add reaction");
  expect(phone.x).toBe(0);
  expect(phone.width).toBe(390);
  expect(phone.y + phone.height).toBe(844);
  await suite.shot(memberPage, "emoji-4-reaction-picker-phone");
});

test("`:` suggestions: Unicode and the server's custom emoji, sent as <:name:id> and seen as the image by another person", async () => {
  const { owner, member, channelId, emojiId, path } = await setting("Suggestion Hall");
  const ownerPage = await open(owner, path);
  const memberPage = await open(member, path);
  const box = composerBox(ownerPage);

  await box.pressSequentially(":p");
  expect(await ownerPage.getByRole("listbox", { name: "Emoji" }).count()).toBe(0);
  await box.pressSequentially("i");
  const list = ownerPage.getByRole("listbox", { name: "Emoji", exact: true });
  await list.waitFor();
  expect(await box.getAttribute("aria-activedescendant")).toBeTruthy();
  const options = list.getByRole("option");
  // The server's emoji that match first, then Unicode, ten at most.
  // (The Unicode ones join the server's as soon as their chunk has loaded.)
  await eventually(async () => expect(await options.count()).toBe(10));
  expect(await options.first().textContent()).toContain(":pizzaparty:");
  await suite.shot(ownerPage, "emoji-5-suggestions", { phone: true });
  // Escape closes the list; typing on opens it again.
  await box.press("Escape");
  expect(await list.count()).toBe(0);
  await box.pressSequentially("zz");
  await list.getByRole("option", { name: ":pizza:", exact: true }).waitFor();
  expect(await options.first().textContent()).toContain(":pizzaparty:");
  await box.press("Enter");
  expect(await box.inputValue()).toBe(`<:pizzaparty:${emojiId}> `);
  await box.pressSequentially("and :pizz");
  await list.getByRole("option", { name: ":pizza:", exact: true }).waitFor();
  await box.press("ArrowDown");
  await box.press("Tab");
  expect(await box.inputValue()).toBe(`<:pizzaparty:${emojiId}> and 🍕 `);
  await box.press("Enter");

  const seen = messageWith(memberPage, "and 🍕");
  await seen.waitFor();
  expect(await seen.getByRole("img", { name: ":pizzaparty:", exact: true }).getAttribute("alt")).toBe(":pizzaparty:");
  const stored = await history(suite.server, owner.token, channelId);
  expect(stored.map((m: { content: string }) => m.content)).toContain(`<:pizzaparty:${emojiId}> and 🍕`);

  // A reply's quote shows it as the image too.
  await seen.hover();
  await seen.getByRole("button", { name: "Reply", exact: true }).click();
  await composerBox(memberPage).fill("same here");
  await composerBox(memberPage).press("Enter");
  const reply = messageWith(ownerPage, "same here");
  await reply.waitFor();
  await eventually(async () => expect(await reply.getByRole("button", { name: /Jump to the replied message/ }).locator("img[alt=':pizzaparty:']").count()).toBe(1));
  await suite.shot(memberPage, "emoji-6-sent");
});

test("keys typed straight after choosing a suggestion stay in order, even when the next frame is late", async () => {
  const { owner, emojiId, path } = await setting("Fast Typists");
  const page = await open(owner, path);
  const box = composerBox(page);
  const list = page.getByRole("listbox", { name: "Emoji", exact: true });
  // A busy machine: every animation frame comes half a second late.
  await page.evaluate("window.requestAnimationFrame = (run) => setTimeout(() => run(performance.now()), 500)");
  await box.pressSequentially(":pizzap");
  await list.getByRole("option", { name: ":pizzaparty:", exact: true }).waitFor();
  await box.press("Tab");
  await box.pressSequentially("ab");
  await Bun.sleep(600);
  await box.pressSequentially("cd");
  expect(await box.inputValue()).toBe(`<:pizzaparty:${emojiId}> abcd`);
  expect(await isFocused(box)).toBe(true);
  expect(await box.evaluate((el) => (el as unknown as { selectionStart: number }).selectionStart)).toBe(`<:pizzaparty:${emojiId}> abcd`.length);
  await suite.shot(page, "emoji-7-typed-after-suggestion", { phone: true });
});
