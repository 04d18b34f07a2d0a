/**
 * The Friends page (docs/web.md, "Friends"): `/channels/@me` shows the tabs "Online", "All",
 * "Pending" and "Add friend"; two people send, accept and remove a friend request live, in two
 * browser contexts; incoming requests are accepted or ignored, outgoing ones cancelled; presence
 * follows `user:status`; the lists are read once, events never ask for them again, and a
 * reconnect that lost events does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { Socket } from "socket.io";
import { createServer } from "../../helpers/community.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { rooms } from "../../../src/domain/shared/events.ts";
import { accessibleNames, eventually, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const tabs = (page: Page) => page.getByRole("tablist", { name: "Friends", exact: true });
const tab = (page: Page, name: string) => tabs(page).getByRole("tab", { name, exact: true });
const panel = (page: Page) => page.getByRole("tabpanel");
/** The row of `username` in the open tab. */
const row = (page: Page, username: string): Locator => panel(page).getByRole("listitem").filter({ hasText: username });
const friendsLink = (page: Page) => page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Friends", exact: true });

/** Counts the page's REST reads of the friend lists from now on. */
function countListReads(page: Page): { count: number } {
  const reads = { count: 0 };
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === "GET" && (path === "/api/v1/friends" || path === "/api/v1/friends/requests")) reads.count++;
  });
  return reads;
}

async function request(from: TestUser, to: TestUser): Promise<void> {
  const answer = await suite.server.api("POST", "/api/v1/friends/request", { token: from.token, body: { username: to.username } });
  expect(answer.status).toBe(201);
}

test("send, accept and remove a friend request live between two people; Message opens the DM", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const a = await suite.person({ user: alice });
  const b = await suite.person({ user: bob });

  // The home is the Friends page, its link current in the DM list; the tabs by name, in order.
  await a.page.getByRole("heading", { name: "Friends", level: 1, exact: true }).waitFor();
  expect(await friendsLink(a.page).getAttribute("aria-current")).toBe("page");
  expect(await accessibleNames(tabs(a.page), "tab")).toEqual(["Online", "All", "Pending", "Add friend"]);
  expect(await tab(a.page, "Online").getAttribute("aria-selected")).toBe("true");
  await panel(a.page).getByText("You have no friends here yet").waitFor();
  await panel(b.page).getByText("You have no friends here yet").waitFor();
  // The lists are read; from now on every change comes from events and answers.
  const aReads = countListReads(a.page);
  const bReads = countListReads(b.page);

  // Arrow keys, Home and End move between the tabs (one tab stop: the selected tab).
  await tab(a.page, "Online").focus();
  await a.page.keyboard.press("ArrowRight");
  expect(await isFocused(tab(a.page, "All"))).toBe(true);
  expect(await tab(a.page, "All").getAttribute("aria-selected")).toBe("true");
  expect(await panel(a.page).getAttribute("aria-labelledby")).toBe(await tab(a.page, "All").getAttribute("id"));
  await a.page.keyboard.press("End");
  expect(await isFocused(tab(a.page, "Add friend"))).toBe(true);
  await a.page.keyboard.press("ArrowRight");
  expect(await isFocused(tab(a.page, "Online"))).toBe(true);
  await a.page.keyboard.press("ArrowLeft");
  expect(await tab(a.page, "Add friend").getAttribute("aria-selected")).toBe("true");
  expect(await tab(a.page, "Online").getAttribute("tabindex")).toBe("-1");
  await suite.shot(a.page, "friends-0-tabs-keyboard");

  // "Add friend": the server's answers, refusals as alerts in its words, success as a status.
  const username = panel(a.page).getByRole("textbox", { name: "Username", exact: true });
  const send = panel(a.page).getByRole("button", { name: "Send friend request", exact: true });
  await username.fill("nobody_has_this_name");
  await send.click();
  await panel(a.page).getByRole("alert").filter({ hasText: "User not found" }).waitFor();
  await username.fill(alice.username);
  await send.click();
  await panel(a.page).getByRole("alert").filter({ hasText: "You cannot send a friend request to yourself" }).waitFor();
  await suite.shot(a.page, "friends-1-add-refused");
  await username.fill(bob.username.toUpperCase());
  await send.click();
  await panel(a.page).getByRole("status").filter({ hasText: `Friend request sent to ${bob.username}.` }).waitFor();
  expect(await panel(a.page).getByRole("alert").count()).toBe(0);
  expect(await username.inputValue()).toBe("");
  await suite.shot(a.page, "friends-2-add-sent");
  await username.fill(bob.username);
  await send.click();
  await panel(a.page).getByRole("alert").filter({ hasText: "You already sent a friend request to this user" }).waitFor();

  // Bob: live, the Pending tab keeps its name and is described by the count, as is the Friends link.
  await eventually(async () => expect(await tab(b.page, "Pending").getAttribute("aria-describedby")).toBeTruthy());
  expect(await accessibleNames(tabs(b.page), "tab")).toEqual(["Online", "All", "Pending", "Add friend"]);
  const described = await tab(b.page, "Pending").evaluate((el) => el.ownerDocument.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent);
  expect(described).toBe("1 incoming friend request");
  expect(await friendsLink(b.page).getAttribute("aria-describedby")).toBeTruthy();
  await tab(b.page, "Pending").click();
  const incoming = row(b.page, alice.username);
  await incoming.getByText("Incoming friend request").waitFor();
  await panel(b.page).getByRole("heading", { name: "Incoming — 1", exact: true }).waitFor();
  await suite.shot(b.page, "friends-3-pending-incoming");

  // Alice: her outgoing request, with Cancel.
  await tab(a.page, "Pending").click();
  await row(a.page, bob.username).getByRole("button", { name: "Cancel", exact: true }).waitFor();
  await suite.shot(a.page, "friends-4-pending-outgoing");

  // Bob accepts: each sees the other among friends, online (presence is shared from now on).
  await incoming.getByRole("button", { name: "Accept", exact: true }).click();
  await panel(b.page).getByText("No pending friend requests.").waitFor();
  // The answered row is gone; the keyboard's place is the panel, not the page's start.
  expect(await isFocused(panel(b.page))).toBe(true);
  await panel(a.page).getByText("No pending friend requests.").waitFor();
  await tab(a.page, "Online").click();
  await row(a.page, bob.username).getByText("Online", { exact: true }).waitFor();
  await tab(b.page, "Online").click();
  await row(b.page, alice.username).getByText("Online", { exact: true }).waitFor();
  expect(await tab(b.page, "Pending").getAttribute("aria-describedby")).toBeNull();
  await suite.shot(a.page, "friends-5-online");

  // Bob's status changes: Alice's row follows; Invisible takes him out of "Online" but not "All".
  const bobSocket = await suite.server.connect(bob.token);
  expect(await bobSocket.emitWithAck("status:set", { status: "dnd" })).toMatchObject({ ok: true });
  await row(a.page, bob.username).getByText("Do not disturb").waitFor();
  expect(await bobSocket.emitWithAck("status:set", { status: "offline" })).toMatchObject({ ok: true });
  await panel(a.page).getByText("None of your friends is online.").waitFor();
  await tab(a.page, "All").click();
  await row(a.page, bob.username).getByText("Offline", { exact: true }).waitFor();
  expect(await bobSocket.emitWithAck("status:set", { status: "online" })).toMatchObject({ ok: true });
  await row(a.page, bob.username).getByText("Online", { exact: true }).waitFor();
  bobSocket.close();

  // Each row's buttons are described by the friend's name.
  const message = row(a.page, bob.username).getByRole("button", { name: "Message", exact: true });
  expect(await message.evaluate((el) => el.ownerDocument.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent)).toBe(bob.username);

  // "Message" opens (creates) the DM with him and goes there; the Friends link comes back.
  await row(a.page, bob.username).getByRole("button", { name: "Message", exact: true }).click();
  await a.page.getByRole("textbox", { name: `Message @${bob.username}`, exact: true }).waitFor();
  expect(a.page.url()).toMatch(/\/channels\/@me\/[0-9a-f-]{36}$/);
  expect(await friendsLink(a.page).getAttribute("aria-current")).toBeNull();
  await friendsLink(a.page).click();
  await tab(a.page, "All").click();

  // "Remove friend" asks first; Cancel keeps him; confirming removes him for both, live.
  await row(a.page, bob.username).getByRole("button", { name: "Remove friend", exact: true }).click();
  const dialog = a.page.getByRole("dialog", { name: `Remove ${bob.username}` });
  await dialog.waitFor();
  await suite.shot(a.page, "friends-6-remove-confirm");
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await row(a.page, bob.username).waitFor();
  await row(a.page, bob.username).getByRole("button", { name: "Remove friend", exact: true }).click();
  await dialog.getByRole("button", { name: "Remove friend", exact: true }).click();
  await panel(a.page).getByText("You have no friends here yet").waitFor();
  // The row went with its button: the page's heading takes the focus.
  await eventually(async () => expect(await isFocused(a.page.getByRole("heading", { name: "Friends", level: 1, exact: true }))).toBe(true));
  await tab(b.page, "All").click();
  await panel(b.page).getByText("You have no friends here yet").waitFor();

  // Neither page read the lists again (the DM page and back included): the events kept them.
  expect(aReads.count).toBe(0);
  expect(bReads.count).toBe(0);
  expect((await suite.server.api("GET", "/api/v1/friends", { token: bob.token })).body).toEqual([]);
});

test("Ignore and Cancel live for the other side; asking someone who asked first makes friends", async () => {
  const me = await suite.server.register(uniqueName("me"));
  const asker = await suite.server.register(uniqueName("asker"));
  const other = await suite.server.register(uniqueName("other"));
  const early = await suite.server.register(uniqueName("early"));
  // Someone in a server (no first steps shown); a request made before the page opened is in the lists it reads.
  await createServer(suite.server, me, "My place");
  await request(early, me);
  const mine = await suite.person({ user: me });
  const theirs = await suite.person({ user: other });
  await tab(mine.page, "Pending").click();
  await row(mine.page, early.username).waitFor();

  // Incoming, live: Ignore rejects it (the asker's outgoing list is empty).
  await request(asker, me);
  await row(mine.page, asker.username).getByRole("button", { name: "Ignore", exact: true }).click();
  await eventually(async () => expect(await row(mine.page, asker.username).count()).toBe(0));
  expect((await suite.server.api("GET", "/api/v1/friends/requests", { token: asker.token })).body.outgoing).toEqual([]);

  // Outgoing: Cancel takes it away from the other person's Pending tab, live.
  await tab(mine.page, "Add friend").click();
  await panel(mine.page).getByRole("textbox", { name: "Username", exact: true }).fill(other.username);
  await panel(mine.page).getByRole("button", { name: "Send friend request", exact: true }).click();
  await panel(mine.page).getByRole("status").filter({ hasText: "Friend request sent" }).waitFor();
  await tab(theirs.page, "Pending").click();
  await row(theirs.page, me.username).waitFor();
  await tab(mine.page, "Pending").click();
  await panel(mine.page).getByRole("heading", { name: "Outgoing — 1", exact: true }).waitFor();
  await suite.shot(mine.page, "friends-8-pending-both");
  await row(mine.page, other.username).getByRole("button", { name: "Cancel", exact: true }).click();
  await eventually(async () => expect(await row(mine.page, other.username).count()).toBe(0));
  await panel(theirs.page).getByText("No pending friend requests.").waitFor();

  // Sending a request to someone who already asked accepts theirs: the server's answer says so.
  await tab(mine.page, "Add friend").click();
  await panel(mine.page).getByRole("textbox", { name: "Username", exact: true }).fill(early.username);
  await panel(mine.page).getByRole("button", { name: "Send friend request", exact: true }).click();
  await panel(mine.page).getByRole("status").filter({ hasText: `${early.username} had already asked you: you are now friends.` }).waitFor();
  await tab(mine.page, "All").click();
  await row(mine.page, early.username).getByRole("button", { name: "Message", exact: true }).waitFor();
  await tab(mine.page, "Pending").click();
  await panel(mine.page).getByText("No pending friend requests.").waitFor();
});

test("someone in no server yet sees the first steps above the Friends page", async () => {
  const person = await suite.person({ name: uniqueName("newbie") });
  await person.page.getByRole("heading", { name: /Welcome to Hearth/ }).waitFor();
  await tab(person.page, "Online").waitFor();
  await suite.shot(person.page, "friends-7-first-steps");
});

test("a reconnect that lost events asks for the lists again and shows what came meanwhile", async () => {
  const me = await suite.server.register(uniqueName("recon"));
  const asker = await suite.server.register(uniqueName("lateask"));
  const { page } = await suite.person({ user: me });
  await tab(page, "Pending").click();
  await panel(page).getByText("No pending friend requests.").waitFor();
  await page.getByRole("region", { name: "Your account", exact: true }).getByText("Online").waitFor();
  const reads = countListReads(page);
  const [before] = (await suite.server.app.io.in(rooms.user(me.id)).fetchSockets()) as unknown as Socket[];
  // Closed on purpose by the server: the session does not resume, so events may have been lost.
  before!.disconnect(true);
  await request(asker, me);
  await row(page, asker.username).getByRole("button", { name: "Accept", exact: true }).waitFor({ timeout: 10_000 });
  await eventually(() => expect(reads.count).toBeGreaterThan(0));
});

test("lists that cannot be read say why and offer Try again", async () => {
  const user = await suite.server.register(uniqueName("offline"));
  const { context, page } = await suite.visitor("/login");
  await context.route("**/api/v1/friends/requests", (route) => route.abort("internetdisconnected"), { times: 1 });
  await page.evaluate(`localStorage.setItem("hearth.session", ${JSON.stringify(JSON.stringify({ token: user.token, user: user.user }))})`);
  await page.goto("/channels/@me");
  await panel(page).getByRole("alert").filter({ hasText: "Cannot reach the server" }).waitFor();
  await panel(page).getByRole("button", { name: "Try again", exact: true }).click();
  await panel(page).getByText("You have no friends here yet").waitFor();
});

/** Makes `a` and `b` friends through the API. */
async function befriend(a: TestUser, b: TestUser): Promise<void> {
  await request(a, b);
  expect((await suite.server.api("POST", `/api/v1/friends/accept/${a.id}`, { token: b.token })).status).toBe(200);
}

test("a dropped connection that resumes gets the friend events it missed replayed, with no list read again", async () => {
  const me = await suite.server.register(uniqueName("resumer"));
  const idle = await suite.server.register(uniqueName("idler"));
  const away = await suite.server.register(uniqueName("away"));
  const asker = await suite.server.register(uniqueName("asker"));
  await befriend(me, idle);
  await befriend(away, me);
  const idleSocket = await suite.server.connect(idle.token);
  expect(await idleSocket.emitWithAck("status:set", { status: "idle" })).toMatchObject({ ok: true });
  const { page } = await suite.person({ user: me });
  await tab(page, "All").click();
  await row(page, idle.username).getByText("Idle", { exact: true }).waitFor();
  await row(page, away.username).getByText("Offline", { exact: true }).waitFor();
  await page.getByRole("region", { name: "Your account", exact: true }).getByText("Online").waitFor();
  await suite.shot(page, "friends-9-all");
  const reads = countListReads(page);

  // The transport closes under the socket (a network drop): the session resumes.
  const [before] = (await suite.server.app.io.in(rooms.user(me.id)).fetchSockets()) as unknown as Socket[];
  before!.conn.close();
  await page.getByRole("region", { name: "Your account", exact: true }).getByText("Connecting…").waitFor();
  await request(asker, me);
  expect((await suite.server.api("DELETE", `/api/v1/friends/${me.id}`, { token: away.token })).status).toBe(200);
  idleSocket.close();
  await page.getByRole("region", { name: "Your account", exact: true }).getByText("Online").waitFor({ timeout: 10_000 });

  await eventually(async () => expect(await row(page, away.username).count()).toBe(0));
  await row(page, idle.username).getByText("Offline", { exact: true }).waitFor();
  await eventually(async () => expect(await tab(page, "Pending").getAttribute("aria-describedby")).toBeTruthy());
  await tab(page, "Pending").click();
  await row(page, asker.username).getByRole("button", { name: "Accept", exact: true }).waitFor();
  expect(reads.count).toBe(0);
});
