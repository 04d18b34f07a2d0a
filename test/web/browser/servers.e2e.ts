/**
 * Point 2: servers, creating one, joining by code and by /invite/<code>, the channel list with
 * categories (only what one may view), the member list with presence and hoisted roles, all live.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { accessibleNames, eventually, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const VIEW_CHANNEL = 2048;

test("create a server from the dialog, invite someone by link, and see them join live", async () => {
  const owner = await suite.person();
  const { page } = owner;
  await page.getByRole("button", { name: "Create a server", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Create a server", exact: true });
  await dialog.getByRole("textbox", { name: "Server name", exact: true }).fill("Book Club");
  await suite.shot(page, "servers-1-create-dialog");
  await dialog.getByRole("button", { name: "Create", exact: true }).click();

  const servers = page.getByRole("navigation", { name: "Servers", exact: true });
  await servers.getByRole("link", { name: "Book Club", exact: true }).waitFor();
  const channels = page.getByRole("navigation", { name: "Channels", exact: true });
  await channels.getByRole("link", { name: "general", exact: true }).waitFor();
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  expect(await accessibleNames(page.getByRole("navigation", { name: "Members", exact: true }), "button")).toEqual([owner.username]);

  await channels.getByRole("button", { name: "Invite people", exact: true }).click();
  const invite = page.getByRole("dialog", { name: "Invite people to Book Club", exact: true });
  const linkField = invite.getByRole("textbox", { name: "Invite link", exact: true });
  const link = await eventually(async () => {
    const value = await linkField.inputValue();
    expect(value).toMatch(/\/invite\/[A-Za-z0-9]+$/);
    return value;
  });
  expect(link.startsWith(suite.server.url)).toBe(true);
  await suite.shot(page, "servers-2-invite");
  await invite.getByRole("button", { name: "Done", exact: true }).click();

  // Someone logged in opens the link and accepts.
  const guest = await suite.person({ path: new URL(link).pathname });
  await guest.page.getByRole("button", { name: "Accept invite", exact: true }).click();
  await guest.page.getByRole("navigation", { name: "Servers", exact: true }).getByRole("link", { name: "Book Club", exact: true }).waitFor();
  await guest.page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();

  // The owner's member list follows, with the newcomer online.
  const members = page.getByRole("navigation", { name: "Members", exact: true });
  await members.getByRole("button", { name: guest.username }).waitFor();
  await eventually(async () => expect((await members.getByRole("group", { name: /Online/ }).getByRole("button").count())).toBe(2));
  await suite.shot(page, "servers-3-member-joined");

  // A visitor without an account: the link leads through registration and back to the invite.
  const { page: visitor } = await suite.visitor(new URL(link).pathname);
  await visitor.waitForURL(/\/login\?next=/);
  await visitor.getByRole("link", { name: "Create an account", exact: true }).click();
  await visitor.getByRole("textbox", { name: "Username", exact: true }).fill("late_reader");
  await visitor.getByRole("textbox", { name: "Email", exact: true }).fill("late_reader@example.test");
  await visitor.getByLabel("Password").fill("a long password");
  await visitor.getByRole("button", { name: "Create account", exact: true }).click();
  await visitor.getByRole("button", { name: "Accept invite", exact: true }).click();
  await visitor.getByRole("navigation", { name: "Channels", exact: true }).getByRole("heading", { name: "Book Club", exact: true }).waitFor();
});

test("join by code from the dialog; a bad code shows the server's error", async () => {
  const host = await suite.server.register();
  const serverId = await createServer(suite.server, host, "Chess Corner");
  const invite = await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: host.token, body: {} });

  const { page } = await suite.person();
  await page.getByRole("button", { name: "Join a server", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Join a server", exact: true });
  await dialog.getByRole("textbox", { name: "Invite code or link", exact: true }).fill("nope123456");
  await dialog.getByRole("button", { name: "Join", exact: true }).click();
  await dialog.getByRole("alert").filter({ hasText: "Invite not found" }).waitFor();
  await suite.shot(page, "servers-4-join-error");
  await dialog.getByRole("textbox", { name: "Invite code or link", exact: true }).fill(invite.body.code);
  await dialog.getByRole("button", { name: "Join", exact: true }).click();
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("heading", { name: "Chess Corner", exact: true }).waitFor();
});

test("channels by category, only those one may view, following channel events live", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Studio");
  const api = (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token: owner.token, body });
  const everyone = (await api("GET", `/roles/${serverId}`)).body.find((r: { is_default: number }) => r.is_default === 1);
  const info = (await api("POST", `/channels/${serverId}/categories`, { name: "Info" })).body;
  const hangout = (await api("POST", `/channels/${serverId}/categories`, { name: "Hangout" })).body;
  await api("POST", `/channels/${serverId}`, { name: "announcements", type: "text", category_id: info.id });
  await api("POST", `/channels/${serverId}`, { name: "Lounge", type: "voice", category_id: hangout.id });
  const secret = (await api("POST", `/channels/${serverId}`, { name: "staff-only", type: "text", category_id: info.id })).body;
  expect((await api("PUT", `/channels/${secret.id}/permissions/${everyone.id}`, { allow: 0, deny: VIEW_CHANNEL })).status).toBe(200);

  const member = await suite.server.register();
  await addMember(suite.server, serverId, member);
  const { page } = await suite.person({ user: member, path: `/channels/${serverId}` });
  const channels = page.getByRole("navigation", { name: "Channels", exact: true });
  await channels.getByRole("link", { name: "announcements", exact: true }).waitFor();
  expect(await accessibleNames(channels, "link")).toEqual(["general", "announcements", "Lounge"]);
  expect(await channels.getByRole("group", { name: "Info", exact: true }).getByRole("link").allTextContents()).toEqual(["announcements"]);
  expect(await channels.getByRole("group", { name: "Hangout", exact: true }).getByRole("link").allTextContents()).toEqual(["Lounge"]);
  // The owner sees the hidden one.
  const ownerView = await suite.person({ user: owner, path: `/channels/${serverId}` });
  await ownerView.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "staff-only", exact: true }).waitFor();
  await suite.shot(page, "servers-5-categories");

  // Live: a new channel appears, a rename shows, a deletion goes, an override can show one.
  const created = (await api("POST", `/channels/${serverId}`, { name: "new-stuff", type: "text", category_id: hangout.id })).body;
  await channels.getByRole("link", { name: "new-stuff", exact: true }).waitFor();
  await api("PUT", `/channels/${created.id}`, { name: "renamed-stuff" });
  await channels.getByRole("link", { name: "renamed-stuff", exact: true }).waitFor();
  await api("DELETE", `/channels/${created.id}`);
  await eventually(async () => expect(await accessibleNames(channels, "link")).toEqual(["general", "announcements", "Lounge"]));
  await api("PUT", `/channels/${secret.id}/permissions/${everyone.id}`, { allow: VIEW_CHANNEL, deny: 0 });
  await channels.getByRole("link", { name: "staff-only", exact: true }).waitFor();
  // Categories collapse and expand by keyboard.
  const infoToggle = channels.getByRole("button", { name: "Info", exact: true });
  await infoToggle.focus();
  await page.keyboard.press("Enter");
  expect(await infoToggle.getAttribute("aria-expanded")).toBe("false");
  expect(await channels.getByRole("link", { name: "announcements" }).count()).toBe(0);
  await page.keyboard.press("Enter");
  await channels.getByRole("link", { name: "announcements", exact: true }).waitFor();
});

test("the member list shows presence and follows it, joins, leaves and role changes live", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Presence");
  const friend = await suite.server.register("friend_p");
  await addMember(suite.server, serverId, friend);
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const members = page.getByRole("navigation", { name: "Members", exact: true });
  await members.getByRole("button", { name: "friend_p", exact: true }).waitFor();
  const online = members.getByRole("group", { name: /^Online/ });
  const offline = members.getByRole("group", { name: /^Offline/ });
  expect(await offline.getByRole("button", { name: "friend_p", exact: true }).count()).toBe(1);

  const socket = await suite.server.connect(friend.token);
  await online.getByRole("button", { name: "friend_p", exact: true }).waitFor();
  await suite.shot(page, "servers-6-presence");
  await socket.emitWithAck("status:set", { status: "dnd" });
  await members.getByRole("button", { name: "friend_p", exact: true }).click();
  const card = page.getByRole("dialog", { name: "friend_p", exact: true });
  await card.getByText("Do not disturb").waitFor();
  expect(await card.getByText("Member", { exact: true }).count()).toBe(1);
  expect((await suite.server.api("PUT", `/api/v1/servers/${serverId}/members/${friend.id}/role`, { token: owner.token, body: { role: "moderator" } })).status).toBe(200);
  await card.getByText("Moderator", { exact: true }).waitFor();
  await suite.shot(page, "servers-7-member-card");
  await page.keyboard.press("Escape");

  // Roles: a coloured role given to the friend colours their name, and follows the role's edits.
  const role = await suite.server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "Artists", color: "#E8590C", permissions: 0 } });
  expect(role.status).toBe(201);
  await suite.server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: friend.id, roleId: role.body.id } });
  const name = members.getByRole("button", { name: "friend_p", exact: true }).locator(".member-name");
  const colour = () => name.evaluate((el) => (el.ownerDocument.defaultView as any).getComputedStyle(el).color as string);
  await eventually(async () => expect(await colour()).toBe("rgb(232, 89, 12)"));
  await suite.server.api("PUT", `/api/v1/roles/${serverId}/${role.body.id}`, { token: owner.token, body: { color: "#2F9E44" } });
  await eventually(async () => expect(await colour()).toBe("rgb(47, 158, 68)"));
  // Shown separately (hoist): the friend's own group above Online, until they go offline.
  await suite.server.api("PUT", `/api/v1/roles/${serverId}/${role.body.id}`, { token: owner.token, body: { hoist: true } });
  await members.getByRole("group", { name: "Artists — 1", exact: true }).getByRole("button", { name: "friend_p", exact: true }).waitFor();
  expect(await members.getByRole("heading").allTextContents()).toEqual(["Members — 2", "Artists — 1", "Online — 1"]);
  // The friend's messages show their name in the role's colour too.
  const channels = await suite.server.api("GET", `/api/v1/channels/${serverId}`, { token: owner.token });
  const general = channels.body.channels[0].id;
  expect((await suite.server.api("POST", `/api/v1/messages/${general}`, { token: friend.token, body: { content: "coloured hello" } })).status).toBe(201);
  const author = page.getByRole("article", { name: /^friend_p/ }).locator(".author");
  await eventually(async () => expect(await author.evaluate((el) => (el.ownerDocument.defaultView as any).getComputedStyle(el).color as string)).toBe("rgb(47, 158, 68)"));
  expect(await members.getByRole("heading", { name: "Artists — 1", exact: true }).evaluate((el) => (el.ownerDocument.defaultView as any).getComputedStyle(el).color as string)).toBe("rgb(47, 158, 68)");
  await suite.shot(page, "servers-8-hoisted-role");
  await suite.shot(page, "servers-8-hoisted-role", { phone: true });
  socket.close();
  await offline.getByRole("button", { name: "friend_p", exact: true }).waitFor({ timeout: 8000 });

  // Someone joins by invite, then leaves.
  const invite = await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: {} });
  const joiner = await suite.server.register("joiner_p");
  await suite.server.api("POST", `/api/v1/servers/join/${invite.body.code}`, { token: joiner.token });
  await members.getByRole("button", { name: "joiner_p", exact: true }).waitFor();
  await suite.server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: joiner.token });
  await eventually(async () => expect(await members.getByRole("button", { name: "joiner_p" }).count()).toBe(0));
});

test("a member who is kicked loses the server from their list", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Strict Club");
  const member = await suite.server.register();
  await addMember(suite.server, serverId, member);
  const { page } = await suite.person({ user: member, path: `/channels/${serverId}` });
  const servers = page.getByRole("navigation", { name: "Servers", exact: true });
  await servers.getByRole("link", { name: "Strict Club", exact: true }).waitFor();
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  expect((await suite.server.api("DELETE", `/api/v1/servers/${serverId}/members/${member.id}`, { token: owner.token })).status).toBe(200);
  await eventually(async () => expect(await servers.getByRole("link", { name: "Strict Club" }).count()).toBe(0));
  await page.getByRole("heading", { name: "Server not found", exact: true }).waitFor();
});
