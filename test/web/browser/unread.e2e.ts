/**
 * Issue 41, points 7 and 8: unread channels, servers and DMs in the accessible names and the tab
 * title, cleared by reading (on this device and the reader's other one), "Mark as read", Escape,
 * muted places dimmed and silent, and desktop notifications that open their message.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { eventually, messageWith, startWebSuite, type Person, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const rail = (page: Page) => page.getByRole("navigation", { name: "Servers", exact: true });
const channelList = (page: Page) => page.getByRole("navigation", { name: "Channels", exact: true });

async function textChannel(owner: TestUser, serverId: string, name: string): Promise<string> {
  const res = await suite.server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name, type: "text" } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function firstChannel(owner: TestUser, serverId: string): Promise<string> {
  const res = await suite.server.api("GET", `/api/v1/channels/${serverId}`, { token: owner.token });
  return res.body.channels.find((c: { type: string }) => c.type === "text").id;
}

async function send(user: TestUser, channelId: string, content: string): Promise<string> {
  const res = await suite.server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Every desktop notification the page raises is kept (the real Notification, subclassed) so a test can read and click it. */
async function recordNotifications(person: Person, grant: boolean): Promise<void> {
  if (grant) await person.context.grantPermissions(["notifications"], { origin: suite.server.url });
  // A string: the page's DOM types are not this project's (tsconfig has no "dom" lib).
  await person.context.addInitScript(`
    const Real = window.Notification;
    const seen = [];
    window.__notifications = seen;
    window.Notification = class extends Real {
      constructor(title, options) {
        super(title, options);
        seen.push({ title, body: (options && options.body) || "", notification: this });
      }
    };
  `);
  await person.page.reload();
}

const notifications = (page: Page) => page.evaluate("window.__notifications.map(({ title, body }) => ({ title, body }))") as Promise<{ title: string; body: string }[]>;

test("unread channels and mentions in another channel and another server show in the names and the title, and clear on reading here and on the other device", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const home = await createServer(suite.server, alice, "Home Base");
  const away = await createServer(suite.server, alice, "Far Away");
  await addMember(suite.server, home, bob);
  await addMember(suite.server, away, bob);
  const homeGeneral = await firstChannel(alice, home);
  const random = await textChannel(alice, home, "random");
  const awayGeneral = await firstChannel(alice, away);

  const b = await suite.person({ user: bob, path: `/channels/${home}/${homeGeneral}` });
  const phone = await suite.person({ user: bob, path: "/channels/@me" });
  await channelList(b.page).getByRole("link", { name: "random", exact: true }).waitFor();
  await rail(phone.page).getByRole("link", { name: "Far Away", exact: true }).waitFor();
  expect(await b.page.title()).toBe("Hearth");

  // A message in another channel of this server: that channel and the server are unread.
  await send(alice, random, "anyone around?");
  await channelList(b.page).getByRole("link", { name: "random, unread", exact: true }).waitFor();
  await rail(b.page).getByRole("link", { name: "Home Base, unread", exact: true }).waitFor();
  expect(await b.page.title()).toBe("Hearth");

  // Two mentions in another server: its name says so, and the tab title counts them.
  await send(alice, awayGeneral, `<@${bob.id}> the match is on`);
  await send(alice, awayGeneral, `<@${bob.id}> are you coming?`);
  await rail(b.page).getByRole("link", { name: "Far Away, 2 mentions", exact: true }).waitFor();
  await eventually(async () => expect(await b.page.title()).toBe("(2) Hearth"));
  await rail(phone.page).getByRole("link", { name: "Far Away, 2 mentions", exact: true }).waitFor();
  await suite.shot(b.page, "unread-1-badges", { phone: true });

  // Reading on one device clears it there and on the other.
  await rail(b.page).getByRole("link", { name: "Far Away, 2 mentions" }).click();
  await messageWith(b.page, "are you coming?").waitFor();
  await rail(b.page).getByRole("link", { name: "Far Away", exact: true }).waitFor();
  await eventually(async () => expect(await b.page.title()).toBe("Hearth"));
  await rail(phone.page).getByRole("link", { name: "Far Away", exact: true }).waitFor();
  await eventually(async () => expect(await phone.page.title()).toBe("Hearth"));

  // The server's read state agrees: only #random is left.
  const states = await suite.server.api("GET", "/api/v1/users/me/read-states", { token: bob.token });
  expect(states.body.map((s: { channel_id: string }) => s.channel_id)).toEqual([random]);

  // "Mark as read" from the channel's context menu.
  await rail(b.page).getByRole("link", { name: "Home Base, unread" }).click();
  const randomLink = channelList(b.page).getByRole("link", { name: "random, unread", exact: true });
  await randomLink.click({ button: "right" });
  const menu = b.page.getByRole("menu", { name: "random options" });
  await suite.shot(b.page, "unread-2-context-menu");
  await menu.getByRole("menuitem", { name: "Mark as read" }).click();
  await channelList(b.page).getByRole("link", { name: "random", exact: true }).waitFor();
  await rail(phone.page).getByRole("link", { name: "Home Base", exact: true }).waitFor();
});

test("opening an unread channel shows a 'New messages' divider above the first unread message; Escape marks a channel read", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const serverId = await createServer(suite.server, alice, "Divider Town");
  await addMember(suite.server, serverId, bob);
  const general = await firstChannel(alice, serverId);
  const news = await textChannel(alice, serverId, "news");
  await send(alice, news, "old news");
  const read = await suite.server.api("POST", `/api/v1/messages/${news}/read`, { token: bob.token, body: {} });
  expect(read.status).toBe(200);
  await send(alice, news, "fresh news one");
  await send(alice, news, "fresh news two");

  const b = await suite.person({ user: bob, path: `/channels/${serverId}/${general}` });
  await channelList(b.page).getByRole("link", { name: "news, unread", exact: true }).click();
  await messageWith(b.page, "fresh news two").waitFor();
  const divider = b.page.getByRole("separator", { name: "New messages", exact: true });
  await divider.waitFor();
  // The divider sits between the last read message and the first unread one.
  const [dividerBox, oldBox, freshBox] = await Promise.all([divider.boundingBox(), messageWith(b.page, "old news").boundingBox(), messageWith(b.page, "fresh news one").boundingBox()]);
  expect(dividerBox!.y).toBeGreaterThan(oldBox!.y);
  expect(dividerBox!.y).toBeLessThan(freshBox!.y);
  await suite.shot(b.page, "unread-3-new-messages-divider", { phone: true });
  await channelList(b.page).getByRole("link", { name: "news", exact: true }).waitFor();

  // A message while the tab is hidden is not read by being on screen; Escape reads it.
  await b.page.evaluate(`
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  `);
  await send(alice, news, "while you were away");
  await messageWith(b.page, "while you were away").waitFor();
  await channelList(b.page).getByRole("link", { name: "news, unread", exact: true }).waitFor();
  await b.page.getByRole("textbox", { name: /^Message #news/ }).focus();
  await b.page.keyboard.press("Escape");
  await channelList(b.page).getByRole("link", { name: "news", exact: true }).waitFor();
  await eventually(async () => {
    const states = await suite.server.api("GET", "/api/v1/users/me/read-states", { token: bob.token });
    expect(states.body).toEqual([]);
  });
});

test("DMs: unread in the list, the 'Direct messages' button and the title; a desktop notification opens the message", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const serverId = await createServer(suite.server, alice, "Notify Hall");
  await addMember(suite.server, serverId, bob);
  const general = await firstChannel(alice, serverId);
  const side = await textChannel(alice, serverId, "side");

  const b = await suite.person({ user: bob, path: `/channels/${serverId}/${general}` });
  await recordNotifications(b, true);
  await channelList(b.page).getByRole("link", { name: "side", exact: true }).waitFor();

  // A message in the channel being read notifies nobody; one in another channel does.
  await send(alice, general, "right here");
  await messageWith(b.page, "right here").waitFor();
  await send(alice, side, `look at this <@${bob.id}>`);
  await channelList(b.page).getByRole("link", { name: "side, 1 mention", exact: true }).waitFor();
  const raised = await eventually(async () => {
    const list = await notifications(b.page);
    expect(list).toHaveLength(1);
    return list;
  });
  expect(raised[0]).toEqual({ title: `${alice.username} · #side (Notify Hall)`, body: `look at this @${bob.username}` });

  // Clicking it opens the channel at the message.
  await b.page.evaluate(`window.__notifications[0].notification.dispatchEvent(new Event("click"))`);
  await b.page.waitForURL(`**/channels/${serverId}/${side}`);
  await eventually(async () => expect(await messageWith(b.page, "look at this").getAttribute("aria-current")).toBe("true"));
  await channelList(b.page).getByRole("link", { name: "side", exact: true }).waitFor();

  // A DM: the conversation and the "Direct messages" button are unread, and the title counts it.
  const dm = await suite.server.api("POST", `/api/v1/dm/${bob.id}/messages`, { token: alice.token, body: { content: "psst, a secret" } });
  expect(dm.status).toBe(201);
  await rail(b.page).getByRole("link", { name: "Direct messages, unread", exact: true }).waitFor();
  await eventually(async () => expect(await b.page.title()).toBe("(1) Hearth"));
  await eventually(async () => expect((await notifications(b.page)).at(-1)).toEqual({ title: `${alice.username} · ${alice.username}`, body: "psst, a secret" }));
  await rail(b.page).getByRole("link", { name: "Direct messages, unread" }).click();
  await channelList(b.page).getByRole("link", { name: `${alice.username}, unread`, exact: true }).click();
  await messageWith(b.page, "psst, a secret").waitFor();
  await rail(b.page).getByRole("link", { name: "Direct messages", exact: true }).waitFor();
  await eventually(async () => expect(await b.page.title()).toBe("Hearth"));
});

test("a muted channel is dimmed and never notifies; the prompt asks before the browser does", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const serverId = await createServer(suite.server, alice, "Quiet Place");
  await addMember(suite.server, serverId, bob);
  const general = await firstChannel(alice, serverId);
  const noisy = await textChannel(alice, serverId, "noisy");
  const other = await textChannel(alice, serverId, "other");

  const b = await suite.person({ user: bob, path: `/channels/${serverId}/${general}` });
  await recordNotifications(b, false);
  // Nothing has happened yet: no prompt on load.
  await channelList(b.page).getByRole("link", { name: "noisy", exact: true }).waitFor();
  expect(await b.page.getByRole("button", { name: "Enable desktop notifications" }).count()).toBe(0);

  // Muting from the context menu: the channel is dimmed, its messages neither mark it unread nor notify.
  await channelList(b.page).getByRole("link", { name: "noisy", exact: true }).click({ button: "right" });
  await b.page.getByRole("menu", { name: "noisy options" }).getByRole("menuitem", { name: "Mute until I unmute" }).click();
  await eventually(async () => {
    const setting = await suite.server.api("GET", `/api/v1/users/me/notifications/channels/${noisy}`, { token: bob.token });
    expect(setting.body).toMatchObject({ muted: true, muted_until: null });
  });
  const noisyLink = channelList(b.page).getByRole("link", { name: "noisy", exact: true });
  await eventually(async () => expect(Number(await noisyLink.evaluate((el) => (el.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el).opacity))).toBeLessThan(0.6));
  await send(alice, noisy, "spam spam spam");
  // A message elsewhere would notify: the page asks first with its own prompt.
  await send(alice, other, "a real message");
  await channelList(b.page).getByRole("link", { name: "other, unread", exact: true }).waitFor();
  const enable = b.page.getByRole("button", { name: "Enable desktop notifications" });
  await enable.waitFor();
  await suite.shot(b.page, "unread-4-prompt-and-muted", { phone: true });
  expect(await notifications(b.page)).toEqual([]);
  await channelList(b.page).getByRole("link", { name: "noisy", exact: true }).waitFor();

  await b.context.grantPermissions(["notifications"], { origin: suite.server.url });
  await enable.click();
  await enable.waitFor({ state: "detached" });
  await send(alice, other, "now you will hear it");
  await eventually(async () => expect((await notifications(b.page)).map((n) => n.body)).toEqual(["now you will hear it"]));
  await send(alice, noisy, "still muted");
  await send(alice, other, "and this one too");
  await eventually(async () => expect((await notifications(b.page)).map((n) => n.body)).toEqual(["now you will hear it", "and this one too"]));
});
