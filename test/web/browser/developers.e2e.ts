/**
 * Point 7: the developer portal `/developers`: the person's applications, "New application"
 * (Name, Description, Create), the bot token under "Bot token" with "Copy" and "Reset token"
 * (confirmed first; the old token stops working), the SDK's install command with this server's address, name and description, avatar and banner with
 * their preview, default permissions with the bitfield, the public-bot and lock switches, the
 * invite link with its copy button, the bot's commands and servers, and deleting.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { createBot } from "../../helpers/bots.ts";
import { registerCommands } from "../../helpers/bot-platform.ts";
import { createServer } from "../../helpers/community.ts";
import type { TestUser } from "../../helpers/server.ts";
import { totpCode, wrongCode } from "../../helpers/totp.ts";
import { accessibleNames, eventually, fitsWidth, isFocused, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
/** The platform administrator (the first account), for the platform setting of the last test. */
let admin: TestUser;
beforeAll(async () => {
  suite = await startWebSuite();
  admin = await suite.server.register();
});
afterAll(() => suite.stop());

const api = (method: string, path: string, token?: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });
const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const clipboard = (page: Page) => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

test("from the app to the portal: create an application by keyboard, see and copy its token, reset it (the old one stops working)", async () => {
  const person = await suite.person();
  const { page, context } = person;
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("region", { name: "Your account" }).getByRole("link", { name: "Developer portal" }).waitFor();
  await suite.shot(page, "developers-0-user-panel");
  await page.getByRole("link", { name: "Developer portal" }).click();
  await page.getByRole("heading", { name: "Applications", exact: true }).waitFor();
  await page.getByRole("heading", { name: "No applications yet" }).waitFor();
  await suite.shot(page, "developers-1-empty");

  // Keyboard only: the button, the two fields, Enter.
  await page.getByRole("button", { name: "New application", exact: true }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "New application" });
  expect(await isFocused(dialog.getByRole("textbox", { name: "Name", exact: true }))).toBe(true);
  await page.keyboard.type("Forecaster [BOT]");
  await page.keyboard.press("Tab");
  expect(await isFocused(dialog.getByRole("textbox", { name: "Description", exact: true }))).toBe(true);
  await page.keyboard.type("Tells the weather, badly.");
  await suite.shot(page, "developers-2-new-dialog");
  await dialog.getByRole("button", { name: "Create", exact: true }).click();

  // The application page shows the token once, focused, under "Bot token".
  const token = region(page, "Bot token");
  const field = token.getByRole("textbox", { name: "Bot token" });
  await field.waitFor();
  expect(await isFocused(field)).toBe(true);
  const first = await field.inputValue();
  expect(first.length).toBeGreaterThan(20);
  const [app] = (await api("GET", "/oauth2/applications", person.token)).body;
  expect(app.name).toBe("Forecaster [BOT]");
  expect(app.description).toBe("Tells the weather, badly.");
  expect(page.url()).toEndWith(`/developers/applications/${app.id}`);
  expect((await api("GET", "/users/me/info", first)).status).toBe(200);
  await token.getByRole("button", { name: "Copy", exact: true }).click();
  await token.getByRole("status").filter({ hasText: "Copied" }).waitFor();
  expect(await clipboard(page)).toBe(first);
  await suite.shot(page, "developers-3-token");

  // Reset: asked first (Cancel keeps it), then a new token; the old one is refused at once.
  await token.getByRole("button", { name: "Reset token", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Reset bot token" });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  expect(await field.inputValue()).toBe(first);
  await eventually(async () => expect(await isFocused(token.getByRole("button", { name: "Reset token", exact: true }))).toBe(true));
  expect((await api("GET", "/users/me/info", first)).status).toBe(200);
  await token.getByRole("button", { name: "Reset token", exact: true }).click();
  await eventually(async () => expect(await isFocused(confirm.getByRole("button", { name: "Cancel" }))).toBe(true));
  await suite.shot(page, "developers-4-reset-confirm");
  await confirm.getByRole("button", { name: "Reset token", exact: true }).click();
  await eventually(async () => expect(await field.inputValue()).not.toBe(first));
  await eventually(async () => expect(await isFocused(field)).toBe(true));
  const second = await field.inputValue();
  expect((await api("GET", "/users/me/info", first)).status).toBe(401);
  expect((await api("GET", "/users/me/info", second)).status).toBe(200);

  // Leaving and coming back: the token is not shown again; the list has the application.
  await page.getByRole("navigation", { name: "Developer portal" }).getByRole("link", { name: "Applications" }).click();
  await page.getByRole("link", { name: /Forecaster \[BOT\]/ }).click();
  await region(page, "Bot token").getByText("Reset it to get a new one.").waitFor();
  expect(await region(page, "Bot token").getByRole("textbox").count()).toBe(0);

  // "SDK": the install command with this server's address, copied as shown, and it names a tarball the server serves.
  const sdk = region(page, "SDK");
  const command = await sdk.getByRole("textbox", { name: "Install command" }).inputValue();
  expect(command).toBe(`npm install ${suite.server.url}/sdk/latest.tgz`);
  await sdk.getByRole("button", { name: "Copy command", exact: true }).click();
  await eventually(async () => expect(await clipboard(page)).toBe(command));
  await sdk.scrollIntoViewIfNeeded();
  await suite.shot(page, "developers-5b-sdk", { phone: true });
  const tarball = await fetch(command.replace("npm install ", ""));
  expect([tarball.status, tarball.headers.get("content-type")]).toEqual([200, "application/gzip"]);
});

test("edit name and description, upload an avatar and a banner", async () => {
  const person = await suite.server.register();
  const bot = await createBot(suite.server, person, "Plain Bot");
  const { page } = await suite.person({ user: person, path: `/developers/applications/${bot.appId}` });
  const general = region(page, "General information");
  const name = general.getByRole("textbox", { name: "Name", exact: true });
  await name.waitFor();
  expect(await name.inputValue()).toBe("Plain Bot");
  const save = general.getByRole("button", { name: "Save changes" });
  expect(await save.isDisabled()).toBe(true);
  await name.fill("Fancy Bot");
  await general.getByRole("textbox", { name: "Description", exact: true }).fill("Now with a description.");
  await save.click();
  await general.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  await page.getByRole("heading", { name: "Fancy Bot", level: 1 }).waitFor();
  const saved = (await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body;
  expect([saved.name, saved.description]).toEqual(["Fancy Bot", "Now with a description."]);

  // A name the server refuses shows its error.
  await name.fill("   ");
  await save.click();
  await general.getByRole("alert").filter({ hasText: "name" }).waitFor();
  await general.getByRole("button", { name: "Undo changes" }).click();
  expect(await name.inputValue()).toBe("Fancy Bot");
  expect(await general.getByRole("alert").allTextContents()).toEqual([]);

  await general.getByLabel("Upload avatar").setInputFiles({ name: "avatar.png", mimeType: "image/png", buffer: Buffer.from(solidPng(64, 64, [47, 158, 68])) });
  await eventually(async () => expect((await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body.avatar).toMatch(/^\/uploads\//));
  await general.getByLabel("Upload banner").setInputFiles({ name: "banner.png", mimeType: "image/png", buffer: Buffer.from(solidPng(320, 100, [76, 110, 245])) });
  const app = await eventually(async () => {
    const body = (await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body;
    expect(body.banner).toMatch(/^\/uploads\//);
    return body;
  });
  // The previews show the uploaded files (the avatar also in the page's title).
  await eventually(async () => expect(await general.locator(`img[src="${app.avatar}"]`).count()).toBe(1));
  await eventually(async () => expect(await general.locator(`img[src="${app.banner}"]`).count()).toBe(1));
  const avatarWidth = () => general.locator(`img[src="${app.avatar}"]`).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
  await eventually(async () => expect(await avatarWidth()).toBe(64));
  // Not an image: the server's refusal.
  await general.getByLabel("Upload avatar").setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("not a picture") });
  await general.getByRole("alert").filter({ hasText: "avatar must be a PNG, JPEG, WEBP or GIF image" }).waitFor();
  await suite.shot(page, "developers-5-general", { fullPage: true });
});

test("default permissions with the bitfield, the switches, and the invite link for the checked permissions", async () => {
  const person = await suite.server.register();
  const bot = await createBot(suite.server, person, "Perm Bot");
  const { page, context } = await suite.person({ user: person, path: `/developers/applications/${bot.appId}` });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const install = region(page, "Installation");
  const boxes = install.getByRole("group", { name: "Default permissions", exact: true });
  await boxes.waitFor();
  expect(await accessibleNames(boxes, "checkbox")).toHaveLength(24);
  await install.getByText("Permissions integer: 8895488").waitFor();
  const link = install.getByRole("textbox", { name: "Invite link" });
  expect(await link.inputValue()).toBe(`${suite.server.url}/invite?bot=${bot.botUserId}&permissions=8895488`);

  // Uncheck everything but View Channels and Send Messages (by keyboard for one of them).
  for (const label of ["Add Reactions", "Attach Files", "Embed Links", "Read Message History", "Use Application Commands", "Connect", "Speak"]) {
    const box = boxes.getByRole("checkbox", { name: label, exact: true });
    if (await box.isChecked()) await box.uncheck();
  }
  await boxes.getByRole("checkbox", { name: "Kick Members", exact: true }).focus();
  await page.keyboard.press("Space");
  const bits = 2048 | 4096 | 4;
  await install.getByText(`Permissions integer: ${bits}`).waitFor();
  expect(await link.inputValue()).toBe(`${suite.server.url}/invite?bot=${bot.botUserId}&permissions=${bits}`);
  await install.getByRole("button", { name: "Copy link" }).click();
  expect(await clipboard(page)).toBe(`${suite.server.url}/invite?bot=${bot.botUserId}&permissions=${bits}`);
  await install.getByRole("button", { name: "Save permissions" }).click();
  await install.getByRole("status").filter({ hasText: "Default permissions saved." }).waitFor();
  expect((await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body.default_permissions).toBe(bits);

  // Administrator is stored alone: the boxes show what the server kept.
  await boxes.getByRole("checkbox", { name: "Administrator", exact: true }).check();
  await install.getByText("Administrator gives every permission").waitFor();
  await install.getByRole("button", { name: "Save permissions" }).click();
  await install.getByText("Permissions integer: 512").waitFor();
  expect(await boxes.getByRole("checkbox", { name: "Send Messages", exact: true }).isChecked()).toBe(false);
  await boxes.getByRole("checkbox", { name: "Administrator", exact: true }).uncheck();
  await boxes.getByRole("checkbox", { name: "View Channels", exact: true }).check();
  await install.getByRole("button", { name: "Save permissions" }).click();
  await install.getByText("Permissions integer: 2048").waitFor();

  // The switches save at once.
  const publicBot = install.getByRole("switch", { name: "Public bot" });
  expect(await publicBot.isChecked()).toBe(true);
  await publicBot.click();
  await install.getByRole("status").filter({ hasText: "The bot is private." }).waitFor();
  expect((await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body.public_invite).toBe(false);
  const lock = install.getByRole("switch", { name: "Lock invite permissions" });
  await lock.focus();
  await page.keyboard.press("Space");
  await install.getByRole("status").filter({ hasText: "Invite permissions are locked." }).waitFor();
  const saved = (await api("GET", `/oauth2/applications/${bot.appId}`, person.token)).body;
  expect([saved.invite_permission_locked, saved.default_permissions]).toEqual([true, 2048]);
  // Unsaved changes while locked: the link's note warns it will be refused.
  await boxes.getByRole("checkbox", { name: "Send Messages", exact: true }).check();
  await install.getByText("while the lock is on, this link is refused until you save them").waitFor();
  await suite.shot(page, "developers-6-installation", { fullPage: true });

  // The link opens the invite page with those bits, locked.
  await install.getByRole("link", { name: "Open" }).click();
  await page.getByRole("combobox", { name: "Server", exact: true }).waitFor();
  expect(await page.getByRole("checkbox", { name: "Send Messages", exact: true }).isDisabled()).toBe(true);
});

test("the bot's commands (read only, with their options) and the servers it is in", async () => {
  const person = await suite.server.register();
  const bot = await createBot(suite.server, person, "Dice Bot");
  const emptyPage = await suite.person({ user: person, path: `/developers/applications/${bot.appId}` });
  await region(emptyPage.page, "Commands").getByText("No commands yet.").waitFor();
  await region(emptyPage.page, "Servers").getByText("The bot is in no server yet.").waitFor();

  await registerCommands(suite.server, bot, [
    {
      name: "roll",
      description: "Roll some dice",
      options: [
        { name: "sides", description: "Sides per die", type: 4, required: true },
        { name: "mode", description: "How to roll", type: 3, choices: [{ name: "Normal", value: "n" }, { name: "Advantage", value: "a" }] },
        { name: "user", description: "Roll for someone" },
      ],
    },
    { name: "ping", description: "" },
  ]);
  const serverId = await createServer(suite.server, person, "Dice Den");
  expect((await api("POST", `/oauth2/applications/${bot.appId}/servers/${serverId}`, person.token, { permissions: 2048 | 4096 })).status).toBe(200);
  const serverCommand = await api("POST", `/oauth2/applications/${bot.appId}/commands`, person.token, { name: "den-only", description: "Only here", server_id: serverId });
  expect(serverCommand.status).toBe(201);

  const { page } = await suite.person({ user: person, path: `/developers/applications/${bot.appId}` });
  const commands = region(page, "Commands");
  await commands.getByRole("heading", { name: /\/roll/ }).waitFor();
  // Global commands first, then the server's, each by name (as the API lists them).
  expect(await accessibleNames(commands, "heading")).toEqual(["Commands", "/ping Global", "/roll Global", "/den-only Only in Dice Den"]);
  const options = commands.getByRole("table", { name: "Options of /roll" });
  expect(await options.getByRole("row").allInnerTexts()).toEqual([
    "OPTION\tTYPE\tREQUIRED\tDESCRIPTION", // innerText follows the upper-case style of the header
    "sides\tinteger\tRequired\tSides per die",
    "mode\tstring\tOptional\tHow to roll\nChoices: Normal, Advantage",
    "user\tstring (a user picker in the chat)\tOptional\tRoll for someone",
  ]);
  const servers = region(page, "Servers");
  await servers.getByText("Dice Den").waitFor();
  await servers.getByText("View Channels, Send Messages (6144)").waitFor();
  await suite.shot(page, "developers-7-commands-servers", { fullPage: true });
  await servers.getByRole("link", { name: "Open Dice Den" }).click();
  await page.getByRole("navigation", { name: "Members", exact: true }).getByRole("button", { name: "Dice Bot" }).waitFor();
});

test("delete an application after a confirmation; someone else's application is not found", async () => {
  const person = await suite.server.register();
  const keep = await createBot(suite.server, person, "Keeper");
  const gone = await createBot(suite.server, person, "Goner");
  // A name of the longest kind (32 characters, no space) must not break the tiles or the page.
  const long = await createBot(suite.server, person, "Supercalifragilisticexpialidocio");
  const { page } = await suite.person({ user: person, path: "/developers" });
  const list = page.getByRole("list", { name: "Your applications" });
  await list.getByRole("link", { name: /Goner/ }).waitFor();
  expect(await accessibleNames(list, "link")).toEqual([
    "Keeper Keeper does things",
    "Goner Goner does things",
    `${long.name} ${long.name} does things`,
  ]);
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "developers-8-list");
  await list.getByRole("link", { name: /Goner/ }).click();
  const danger = region(page, "Delete application");
  await danger.getByRole("button", { name: "Delete application" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete Goner" });
  expect(await isFocused(confirm.getByRole("button", { name: "Cancel" }))).toBe(true);
  await suite.shot(page, "developers-9-delete-confirm");
  await confirm.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("heading", { name: "Applications", exact: true }).waitFor();
  await eventually(async () => expect(await accessibleNames(list, "link")).toHaveLength(2));
  expect(await list.getByRole("link", { name: /Goner/ }).count()).toBe(0);
  expect((await api("GET", `/oauth2/applications/${gone.appId}`, person.token)).status).toBe(404);
  expect((await api("GET", "/users/me/info", gone.token)).status).toBe(401);
  await list.getByRole("link", { name: new RegExp(long.name) }).click();
  await page.getByRole("heading", { name: long.name, level: 1 }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "developers-11-long-name");

  const other = await suite.person({ path: `/developers/applications/${keep.appId}` });
  await other.page.getByRole("heading", { name: "This application cannot be opened" }).waitFor();
  await other.page.getByRole("alert").filter({ hasText: "Application not found" }).waitFor();
  await suite.shot(other.page, "developers-10-not-found");
});

test("the portal needs an account: a visitor logs in and lands on it", async () => {
  const person = await suite.server.register();
  const { page } = await suite.visitor("/developers");
  await page.waitForURL(/\/login\?next=%2Fdevelopers/);
  await page.getByRole("textbox", { name: "Email or username" }).fill(person.username);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("button", { name: "New application", exact: true }).waitFor();
});

test("when the platform requires two-factor authentication for applications, the dialog asks for the code", async () => {
  expect((await api("PATCH", "/admin/settings", admin.token, { require_2fa_for_applications: true })).status).toBe(200);
  try {
    // Without two-factor authentication: the server's refusal.
    const plain = await suite.person({ path: "/developers" });
    await plain.page.getByRole("button", { name: "New application", exact: true }).click();
    const plainDialog = plain.page.getByRole("dialog", { name: "New application" });
    await plainDialog.getByRole("textbox", { name: "Name", exact: true }).fill("Nope");
    await plainDialog.getByRole("button", { name: "Create", exact: true }).click();
    await plainDialog.getByRole("alert").filter({ hasText: "Enable two-factor authentication to create applications" }).waitFor();

    // With it: the code field is there from the start; a wrong code is refused, the right one creates.
    const person = await suite.server.register();
    const secret = (await api("POST", "/auth/2fa/setup", person.token)).body.secret as string;
    expect((await api("POST", "/auth/2fa/enable", person.token, { code: totpCode(secret), password: person.password })).status).toBe(200);
    const { page } = await suite.person({ user: person, path: "/developers" });
    await page.getByRole("button", { name: "New application", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "New application" });
    await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Guarded");
    const code = dialog.getByRole("textbox", { name: "Two-factor code", exact: true });
    await code.fill(wrongCode(secret));
    await dialog.getByRole("button", { name: "Create", exact: true }).click();
    await dialog.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
    await suite.shot(page, "developers-12-two-factor");
    await code.fill(totpCode(secret));
    await dialog.getByRole("button", { name: "Create", exact: true }).click();
    await region(page, "Bot token").getByRole("textbox", { name: "Bot token" }).waitFor();
  } finally {
    await api("PATCH", "/admin/settings", admin.token, { require_2fa_for_applications: false });
  }
});
