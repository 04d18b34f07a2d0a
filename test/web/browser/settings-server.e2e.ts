/**
 * Issue 17, point 6 (the server, roles, channel overrides) and point 7 (only what one may do
 * is offered; the server's refusal is shown; settings follow role:* and override events).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { community } from "../../helpers/community.ts";
import { PERMISSIONS as P } from "../../../src/domain/access/permission-bits.ts";
import { accessibleNames, eventually, isFocused, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const as = (token: string) => (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });
const settingsNav = (page: import("playwright-core").Page) => page.getByRole("navigation", { name: "Server settings", exact: true });
const main = (page: import("playwright-core").Page) => page.getByRole("main");

test("a plain member is offered no settings; the address says they may change nothing", async () => {
  const c = await community(suite.server, { name: "Quiet Place" });
  const { page } = await suite.person({ user: c.member, path: `/channels/${c.serverId}` });
  const channels = page.getByRole("navigation", { name: "Channels", exact: true });
  await channels.getByRole("button", { name: "Invite people" }).waitFor();
  expect(await channels.getByRole("link", { name: "Server settings" }).count()).toBe(0);
  await page.goto(`/servers/${c.serverId}/settings/roles`);
  await page.getByText("You do not have permission to change anything in Quiet Place's settings.").waitFor();
  expect(await page.getByRole("button").count()).toBe(0);
  await suite.shot(page, "settings-00-plain-member");
  // Given Manage Server live (a role:updated of @everyone), the entry appears without a reload.
  await page.goto(`/channels/${c.serverId}`);
  await page.getByRole("region", { name: "Your account" }).getByText("Online").waitFor();
  // An event sent before the new socket joined the server's room is not seen: the change is made again until one is.
  const setEveryone = (permissions: number) => as(c.owner.token)("PUT", `/roles/${c.serverId}/${c.everyone}`, { permissions });
  await eventually(async () => {
    await setEveryone(16235520);
    await setEveryone(16235520 | P.MANAGE_SERVER);
    await channels.getByRole("link", { name: "Server settings" }).waitFor({ timeout: 2000 });
  }, 20_000);
});

test("overview: name, description, icon and banner with previews, banner offset; the rail follows", async () => {
  const c = await community(suite.server, { name: "Old Name" });
  const { page } = await suite.person({ user: c.owner, path: `/channels/${c.serverId}` });
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Server settings" }).click();
  await page.waitForURL(/\/settings\/overview$/);
  expect(await accessibleNames(settingsNav(page), "link")).toEqual([
    "← Back to the server", "Overview", "Roles", "Channel permissions", "Emojis", "Soundboard", "Invites", "Members", "Bans", "Audit log", "Webhooks", "Bots",
  ]);
  const name = main(page).getByRole("textbox", { name: "Server name" });
  expect(await name.inputValue()).toBe("Old Name");
  await name.fill("Night Owls");
  await main(page).getByRole("textbox", { name: "Description" }).fill("For people who read late");
  await main(page).getByRole("button", { name: "Save changes" }).click();
  await main(page).getByRole("status").filter({ hasText: "Saved." }).waitFor();
  await settingsNav(page).getByText("Night Owls").waitFor();

  await main(page).getByLabel("Choose an icon").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: Buffer.from(solidPng(64, 64, [232, 89, 12])) });
  await main(page).getByText("Preview of the chosen image (not uploaded yet).").waitFor();
  await main(page).getByRole("button", { name: "Upload icon" }).click();
  await main(page).getByText("The current icon.").waitFor();
  await main(page).getByLabel("Choose a banner").setInputFiles({ name: "banner.png", mimeType: "image/png", buffer: Buffer.from(solidPng(600, 200, [47, 158, 68])) });
  await main(page).getByRole("img", { name: "Preview of the chosen banner" }).waitFor();
  await main(page).getByRole("button", { name: "Upload banner" }).click();
  await main(page).getByRole("img", { name: "The current banner" }).waitFor();
  await main(page).getByRole("slider", { name: "Banner position" }).fill("80");
  await main(page).getByRole("button", { name: "Save position" }).click();
  await eventually(async () => expect((await main(page).getByRole("button", { name: "Save position" }).isDisabled())).toBe(true));
  await suite.shot(page, "settings-01-overview");

  const server = (await as(c.owner.token)("GET", `/servers/${c.serverId}`)).body;
  expect(server).toMatchObject({ name: "Night Owls", description: "For people who read late", banner_offset: 80 });
  expect(server.icon).toMatch(/^\/uploads\//);
  expect(server.banner).toMatch(/^\/uploads\//);
  // Back in the server, the rail shows the new name and the icon as an image.
  await settingsNav(page).getByRole("link", { name: "← Back to the server" }).click();
  await page.getByRole("navigation", { name: "Servers", exact: true }).getByRole("link", { name: "Night Owls" }).locator("img").waitFor();
});

test("roles: create, edit name, color, hoist and permissions by their labels, assign and unassign, delete", async () => {
  const c = await community(suite.server, { name: "Role Play" });
  const api = as(c.owner.token);
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/roles` });
  const list = main(page).getByRole("list", { name: "Roles, highest first" });
  await list.getByRole("button", { name: "@everyone", exact: true }).waitFor();
  await suite.shot(page, "settings-02-roles-empty");
  await main(page).getByRole("button", { name: "Create role" }).click();
  await list.getByRole("button", { name: "new role", exact: true }).waitFor();
  const editor = main(page).getByRole("region", { name: /^Edit role/ });
  await editor.getByRole("textbox", { name: "Role name" }).fill("Moderators");
  await editor.getByLabel("Color").fill("#2f9e44");
  await editor.getByRole("checkbox", { name: "Show members with this role separately in the member list" }).check();
  await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).check();
  await editor.getByRole("checkbox", { name: "Send Messages", exact: true }).check();
  await editor.getByRole("checkbox", { name: "Manage Messages", exact: true }).check();
  await editor.getByRole("status").filter({ hasText: "Unsaved changes" }).waitFor();
  await editor.getByRole("button", { name: "Save changes" }).click();
  await editor.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  const role = (await api("GET", `/roles/${c.serverId}`)).body.find((r: { name: string }) => r.name === "Moderators");
  expect(role).toMatchObject({ color: "#2F9E44", hoist: true, permissions: P.KICK_MEMBERS | P.SEND_MESSAGES | P.MANAGE_MESSAGES, position: 1 });
  // Every permission is one labelled checkbox, each with its hint.
  expect((await accessibleNames(editor, "checkbox")).slice(1)).toEqual([
    "Administrator", "Manage Server", "Manage Roles", "Manage Channels", "View Channels", "Kick Members", "Ban Members", "Mute Members",
    "Send Messages", "Read Message History", "Embed Links", "Attach Files", "Add Reactions", "Use External Emojis", "Mention Everyone",
    "Manage Messages", "Manage Reactions", "Use Application Commands", "Connect", "Speak", "Stream", "Use Soundboard", "Deafen Members", "Move Members",
  ]);

  // Assign and unassign.
  await editor.getByRole("combobox", { name: "Give this role to" }).selectOption({ label: c.member.username });
  await editor.getByRole("button", { name: "Add", exact: true }).click();
  await editor.getByRole("button", { name: `Remove Moderators from ${c.member.username}` }).waitFor();
  expect((await api("GET", `/roles/${c.serverId}/member/${c.member.id}`)).body.map((r: { id: string }) => r.id)).toEqual([role.id]);
  await suite.shot(page, "settings-03-role-editor");
  await editor.getByRole("button", { name: `Remove Moderators from ${c.member.username}` }).click();
  await editor.getByText("Nobody holds this role yet.").waitFor();
  expect((await api("GET", `/roles/${c.serverId}/member/${c.member.id}`)).body).toEqual([]);

  // Live: another manager renames it; the list and the editor follow.
  await api("PUT", `/roles/${c.serverId}/${role.id}`, { name: "Mods" });
  await list.getByRole("button", { name: "Mods", exact: true }).waitFor();
  await eventually(async () => expect(await editor.getByRole("textbox", { name: "Role name" }).inputValue()).toBe("Mods"));

  // Delete, after a confirmation whose Cancel changes nothing.
  await editor.getByRole("button", { name: "Delete role" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete the role Mods?" });
  await suite.shot(page, "settings-04-role-delete-confirm");
  await dialog.getByRole("button", { name: "Delete role" }).click();
  await eventually(async () => expect(await list.getByRole("button", { name: "Mods", exact: true }).count()).toBe(0));
  expect((await api("GET", `/roles/${c.serverId}`)).body.map((r: { name: string }) => r.name)).toEqual(["@everyone"]);
});

test("roles reorder by keyboard (Space, arrows, Space; Escape cancels) and by dragging", async () => {
  const c = await community(suite.server, { name: "Ladder" });
  const api = as(c.owner.token);
  for (const name of ["Alpha", "Beta", "Gamma"]) await api("POST", `/roles/${c.serverId}`, { name });
  const order = async () => (await api("GET", `/roles/${c.serverId}`)).body.map((r: { name: string }) => r.name);
  expect(await order()).toEqual(["Alpha", "Beta", "Gamma", "@everyone"]);
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/roles` });
  const list = main(page).getByRole("list", { name: "Roles, highest first" });
  const names = () => list.locator(".role-name").allTextContents();
  await eventually(async () => expect(await names()).toEqual(["Alpha", "Beta", "Gamma", "@everyone"]));

  const handle = list.getByRole("button", { name: "Move Gamma" });
  await handle.focus();
  await page.keyboard.press("Space");
  expect(await handle.getAttribute("aria-pressed")).toBe("true");
  await main(page).getByText("Gamma picked up, position 3 of 3.", { exact: false }).waitFor();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp"); // already at the top: stays
  expect(await names()).toEqual(["Gamma", "Alpha", "Beta", "@everyone"]);
  expect(await isFocused(list.getByRole("button", { name: "Move Gamma" }))).toBe(true);
  await suite.shot(page, "settings-05-roles-keyboard-grabbed");
  await page.keyboard.press("Space");
  await main(page).getByText("Gamma moved to position 1 of 3.").waitFor();
  expect(await order()).toEqual(["Gamma", "Alpha", "Beta", "@everyone"]);

  // Escape puts a picked-up role back and sends nothing.
  await list.getByRole("button", { name: "Move Beta" }).focus();
  await page.keyboard.press("Space");
  await page.keyboard.press("ArrowUp");
  expect(await names()).toEqual(["Gamma", "Beta", "Alpha", "@everyone"]);
  await page.keyboard.press("Escape");
  expect(await names()).toEqual(["Gamma", "Alpha", "Beta", "@everyone"]);
  expect(await order()).toEqual(["Gamma", "Alpha", "Beta", "@everyone"]);

  // Drag Beta to the top with the mouse.
  await list.getByRole("listitem").filter({ hasText: "Beta" }).dragTo(list.getByRole("listitem").filter({ hasText: "Gamma" }));
  await eventually(async () => expect(await order()).toEqual(["Beta", "Gamma", "Alpha", "@everyone"]));
  await eventually(async () => expect(await names()).toEqual(["Beta", "Gamma", "Alpha", "@everyone"]));
  // Live: a move by someone else shows.
  const alpha = (await api("GET", `/roles/${c.serverId}`)).body.find((r: { name: string }) => r.name === "Alpha");
  await api("PUT", `/roles/${c.serverId}/reorder`, [{ id: alpha.id, position: 3 }]);
  await eventually(async () => expect(await names()).toEqual(["Alpha", "Beta", "Gamma", "@everyone"]));
});

test("a manager with some bits: only roles below theirs move or change, bits they lack are disabled, a bot's role is admins'; the server's refusal is shown", async () => {
  const c = await community(suite.server, { name: "Layers", bot: true });
  const api = as(c.owner.token);
  const lead = (await api("POST", `/roles/${c.serverId}`, { name: "Lead", permissions: P.MANAGE_ROLES | P.MANAGE_CHANNELS | P.KICK_MEMBERS })).body;
  const helper = (await api("POST", `/roles/${c.serverId}`, { name: "Helper" })).body;
  const junior = (await api("POST", `/roles/${c.serverId}`, { name: "Junior" })).body;
  // Lead on top of the custom roles: the bot's role is below it after the creations.
  await api("PUT", `/roles/${c.serverId}/reorder`, [{ id: lead.id, position: 4 }]);
  await api("POST", `/roles/${c.serverId}/assign`, { targetUserId: c.member.id, roleId: lead.id });
  const { page } = await suite.person({ user: c.member, path: `/channels/${c.serverId}` });
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Server settings" }).click();
  await page.waitForURL(/\/settings\/roles$/);
  expect(await accessibleNames(settingsNav(page), "link")).toEqual(["← Back to the server", "Roles", "Channel permissions", "Members", "Webhooks", "Bots"]);
  const list = main(page).getByRole("list", { name: "Roles, highest first" });
  await list.getByRole("button", { name: "Junior", exact: true }).waitFor();
  // No handle on their own role; handles on Helper, Junior; none on the bot's (admins only).
  expect((await accessibleNames(list, "button")).filter((n) => n.startsWith("Move "))).toEqual(["Move Helper", "Move Junior"]);

  await list.getByRole("button", { name: "Lead", exact: true }).click();
  const editor = main(page).getByRole("region", { name: /^Edit role/ });
  await editor.getByText("This role is at or above your highest role, so you cannot change it.").waitFor();
  expect(await editor.getByRole("button", { name: "Save changes" }).count()).toBe(0);
  const botRole = (await api("GET", `/roles/${c.serverId}`)).body.find((r: { managed_bot_id: string | null }) => r.managed_bot_id === c.bot.botUserId);
  await list.getByRole("button", { name: botRole.name, exact: true }).click();
  await editor.getByText(/only server admins and the owner can change it/).waitFor();

  await list.getByRole("button", { name: "Helper", exact: true }).click();
  await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).waitFor();
  expect(await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).isDisabled()).toBe(false);
  expect(await editor.getByRole("checkbox", { name: "Ban Members", exact: true }).isDisabled()).toBe(true);
  expect(await editor.getByRole("checkbox", { name: "Administrator", exact: true }).isDisabled()).toBe(true);
  await suite.shot(page, "settings-06-roles-manager");

  // The server still decides: the owner takes Kick Members away while the box is ticked; saving is refused.
  await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).check();
  await api("PUT", `/roles/${c.serverId}/${lead.id}`, { permissions: P.MANAGE_ROLES | P.MANAGE_CHANNELS });
  await editor.getByRole("button", { name: "Save changes" }).click();
  await editor.getByRole("alert").filter({ hasText: "You cannot grant or deny permissions you do not have: KICK_MEMBERS" }).waitFor();
  await suite.shot(page, "settings-07-refusal-shown");
  // ...and the box is now disabled, as the grant rule says (live role:updated).
  await eventually(async () => expect(await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).isDisabled()).toBe(true));

  // Keyboard reorder within what they may move: Junior up above Helper, and no further.
  const handle = list.getByRole("button", { name: "Move Junior" });
  await handle.focus();
  await page.keyboard.press("Space");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await main(page).getByText("Junior moved to position 2 of 4.").waitFor();
  // Position 3 of 4 is below their own role: Junior passes the bot's role, which stays where the others leave it.
  expect((await api("GET", `/roles/${c.serverId}`)).body.map((r: { name: string }) => r.name)).toEqual(["Lead", junior.name, botRole.name, helper.name, "@everyone"]);
});

test("channel and category overrides: allow / neutral / deny per bit per role, live, and removing one", async () => {
  const c = await community(suite.server, { name: "Rooms" });
  const api = as(c.owner.token);
  const info = (await api("POST", `/channels/${c.serverId}/categories`, { name: "Info" })).body;
  const news = (await api("POST", `/channels/${c.serverId}`, { name: "news", type: "text", category_id: info.id })).body;
  const mods = (await api("POST", `/roles/${c.serverId}`, { name: "Mods" })).body;
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/channels` });
  const targets = main(page).getByRole("navigation", { name: "Channels and categories" });
  await targets.getByRole("button", { name: "news" }).click();
  const editor = main(page).getByRole("region", { name: "Permissions of #news" });
  await editor.getByText("No overrides: every role has its server-wide permissions in #news.").waitFor();
  await editor.getByRole("combobox", { name: "Add an override for a role" }).selectOption({ label: "@everyone" });
  await editor.getByRole("button", { name: "Add", exact: true }).click();
  const form = editor.getByRole("form", { name: "Overrides of @everyone" });
  await form.getByRole("radiogroup", { name: "Send Messages" }).getByRole("radio", { name: "Deny" }).check();
  await form.getByRole("radiogroup", { name: "Add Reactions" }).getByRole("radio", { name: "Allow" }).check();
  expect(await form.getByRole("radiogroup", { name: "View Channels" }).getByRole("radio", { name: "Neutral" }).isChecked()).toBe(true);
  await suite.shot(page, "settings-08-overrides");
  await form.getByRole("button", { name: "Save override" }).click();
  await eventually(async () =>
    expect((await api("GET", `/channels/${news.id}/permissions`)).body).toEqual([{ role_id: c.everyone, allow: P.ADD_REACTIONS, deny: P.SEND_MESSAGES }]),
  );

  // Live: someone else denies View Channels to Mods; their chip and grid appear.
  await api("PUT", `/channels/${news.id}/permissions/${mods.id}`, { allow: 0, deny: P.VIEW_CHANNEL });
  await editor.getByRole("button", { name: "Mods" }).click();
  const modsForm = editor.getByRole("form", { name: "Overrides of Mods" });
  await eventually(async () => expect(await modsForm.getByRole("radiogroup", { name: "View Channels" }).getByRole("radio", { name: "Deny" }).isChecked()).toBe(true));
  await modsForm.getByRole("button", { name: "Remove override" }).click();
  await page.getByRole("dialog", { name: "Remove the override of Mods?" }).getByRole("button", { name: "Remove override" }).click();
  await eventually(async () => expect((await api("GET", `/channels/${news.id}/permissions`)).body.map((o: { role_id: string }) => o.role_id)).toEqual([c.everyone]));

  // A category.
  await targets.getByRole("button", { name: "Info (category)" }).click();
  const categoryEditor = main(page).getByRole("region", { name: "Permissions of Info" });
  await categoryEditor.getByRole("combobox", { name: "Add an override for a role" }).selectOption({ label: "Mods" });
  await categoryEditor.getByRole("button", { name: "Add", exact: true }).click();
  await categoryEditor.getByRole("radiogroup", { name: "Connect" }).getByRole("radio", { name: "Allow" }).check();
  await categoryEditor.getByRole("button", { name: "Save override" }).click();
  await eventually(async () =>
    expect((await api("GET", `/channels/categories/${info.id}/permissions`)).body).toEqual([{ role_id: mods.id, allow: P.CONNECT, deny: 0 }]),
  );
});

test("a channel manager without Manage Roles reads overrides but cannot change them; a member's held bits bound what they set", async () => {
  const c = await community(suite.server, { name: "Readers" });
  const api = as(c.owner.token);
  const keeper = (await api("POST", `/roles/${c.serverId}`, { name: "Keeper", permissions: P.MANAGE_CHANNELS })).body;
  await api("POST", `/roles/${c.serverId}/assign`, { targetUserId: c.member.id, roleId: keeper.id });
  await api("PUT", `/channels/${c.channelId}/permissions/${c.everyone}`, { allow: 0, deny: P.ATTACH_FILES });
  const { page } = await suite.person({ user: c.member, path: `/servers/${c.serverId}/settings/channels` });
  const editor = main(page).getByRole("region", { name: "Permissions of #general" });
  await editor.getByText("You can read these overrides; changing them needs Manage Roles.").waitFor();
  const grid = editor.getByRole("form", { name: "Overrides of @everyone" });
  expect(await grid.getByRole("radiogroup", { name: "Attach Files" }).getByRole("radio", { name: "Deny" }).isChecked()).toBe(true);
  expect(await grid.getByRole("radiogroup", { name: "Attach Files" }).getByRole("radio", { name: "Allow" }).isDisabled()).toBe(true);
  expect(await editor.getByRole("button", { name: "Save override" }).count()).toBe(0);
  expect(await editor.getByRole("combobox", { name: "Add an override for a role" }).count()).toBe(0);
  await suite.shot(page, "settings-09-overrides-read-only");
  // Their settings entry exists for this alone.
  expect(await accessibleNames(settingsNav(page), "link")).toEqual(["← Back to the server", "Channel permissions", "Webhooks"]);
});
