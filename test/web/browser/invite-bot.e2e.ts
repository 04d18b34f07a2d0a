/**
 * Point 6: the bot invite page `/invite?bot=<bot_user_id>&permissions=<bitfield>`: the public
 * card, the login step and the way back, the "Server" picker (only servers one manages), the
 * permission checkboxes pre-set from the link (read-only when locked), "Authorize", and the
 * server's refusals. `/invite/<code>` (server invites) keeps working beside it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { createBot, type TestBot } from "../../helpers/bots.ts";
import { addMember, createServer } from "../../helpers/community.ts";
import type { TestUser } from "../../helpers/server.ts";
import { accessibleNames, fitsWidth, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const BITS = {
  MANAGE_CHANNELS: 1,
  ADD_REACTIONS: 1024,
  VIEW_CHANNEL: 2048,
  SEND_MESSAGES: 4096,
  ATTACH_FILES: 65536,
  READ_MESSAGE_HISTORY: 262144,
};
const UNKNOWN_UUID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

const api = (method: string, path: string, token?: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });

/** The permissions of the bot's managed role in the server, read through the API. */
async function managedRoleBits(owner: TestUser, serverId: string, bot: TestBot): Promise<number> {
  const members = (await api("GET", `/servers/${serverId}/members`, owner.token)).body as { user_id: string; roles: string[] }[];
  const roleId = members.find((m) => m.user_id === bot.botUserId)?.roles[0];
  expect(roleId).toBeDefined();
  const roles = (await api("GET", `/roles/${serverId}`, owner.token)).body as { id: string; permissions: number }[];
  return roles.find((r) => r.id === roleId)!.permissions;
}

const checkbox = (page: Page, label: string) => page.getByRole("checkbox", { name: label, exact: true });

async function appSettings(owner: TestUser, bot: TestBot, fields: { public_invite?: boolean; locked?: boolean; default_permissions?: number }) {
  if (fields.public_invite !== undefined) {
    expect((await api("PATCH", `/oauth2/applications/${bot.appId}/public-invite`, owner.token, { public_invite: fields.public_invite })).status).toBe(200);
  }
  if (fields.default_permissions !== undefined || fields.locked !== undefined) {
    const body = { default_permissions: fields.default_permissions ?? 8895488, invite_permission_locked: fields.locked ?? false };
    expect((await api("PATCH", `/oauth2/applications/${bot.appId}/permissions`, owner.token, body)).status).toBe(200);
  }
}

test("the invite page adds a bot with exactly the checked permissions, to a server the person manages", async () => {
  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Weather Bot");
  const person = await suite.server.register();
  const owned = await createServer(suite.server, person, "Picnic Planners");
  // A server where the person is an admin is offered; one where they are a plain member is not.
  const host = await suite.server.register();
  const adminOf = await createServer(suite.server, host, "Admins Welcome");
  await addMember(suite.server, adminOf, person, "admin");
  const memberOf = await createServer(suite.server, host, "Just Visiting");
  await addMember(suite.server, memberOf, person, "member");

  const requested = BITS.VIEW_CHANNEL | BITS.SEND_MESSAGES | BITS.ADD_REACTIONS;
  const { page } = await suite.person({ user: person, path: `/invite?bot=${bot.botUserId}&permissions=${requested}` });
  await page.getByRole("heading", { name: /Weather Bot/ }).waitFor();
  await page.getByText("Weather Bot does things").waitFor();
  const picker = page.getByRole("combobox", { name: "Server", exact: true });
  await picker.getByRole("option", { name: "Admins Welcome" }).waitFor({ state: "attached" });
  expect(await picker.locator("option").allTextContents()).toEqual(["Choose a server", "Picnic Planners", "Admins Welcome"]);

  // Pre-set from the link: exactly the three bits, one checkbox per permission.
  expect(await accessibleNames(page.getByRole("group", { name: "Permissions", exact: true }), "checkbox")).toHaveLength(24);
  for (const label of ["View Channels", "Send Messages", "Add Reactions"]) expect(await checkbox(page, label).isChecked()).toBe(true);
  for (const label of ["Manage Channels", "Attach Files", "Administrator"]) expect(await checkbox(page, label).isChecked()).toBe(false);
  await page.getByText(`Permissions integer: ${requested}`).waitFor();
  await suite.shot(page, "invite-bot-1-card", { fullPage: true });

  // Authorize without a server says so; then pick one, change the boxes, authorize.
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "Choose a server first." }).waitFor();
  expect(await isFocused(picker)).toBe(true);
  await picker.selectOption({ label: "Picnic Planners" });
  await checkbox(page, "Add Reactions").uncheck();
  await checkbox(page, "Attach Files").check();
  await checkbox(page, "Read Message History").check();
  const chosen = BITS.VIEW_CHANNEL | BITS.SEND_MESSAGES | BITS.ATTACH_FILES | BITS.READ_MESSAGE_HISTORY;
  await page.getByText(`Permissions integer: ${chosen}`).waitFor();
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Weather Bot was added to Picnic Planners." }).waitFor();
  await suite.shot(page, "invite-bot-2-added");
  expect(await managedRoleBits(person, owned, bot)).toBe(chosen);

  // The page links to the server, where the bot is now a member.
  await page.getByRole("link", { name: "Go to Picnic Planners" }).click();
  await page.getByRole("navigation", { name: "Members", exact: true }).getByRole("button", { name: "Weather Bot" }).waitFor();

  // Authorizing again in the admin's server works too; again with other bits only updates the role.
  await page.goto(`/invite?bot=${bot.botUserId}&permissions=${BITS.VIEW_CHANNEL}`);
  await picker.selectOption({ label: "Admins Welcome" });
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Weather Bot was added to Admins Welcome." }).waitFor();
  expect(await managedRoleBits(host, adminOf, bot)).toBe(BITS.VIEW_CHANNEL);
  await page.getByRole("button", { name: "Add to another server" }).click();
  await picker.selectOption({ label: "Picnic Planners" });
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "was already in Picnic Planners" }).waitFor();
  expect(await managedRoleBits(person, owned, bot)).toBe(BITS.VIEW_CHANNEL);
});

test("a visitor sees the card, registers, and comes back to the same invite", async () => {
  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Greeter");
  // A long description wraps on the card; the page never scrolls sideways.
  const description = `Greets everyone who joins, in forty languages. ${"Averyveryverylongwordwithoutanyspaces".repeat(3)} ${"And more. ".repeat(20)}`;
  expect((await api("PUT", `/oauth2/applications/${bot.appId}`, developer.token, { description })).status).toBe(200);
  const bits = BITS.VIEW_CHANNEL | BITS.SEND_MESSAGES;
  const path = `/invite?bot=${bot.botUserId}&permissions=${bits}`;
  const { page } = await suite.visitor(path);
  await page.getByRole("heading", { name: /Greeter/ }).waitFor();
  expect(await page.getByRole("listitem").allTextContents()).toEqual(["View Channels", "Send Messages"]);
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "invite-bot-3-visitor");

  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByRole("textbox", { name: "Username" }).fill("new_admin");
  await page.getByRole("textbox", { name: "Email" }).fill("new_admin@example.test");
  await page.getByLabel("Password").fill("a long password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("combobox", { name: "Server", exact: true }).waitFor();
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(path);
  expect(await checkbox(page, "Send Messages").isChecked()).toBe(true);
  // Someone in no server is told where bots can go.
  await page.getByText("Bots can be added only to servers you own or are an admin of.").waitFor();
  expect(await page.getByRole("button", { name: "Authorize", exact: true }).isDisabled()).toBe(true);
  await suite.shot(page, "invite-bot-4-no-server");

  // Log out, then log in from the card: back to the invite again.
  await page.evaluate(() => localStorage.clear());
  await page.goto(path);
  await page.getByRole("link", { name: "Log in" }).click();
  await page.getByRole("textbox", { name: "Email or username" }).fill("new_admin");
  await page.getByLabel("Password").fill("a long password");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("combobox", { name: "Server", exact: true }).waitFor();
  expect(new URL(page.url()).search).toBe(`?bot=${bot.botUserId}&permissions=${bits}`);
});

test("a locked application: the boxes are read-only, the link's bits go as they are, other bits are refused", async () => {
  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Strict Bot");
  const locked = BITS.VIEW_CHANNEL | BITS.SEND_MESSAGES;
  await appSettings(developer, bot, { default_permissions: locked, locked: true });
  const person = await suite.server.register();
  const serverId = await createServer(suite.server, person, "Lockers");

  // A link with other bits: shown as the link says, read-only, and the server refuses them.
  const { page } = await suite.person({ user: person, path: `/invite?bot=${bot.botUserId}&permissions=${locked | BITS.MANAGE_CHANNELS}` });
  await page.getByText("locked these permissions").waitFor();
  expect(await checkbox(page, "Manage Channels").isChecked()).toBe(true);
  for (const label of ["Manage Channels", "Send Messages", "Kick Members"]) {
    expect(await checkbox(page, label).isDisabled()).toBe(true);
    expect(await checkbox(page, label).isEditable()).toBe(false);
  }
  await page.getByRole("combobox", { name: "Server", exact: true }).selectOption({ label: "Lockers" });
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: `This bot's invite permissions are locked: permissions must be ${locked}` }).waitFor();
  await suite.shot(page, "invite-bot-5-locked-refused", { fullPage: true });

  // The bot's own link (its default bits) works.
  await page.goto(`/invite?bot=${bot.botUserId}&permissions=${locked}`);
  await page.getByRole("combobox", { name: "Server", exact: true }).selectOption({ label: "Lockers" });
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Strict Bot was added to Lockers." }).waitFor();
  expect(await managedRoleBits(person, serverId, bot)).toBe(locked);
});

test("a private bot is refused for anyone but its owner, who can add it", async () => {
  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Secret Bot");
  await appSettings(developer, bot, { public_invite: false });
  const stranger = await suite.server.register();
  await createServer(suite.server, stranger, "Stranger Things");
  const path = `/invite?bot=${bot.botUserId}&permissions=${BITS.VIEW_CHANNEL}`;

  const { page } = await suite.person({ user: stranger, path });
  await page.getByText("This is a private bot: only its owner can add it to a server.").waitFor();
  await page.getByRole("combobox", { name: "Server", exact: true }).selectOption({ label: "Stranger Things" });
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "This bot is private: only its owner can add it to a server" }).waitFor();
  await suite.shot(page, "invite-bot-6-private-refused");

  const ownServer = await createServer(suite.server, developer, "Home Base");
  const { page: ownerPage } = await suite.person({ user: developer, path });
  await ownerPage.getByRole("combobox", { name: "Server", exact: true }).selectOption({ label: "Home Base" });
  await ownerPage.getByRole("button", { name: "Authorize", exact: true }).click();
  await ownerPage.getByRole("status").filter({ hasText: "Secret Bot was added to Home Base." }).waitFor();
  expect(await managedRoleBits(developer, ownServer, bot)).toBe(BITS.VIEW_CHANNEL);
});

test("an unknown bot, an incomplete link and a bad bitfield say what is wrong; /invite/<code> still opens a server invite", async () => {
  const person = await suite.server.register();
  const { page } = await suite.person({ user: person, path: `/invite?bot=${UNKNOWN_UUID}&permissions=0` });
  await page.getByRole("heading", { name: "This bot cannot be added" }).waitFor();
  await page.getByRole("alert").filter({ hasText: "Bot not found" }).waitFor();
  await suite.shot(page, "invite-bot-7-unknown");

  await page.goto("/invite");
  await page.getByRole("heading", { name: "This invite link is incomplete" }).waitFor();

  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Default Bot");
  await page.goto(`/invite?bot=${bot.botUserId}&permissions=banana`);
  await page.getByText('The link\'s permissions ("banana") are not a valid number').waitFor();
  // The bot's defaults (8895488: View Channels, Send Messages, ... ) are shown instead.
  await page.getByText("Permissions integer: 8895488").waitFor();
  expect(await checkbox(page, "Send Messages").isChecked()).toBe(true);

  const host = await suite.server.register();
  const serverId = await createServer(suite.server, host, "Code Club");
  const invite = await api("POST", `/servers/${serverId}/invites`, host.token, {});
  await page.goto(`/invite/${invite.body.code}`);
  await page.getByRole("button", { name: "Accept invite" }).click();
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("heading", { name: "Code Club" }).waitFor();
});

test("long names: a bot named with 32 letters and a server with 100 fit the page", async () => {
  const developer = await suite.server.register();
  const bot = await createBot(suite.server, developer, "Pneumonoultramicroscopicsilicovo");
  const person = await suite.server.register();
  const serverName = "Supercalifragilisticexpialidocious".repeat(3).slice(0, 100);
  await createServer(suite.server, person, serverName);
  const { page } = await suite.person({ user: person, path: `/invite?bot=${bot.botUserId}&permissions=${BITS.VIEW_CHANNEL}` });
  await page.getByRole("combobox", { name: "Server", exact: true }).selectOption({ label: serverName });
  expect(await fitsWidth(page)).toBe(true);
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await page.getByRole("link", { name: `Go to ${serverName}` }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "invite-bot-8-long-names");
});
