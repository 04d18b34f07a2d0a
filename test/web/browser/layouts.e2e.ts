/**
 * Issue 44, point 1: phone and tablet layouts from one code base (docs/web.md, "Phone and
 * tablet"). At 390x844 (touch, a mobile viewport) one column shows the conversation, "Open
 * navigation" opens the drawer of servers and channels and "Show members" the member sheet; at
 * 768x1024 (touch) the member list is a toggle; at 1280x800 it is always shown. Everything here
 * is done by touch (playwright's tap) at the touch sizes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { say } from "../../helpers/bot-platform.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { eventually, fitsWidth, isFocused, messageWith, startWebSuite, type Device, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const LONG_URL = `https://example.com/${"averyveryverylongpathsegment".repeat(6)}`;
const CODE = "```\nconst line = " + JSON.stringify("x".repeat(160)) + ";\n```";

/** A server with #general (a few messages, one with a long URL, one with a wide code block) and #random. */
async function place(name: string) {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, name);
  const friend = await suite.server.register(uniqueName("friend"));
  await addMember(suite.server, serverId, friend);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const random = await suite.server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "random", type: "text" } });
  expect(random.status).toBe(201);
  await say(suite.server, friend, general!.id, "Welcome to the server, everyone! Say hello and tell us what you are working on this week.");
  await say(suite.server, friend, general!.id, `The notes are at ${LONG_URL}`);
  await say(suite.server, owner, general!.id, CODE);
  return { owner, friend, serverId, path: `/channels/${serverId}/${general!.id}` };
}

async function open(user: TestUser, path: string, device: Device): Promise<Page> {
  const { page } = await suite.person({ user, path, device });
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  await messageWith(page, "Welcome to the server").waitFor();
  return page;
}

/** The width of a message's text box, in CSS pixels. */
const textWidth = (page: Page, text: string) => messageWith(page, text).locator(".message-text").evaluate((el) => el.getBoundingClientRect().width);
/** Nothing makes the page scroll sideways (the message log's long URL and code block included). */
const noSideScroll = (page: Page) => page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth") as Promise<boolean>;
const channels = (page: Page) => page.getByRole("navigation", { name: "Channels", exact: true });
const members = (page: Page) => page.getByRole("navigation", { name: "Members", exact: true });
const drawer = (page: Page) => page.getByRole("dialog", { name: "Navigation", exact: true });
const opener = (page: Page) => page.getByRole("button", { name: "Open navigation", exact: true });

/** The box of an element, for the 44 px touch targets. */
async function box(page: Page, locator: ReturnType<Page["getByRole"]>) {
  const b = await locator.boundingBox();
  if (!b) throw new Error("not shown");
  return b;
}

test("a phone (390x844, touch): the conversation full width, the drawer, the member sheet, sending, reacting, a DM and both settings by touch", async () => {
  const { owner, friend, serverId } = await place("Pocket");
  const page = await open(owner, `/channels/${serverId}`, "phone");
  expect(await textWidth(page, "Welcome to the server")).toBeGreaterThanOrEqual(300);
  expect(await noSideScroll(page)).toBe(true);
  expect(await fitsWidth(page)).toBe(true);
  // No rail, no channel list and no member list beside the conversation.
  expect(await channels(page).count()).toBe(0);
  expect(await members(page).count()).toBe(0);
  // The composer spans the window (less its margins); its text box is what its two buttons leave.
  const composer = await page.locator(".composer").evaluate((el) => el.getBoundingClientRect().width);
  expect(composer).toBeGreaterThanOrEqual(370);
  expect((await box(page, page.getByRole("textbox", { name: "Message #general", exact: true }))).width).toBeGreaterThanOrEqual(200);
  for (const control of [opener(page), page.getByRole("button", { name: "Show members", exact: true }), page.getByRole("button", { name: "Pinned messages", exact: true }), page.getByRole("button", { name: "Send", exact: true }), page.getByRole("button", { name: "Attach files", exact: true }), page.getByRole("button", { name: "Emoji", exact: true })]) {
    const b = await box(page, control);
    expect(Math.min(b.width, b.height)).toBeGreaterThanOrEqual(44);
  }
  await suite.shot(page, "layouts-phone-1-channel");

  // The drawer: a modal dialog with the servers and the channels; Escape closes it and the focus is back on its button.
  await opener(page).tap();
  await drawer(page).waitFor();
  await channels(page).getByRole("link", { name: "random", exact: true }).waitFor();
  expect(await drawer(page).evaluate((el) => el.contains(el.ownerDocument.activeElement))).toBe(true);
  expect(await opener(page).getAttribute("aria-expanded")).toBe("true");
  await suite.shot(page, "layouts-phone-2-drawer");
  await page.keyboard.press("Escape");
  await drawer(page).waitFor({ state: "hidden" });
  await eventually(async () => expect(await isFocused(opener(page))).toBe(true));
  // A tap on the backdrop (right of the drawer) closes it too.
  await opener(page).tap();
  await drawer(page).waitFor();
  await page.touchscreen.tap(380, 420);
  await drawer(page).waitFor({ state: "hidden" });

  // Choosing a channel shows it and closes the drawer.
  await opener(page).tap();
  await channels(page).getByRole("link", { name: "random", exact: true }).tap();
  await page.getByRole("textbox", { name: "Message #random", exact: true }).waitFor();
  await drawer(page).waitFor({ state: "hidden" });
  await eventually(async () => expect(await isFocused(opener(page))).toBe(true));

  // Sending by touch.
  const random = page.getByRole("textbox", { name: "Message #random", exact: true });
  await random.tap();
  await random.fill("Typed on a phone, sent with a tap");
  await page.getByRole("button", { name: "Send", exact: true }).tap();
  const sent = messageWith(page, "Typed on a phone, sent with a tap");
  await sent.waitFor();
  expect(await random.inputValue()).toBe("");

  // Reacting by touch: a tap on the message shows its actions (no hover on touch), each 44 px.
  await sent.locator(".message-text").tap();
  const react = sent.getByRole("button", { name: "Add reaction", exact: true });
  await react.waitFor();
  expect(Math.min((await box(page, react)).width, (await box(page, react)).height)).toBeGreaterThanOrEqual(44);
  await suite.shot(page, "layouts-phone-3-actions");
  await react.tap();
  const picker = page.getByRole("dialog", { name: "Add reaction", exact: true });
  await picker.waitFor();
  expect(await noSideScroll(page)).toBe(true);
  await suite.shot(page, "layouts-phone-4-picker");
  await picker.getByRole("button", { name: "party popper", exact: true }).tap();
  const reaction = sent.getByRole("button", { name: "🎉 1", exact: true });
  await reaction.waitFor();
  expect(await reaction.getAttribute("aria-pressed")).toBe("true");
  expect(await noSideScroll(page)).toBe(true);
  await suite.shot(page, "layouts-phone-5-reacted");

  // The member sheet: "Show members" is a toggle that opens it as a modal dialog; Escape closes it.
  const showMembers = page.getByRole("button", { name: "Show members", exact: true });
  expect(await showMembers.getAttribute("aria-expanded")).toBe("false");
  await showMembers.tap();
  const sheet = page.getByRole("dialog", { name: "Members", exact: true });
  await sheet.waitFor();
  await members(page).getByRole("button", { name: friend.username }).waitFor();
  await suite.shot(page, "layouts-phone-6-members");
  await page.keyboard.press("Escape");
  await sheet.waitFor({ state: "hidden" });
  await eventually(async () => expect(await isFocused(showMembers)).toBe(true));

  // A DM, from the member sheet's card.
  await showMembers.tap();
  await members(page).getByRole("button", { name: friend.username }).tap();
  await page.getByRole("dialog", { name: friend.username }).getByRole("button", { name: "Message", exact: true }).tap();
  const dmBox = page.getByRole("textbox", { name: `Message @${friend.username}`, exact: true });
  await dmBox.waitFor();
  await dmBox.tap();
  await dmBox.fill("Hello from the phone");
  await page.getByRole("button", { name: "Send", exact: true }).tap();
  await messageWith(page, "Hello from the phone").waitFor();
  expect(await noSideScroll(page)).toBe(true);
  await suite.shot(page, "layouts-phone-7-dm");

  // User settings, from the account panel in the drawer; full screen, Close goes back.
  await opener(page).tap();
  await page.getByRole("region", { name: "Your account", exact: true }).getByRole("button", { name: "User settings", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "My account", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-phone-8-user-settings");
  await page.getByRole("navigation", { name: "User settings", exact: true }).getByRole("link", { name: "Profile", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "Profile", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-phone-9-user-settings-profile");
  await page.getByRole("button", { name: "Close", exact: true }).tap();
  await dmBox.waitFor();
  await drawer(page).waitFor({ state: "hidden" });

  // The DM list in the drawer: Friends, and back to the conversation.
  await opener(page).tap();
  await channels(page).getByRole("link", { name: "Friends", exact: true }).tap();
  await page.getByRole("tablist", { name: "Friends", exact: true }).waitFor();
  await drawer(page).waitFor({ state: "hidden" });
  expect(await noSideScroll(page)).toBe(true);
  await suite.shot(page, "layouts-phone-10-friends");
  await opener(page).tap();
  await channels(page).getByRole("link", { name: friend.username }).tap();
  await dmBox.waitFor();

  // Server settings: the server in the drawer's rail (the drawer stays open for its channels), then its settings.
  await opener(page).tap();
  await drawer(page).getByRole("navigation", { name: "Servers", exact: true }).getByRole("link", { name: "Pocket", exact: true }).tap();
  // A dialog opened from the drawer fills the screen; Escape closes it alone.
  await channels(page).getByRole("button", { name: "Invite people", exact: true }).tap();
  const invite = page.getByRole("dialog", { name: "Invite people to Pocket", exact: true });
  await invite.waitFor();
  const size = await invite.boundingBox();
  expect(size?.width).toBe(390);
  await suite.shot(page, "layouts-phone-11-dialog");
  await page.keyboard.press("Escape");
  await invite.waitFor({ state: "hidden" });
  await drawer(page).waitFor();
  await channels(page).getByRole("link", { name: "Server settings", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "Overview", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-phone-12-server-settings");
  await page.getByRole("navigation", { name: "Server settings", exact: true }).getByRole("link", { name: "Roles", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "Roles", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-phone-13-server-settings-roles");
  await page.getByRole("link", { name: "← Back to the server", exact: true }).tap();
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
});

test("a tablet (768x1024, touch): the rails beside the conversation, the member list a toggle; a DM and both settings by touch", async () => {
  const { owner, friend, path } = await place("Slate");
  const page = await open(owner, path, "tablet");
  expect(await textWidth(page, "Welcome to the server")).toBeGreaterThanOrEqual(300);
  expect(await noSideScroll(page)).toBe(true);
  expect(await opener(page).count()).toBe(0);
  await channels(page).getByRole("link", { name: "random", exact: true }).waitFor();
  expect(await members(page).count()).toBe(0);
  await suite.shot(page, "layouts-tablet-1-channel");

  const showMembers = page.getByRole("button", { name: "Show members", exact: true });
  expect(await showMembers.getAttribute("aria-expanded")).toBe("false");
  await showMembers.tap();
  await members(page).getByRole("button", { name: friend.username }).waitFor();
  expect(await showMembers.getAttribute("aria-expanded")).toBe("true");
  expect(await noSideScroll(page)).toBe(true);
  await suite.shot(page, "layouts-tablet-2-members");
  await showMembers.tap();
  await members(page).waitFor({ state: "detached" });
  expect(await showMembers.getAttribute("aria-expanded")).toBe("false");
  // Still a toggle just under 1,200 px; from 1,200 the list is always shown.
  await page.setViewportSize({ width: 1199, height: 1024 });
  expect(await showMembers.getAttribute("aria-expanded")).toBe("false");
  expect(await members(page).count()).toBe(0);
  await page.setViewportSize({ width: 1200, height: 1024 });
  await members(page).getByRole("button", { name: friend.username }).waitFor();
  expect(await showMembers.count()).toBe(0);
  await page.setViewportSize({ width: 768, height: 1024 });
  await showMembers.waitFor();

  // Switching channel, sending and reacting by touch.
  await channels(page).getByRole("link", { name: "random", exact: true }).tap();
  const random = page.getByRole("textbox", { name: "Message #random", exact: true });
  await random.tap();
  await random.fill("Sent from a tablet");
  await page.getByRole("button", { name: "Send", exact: true }).tap();
  const sent = messageWith(page, "Sent from a tablet");
  await sent.locator(".message-text").tap();
  await sent.getByRole("button", { name: "Add reaction", exact: true }).tap();
  await page.getByRole("dialog", { name: "Add reaction", exact: true }).getByRole("button", { name: "thumbs up", exact: true }).tap();
  await sent.getByRole("button", { name: "👍 1", exact: true }).waitFor();
  await suite.shot(page, "layouts-tablet-3-reacted");

  // Server settings by touch, and back.
  await channels(page).getByRole("link", { name: "Server settings", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "Overview", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-tablet-4-server-settings");
  await page.getByRole("link", { name: "← Back to the server", exact: true }).tap();
  await page.getByRole("textbox", { name: /^Message #/ }).waitFor();

  // A DM from the member list's card, by touch.
  await showMembers.tap();
  await members(page).getByRole("button", { name: friend.username, exact: true }).tap();
  await page.getByRole("dialog", { name: friend.username, exact: true }).getByRole("button", { name: "Message", exact: true }).tap();
  const dmBox = page.getByRole("textbox", { name: `Message @${friend.username}`, exact: true });
  await dmBox.tap();
  await dmBox.fill("Hello from the tablet");
  await page.getByRole("button", { name: "Send", exact: true }).tap();
  await messageWith(page, "Hello from the tablet").waitFor();
  expect(await noSideScroll(page)).toBe(true);

  // User settings from the account panel beside the channels, by touch; Close goes back to the DM.
  await page.getByRole("region", { name: "Your account", exact: true }).getByRole("button", { name: "User settings", exact: true }).tap();
  await page.getByRole("heading", { level: 1, name: "My account", exact: true }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "layouts-tablet-5-user-settings");
  await page.getByRole("button", { name: "Close", exact: true }).tap();
  await dmBox.waitFor();
});

test("a desktop (1280x800): everything side by side, the member list shown without a toggle", async () => {
  const { owner, friend, path } = await place("Wide");
  const page = await open(owner, path, "desktop");
  expect(await textWidth(page, "Welcome to the server")).toBeGreaterThanOrEqual(500);
  expect(await noSideScroll(page)).toBe(true);
  await members(page).getByRole("button", { name: friend.username }).waitFor();
  await channels(page).getByRole("link", { name: "random", exact: true }).waitFor();
  expect(await page.getByRole("button", { name: "Show members" }).count()).toBe(0);
  expect(await opener(page).count()).toBe(0);
  await suite.shot(page, "layouts-desktop-1-channel");

  // A window that becomes a phone's and back (a phone turned) keeps a dialog opened from the channel list.
  await channels(page).getByRole("button", { name: "Invite people", exact: true }).click();
  const invite = page.getByRole("dialog", { name: "Invite people to Wide", exact: true });
  await invite.waitFor();
  await page.setViewportSize({ width: 390, height: 844 });
  await opener(page).waitFor();
  expect(await invite.isVisible()).toBe(true);
  await suite.shot(page, "layouts-desktop-2-dialog-as-phone");
  await page.setViewportSize({ width: 1280, height: 800 });
  await members(page).waitFor();
  expect(await invite.isVisible()).toBe(true);
  await invite.getByRole("button", { name: "Done", exact: true }).click();
  await invite.waitFor({ state: "hidden" });
});
