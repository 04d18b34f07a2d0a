/**
 * User settings (issue 43, point 3): `/settings/<section>` behind "User settings" in the account
 * panel, closed by Escape and "Close"; My account (username, password, log out everywhere),
 * Profile (avatar, banner, bio with its count, the preview card), Two-factor authentication
 * (enabled from the QR code's secret with a code computed here, logged in with it, a recovery
 * code used), Notifications, Privacy, Appearance, and the status picker behind the avatar.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { encode as encodeQr } from "uqr";
import { addMember, createServer } from "../../helpers/community.ts";
import { totpCode } from "../../helpers/totp.ts";
import { accessibleNames, eventually, fitsWidth, isFocused, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const accountPanel = (page: Page) => page.getByRole("region", { name: "Your account", exact: true });
const settingsNav = (page: Page) => page.getByRole("navigation", { name: "User settings", exact: true });
const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
const me = async (token: string) => suite.server.api("GET", "/api/v1/users/me/info", { token });

async function openSettings(page: Page, section?: string): Promise<void> {
  await accountPanel(page).getByRole("button", { name: "User settings", exact: true }).click();
  await heading(page, "My account").waitFor();
  if (section) {
    await settingsNav(page).getByRole("link", { name: section, exact: true }).click();
    await heading(page, section).waitFor();
  }
}

test("User settings open from the account panel, list their sections and close with Close and with Escape", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  const from = new URL(page.url()).pathname;

  await openSettings(page);
  expect(new URL(page.url()).pathname).toBe("/settings/account");
  expect(await accessibleNames(settingsNav(page), "link")).toEqual(["My account", "Profile", "Two-factor authentication", "Notifications", "Privacy", "Appearance"]);
  expect(await settingsNav(page).getByRole("link", { name: "My account", exact: true }).getAttribute("aria-current")).toBe("page");
  await page.getByText(person.email).first().waitFor();
  await suite.shot(page, "user-settings-1-my-account", { phone: true });

  // A section by keyboard: its heading takes the focus.
  await settingsNav(page).getByRole("link", { name: "Privacy", exact: true }).focus();
  await page.keyboard.press("Enter");
  await heading(page, "Privacy").waitFor();
  expect(new URL(page.url()).pathname).toBe("/settings/privacy");
  await eventually(async () => expect(await isFocused(heading(page, "Privacy"))).toBe(true));

  await page.getByRole("button", { name: "Close", exact: true }).click();
  await page.waitForURL((url) => url.pathname === from);
  await accountPanel(page).waitFor();

  await openSettings(page, "Appearance");
  await page.keyboard.press("Escape");
  await page.waitForURL((url) => url.pathname === from);

  // An address of its own: reloading stays, and an unknown section says so.
  await page.goto("/settings/profile");
  await heading(page, "Profile").waitFor();
  await page.goto("/settings/nothing-here");
  await page.getByText("There is no such section").waitFor();
  await page.goto("/settings");
  await heading(page, "My account").waitFor();
  expect(new URL(page.url()).pathname).toBe("/settings/account");
});

test("My account: the username is changed, and Change password ends the old token while the new login works", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  const elsewhere = (await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password } })).body.token as string;
  await openSettings(page);

  // The username: the server's refusal is shown, then a good name is saved and shown in the panel.
  const username = page.getByRole("textbox", { name: "Username", exact: true });
  await username.fill("no spaces allowed");
  await page.getByRole("button", { name: "Save username", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "username:" }).waitFor();
  const renamed = `${person.username}_2`.slice(0, 32);
  await username.fill(renamed);
  await page.getByRole("button", { name: "Save username", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Username changed." }).waitFor();
  await page.getByRole("heading", { level: 2, name: renamed, exact: true }).waitFor();
  expect((await me(person.token)).body.username).toBe(renamed);

  // A wrong current password is refused, and nothing changes.
  await page.getByLabel("Current password").fill("not the password");
  await page.getByLabel("New password").fill("a new password 1");
  await page.getByRole("button", { name: "Change password", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "Current password is incorrect" }).waitFor();
  expect((await me(person.token)).status).toBe(200);

  await page.getByLabel("Current password").fill(person.password);
  await page.getByLabel("New password").fill("a new password 1");
  await page.getByRole("button", { name: "Change password", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Password changed." }).waitFor();
  await suite.shot(page, "user-settings-2-password-changed");
  // The old tokens (this page's first one, another device's) stop working; this page continues with the fresh one.
  expect((await me(person.token)).status).toBe(401);
  expect((await me(elsewhere)).status).toBe(401);
  const stored = JSON.parse((await page.evaluate(() => localStorage.getItem("hearth.session")))!);
  expect(stored.token).not.toBe(person.token);
  expect((await me(stored.token)).status).toBe(200);
  expect(page.url()).toContain("/settings/account");
  // Back in the chat, the app is connected again with the fresh token.
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await eventually(async () => expect(await accountPanel(page).getByText("Online").count()).toBe(1));
  await page.reload();
  await accountPanel(page).getByText(renamed).waitFor();
  expect(page.url()).not.toContain("/login");
  // The new password logs in; the old one no longer does.
  expect((await suite.server.api("POST", "/api/v1/auth/login", { body: { login: renamed, password: "a new password 1" } })).status).toBe(200);
  expect((await suite.server.api("POST", "/api/v1/auth/login", { body: { login: renamed, password: person.password } })).status).toBe(401);
});

test("My account: Log out everywhere asks first, then ends every session", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page);
  await page.getByRole("button", { name: "Log out everywhere", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Log out everywhere?", exact: true });
  await confirm.waitFor();
  expect(await isFocused(confirm.getByRole("button", { name: "Cancel", exact: true }))).toBe(true);
  // Escape closes the dialog, not the settings.
  await page.keyboard.press("Escape");
  await confirm.waitFor({ state: "detached" });
  await heading(page, "My account").waitFor();
  expect((await me(person.token)).status).toBe(200);

  await page.getByRole("button", { name: "Log out everywhere", exact: true }).click();
  await confirm.getByRole("button", { name: "Log out everywhere", exact: true }).click();
  await page.waitForURL(/\/login/);
  expect((await me(person.token)).status).toBe(401);
});

test("Profile: avatar and banner previewed before upload, then saved and removed; the bio is counted to 500; the card shows it all", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Profile");
  const card = page.getByRole("group", { name: `${person.username}'s profile as others see it` });
  await card.waitFor();

  // The avatar: chosen, previewed (in the card too) before anything is sent.
  await page.getByLabel("Choose an avatar").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: Buffer.from(solidPng(64, 64, [47, 158, 68])) });
  await page.getByText("Preview of the chosen image (not uploaded yet).").waitFor();
  expect(await card.locator(".avatar img").getAttribute("src")).toMatch(/^blob:/);
  expect((await me(person.token)).body.avatar).toBeNull();
  await page.getByRole("button", { name: "Upload avatar", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Avatar saved." }).waitFor();
  const avatar = (await me(person.token)).body.avatar as string;
  expect(avatar).toMatch(/^\/uploads\/avatars\//);
  await eventually(async () => expect(await card.locator(".avatar img").getAttribute("src")).toBe(avatar));

  // The banner, with its position.
  await page.getByLabel("Choose a banner").setInputFiles({ name: "banner.png", mimeType: "image/png", buffer: Buffer.from(solidPng(300, 100, [76, 110, 245])) });
  await page.getByRole("img", { name: "Preview of the chosen banner", exact: true }).waitFor();
  await page.getByRole("button", { name: "Upload banner", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Banner saved." }).waitFor();
  expect((await me(person.token)).body.banner).toMatch(/^\/uploads\/banners\//);

  // The bio: counted as typed, too long refused before sending, saved when it fits.
  const bio = page.getByRole("textbox", { name: "Bio", exact: true });
  await bio.fill("x".repeat(501));
  await page.getByText("501 of 500 characters: 1 too many").waitFor();
  expect(await page.getByRole("button", { name: "Save bio", exact: true }).isDisabled()).toBe(true);
  await bio.fill("Hearth person. I like soup.");
  await page.getByText("27 of 500 characters").waitFor();
  await card.getByText("Hearth person. I like soup.").waitFor();
  await page.getByRole("button", { name: "Save bio", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Bio saved." }).waitFor();
  expect((await me(person.token)).body.bio).toBe("Hearth person. I like soup.");
  await suite.shot(page, "user-settings-3-profile", { fullPage: true, phone: true });

  // What another person sees.
  const other = await suite.server.api("GET", `/api/v1/users/${person.user.id}`, { token: (await suite.server.register()).token });
  expect(other.body.avatar).toBe(avatar);
  expect(other.body.bio).toBe("Hearth person. I like soup.");

  await page.getByRole("button", { name: "Remove avatar", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Avatar removed." }).waitFor();
  expect((await me(person.token)).body.avatar).toBeNull();
  await page.getByText("No avatar yet: your initials are shown.").waitFor();
  expect(await fitsWidth(page)).toBe(true);
  // Closed, the account panel shows the avatar as it is now: the initials.
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await accountPanel(page).waitFor();
  expect(await accountPanel(page).locator(".avatar img").count()).toBe(0);
});

/** Logs in on the login page of a fresh browser, with `code` at the two-factor step. */
async function logInWithCode(login: string, password: string, code: string): Promise<Page> {
  const { page } = await suite.visitor("/login");
  await page.getByRole("textbox", { name: "Email or username", exact: true }).fill(login);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await page.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(code);
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  return page;
}

test("Two-factor authentication: enabled from the QR code's secret, then a login with a code and one with a recovery code; regenerated; disabled", async () => {
  const person = await suite.person();
  const { page } = person;
  await person.context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Two-factor authentication");
  await page.getByRole("heading", { name: "Two-factor authentication is off", exact: true }).waitFor();
  const setupAnswer = page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/2fa/setup"));
  await page.getByRole("button", { name: "Set up two-factor authentication", exact: true }).click();
  const { otpauth_url } = (await (await setupAnswer).json()) as { otpauth_url: string };

  // The QR code and the same secret as text.
  const qr = page.getByRole("img", { name: "QR code for your authenticator app", exact: true });
  await qr.waitFor();
  const key = page.getByLabel("Setup key");
  const secret = (await key.getAttribute("data-secret"))!;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect((await key.textContent())!.replaceAll(" ", "")).toBe(secret);
  // The dark modules drawn are exactly those of the setup's otpauth URL, which carries that secret:
  // a camera reading the code gets the secret the test computes its TOTP from.
  expect(new URL(otpauth_url).searchParams.get("secret")).toBe(secret);
  const drawn = [...(await qr.locator("path").getAttribute("d"))!.matchAll(/M(\d+) (\d+)/g)].map((m) => `${m[1]},${m[2]}`);
  const matrix = encodeQr(otpauth_url, { ecc: "M", border: 2 });
  const expected = matrix.data.flatMap((row, y) => row.flatMap((dark, x) => (dark ? [`${x},${y}`] : [])));
  expect(drawn.length).toBeGreaterThan(200);
  expect(drawn).toEqual(expected);
  expect(await qr.getAttribute("viewBox")).toBe(`0 0 ${matrix.size} ${matrix.size}`);
  await suite.shot(page, "user-settings-4-two-factor-setup");

  // A wrong code is refused by the server; a code computed from the secret enables it.
  const code = page.getByRole("textbox", { name: "Two-factor code", exact: true });
  await code.fill(totpCode(secret) === "000000" ? "111111" : "000000");
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Enable two-factor authentication", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
  await code.fill(totpCode(secret));
  await page.getByRole("button", { name: "Enable two-factor authentication", exact: true }).click();

  // The recovery codes, shown once, copied and downloaded.
  const list = page.getByRole("list", { name: "Recovery codes", exact: true });
  await list.waitFor();
  const codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  expect(codes[0]).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
  // Named exactly "Copy" and "Download" (issue 43), described by the codes' heading.
  const copy = page.getByRole("button", { name: "Copy", exact: true });
  expect(await copy.getAttribute("aria-describedby")).toBe("two-factor-codes");
  await copy.click();
  await page.getByRole("status").filter({ hasText: "Copied to the clipboard" }).waitFor();
  expect(await page.evaluate("navigator.clipboard.readText()")).toBe(codes.join("\n"));
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download", exact: true }).click()]);
  const file = await Bun.file((await download.path())!).text();
  for (const c of codes) expect(file).toContain(c);
  await suite.shot(page, "user-settings-5-recovery-codes");
  expect((await me(person.token)).body.two_factor_enabled).toBe(true);
  await page.getByRole("button", { name: "Done", exact: true }).click();
  await page.getByRole("heading", { name: "Two-factor authentication is on", exact: true }).waitFor();
  await suite.shot(page, "user-settings-6-two-factor-on");

  // Logging in needs a code now: one from the app, then a recovery code (which is then used up).
  const withCode = await logInWithCode(person.username, person.password, totpCode(secret));
  await withCode.waitForURL(/\/channels\/@me$/);
  const withRecovery = await logInWithCode(person.email, person.password, codes[0]!);
  await withRecovery.waitForURL(/\/channels\/@me$/);
  const again = await logInWithCode(person.email, person.password, codes[0]!);
  await again.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();

  // New recovery codes: the old ones stop working.
  const regenerate = page.getByRole("form", { name: "Regenerate recovery codes", exact: true });
  await regenerate.getByLabel("Password", { exact: true }).fill(person.password);
  await regenerate.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(totpCode(secret));
  await regenerate.getByRole("button", { name: "Regenerate recovery codes", exact: true }).click();
  // The new codes replace the form once the server has answered.
  await list.waitFor();
  const fresh = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  expect(fresh).toHaveLength(10);
  expect(fresh).not.toContain(codes[1]);
  const old = await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password, code: codes[1] } });
  expect(old.status).toBe(401);
  await page.getByRole("button", { name: "Done", exact: true }).click();

  // Disabling: a wrong password is refused (403, not a log out), then it goes off.
  const disable = page.getByRole("form", { name: "Disable two-factor authentication", exact: true });
  await disable.getByLabel("Password", { exact: true }).fill("not the password");
  await disable.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(fresh[0]!);
  await disable.getByRole("button", { name: "Disable two-factor authentication", exact: true }).click();
  await disable.getByRole("alert").filter({ hasText: "Invalid password" }).waitFor();
  await disable.getByLabel("Password", { exact: true }).fill(person.password);
  await disable.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(totpCode(secret));
  await disable.getByRole("button", { name: "Disable two-factor authentication", exact: true }).click();
  await page.getByRole("heading", { name: "Two-factor authentication is off", exact: true }).waitFor();
  expect((await me(person.token)).body.two_factor_enabled).toBe(false);
  expect((await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password } })).status).toBe(200);
});

test("Appearance: dark, light or the system's theme and compact messages, kept on this device only", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Appearance");
  const root = page.locator("html");
  const themes = page.getByRole("group", { name: "Theme", exact: true });
  const background = () => page.evaluate("getComputedStyle(document.body).backgroundColor");
  // Before any choice the page follows the system (the suite's browsers are set to dark), and changes with it while open.
  expect(await themes.getByRole("radio", { name: "Follow the system", exact: true }).isChecked()).toBe(true);
  expect(await root.getAttribute("data-theme")).toBe("dark");
  await page.emulateMedia({ colorScheme: "light" });
  await eventually(async () => expect(await root.getAttribute("data-theme")).toBe("light"));
  expect(await background()).toBe("rgb(255, 255, 255)");

  // A choice wins over the system: Dark on a light system, then Light on a dark one.
  await themes.getByRole("radio", { name: "Dark", exact: true }).check();
  expect(await root.getAttribute("data-theme")).toBe("dark");
  await page.emulateMedia({ colorScheme: "dark" });
  await themes.getByRole("radio", { name: "Light", exact: true }).check();
  expect(await root.getAttribute("data-theme")).toBe("light");
  expect(await background()).toBe("rgb(255, 255, 255)");
  await suite.shot(page, "user-settings-7-appearance-light");

  // Following the system again: the page changes with it while open.
  await themes.getByRole("radio", { name: "Follow the system", exact: true }).check();
  await eventually(async () => expect(await root.getAttribute("data-theme")).toBe("dark"));
  await page.emulateMedia({ colorScheme: "light" });
  await eventually(async () => expect(await root.getAttribute("data-theme")).toBe("light"));

  await page.getByRole("switch", { name: "Compact message display", exact: true }).check();
  expect(await root.getAttribute("data-compact")).toBe("");
  // Kept in this browser: a reload keeps both.
  await page.reload();
  await heading(page, "Appearance").waitFor();
  expect(await root.getAttribute("data-theme")).toBe("light");
  expect(await page.getByRole("switch", { name: "Compact message display", exact: true }).isChecked()).toBe(true);
  expect(await themes.getByRole("radio", { name: "Follow the system", exact: true }).isChecked()).toBe(true);

  // Compact messages in a channel: smaller avatars.
  const serverId = await createServer(suite.server, person, "Compact place");
  const channels = (await suite.server.api("GET", `/api/v1/channels/${serverId}`, { token: person.token })).body.channels as { id: string; type: string }[];
  const channel = channels.find((c) => c.type === "text")!;
  for (const text of ["first line", "second line", "third line"]) await suite.server.api("POST", `/api/v1/messages/${channel.id}`, { token: person.token, body: { content: text } });
  await page.goto(`/channels/${serverId}/${channel.id}`);
  await page.getByText("third line").waitFor();
  expect(await page.locator(".message-gutter .avatar").first().evaluate((el) => el.getBoundingClientRect().width)).toBe(24);
  await suite.shot(page, "user-settings-8-compact-light");

  // Another device (a new browser) of the same account keeps its own: its system's dark, not compact.
  const other = await suite.person({ user: person });
  await accountPanel(other.page).getByText(person.username).waitFor();
  expect(await other.page.locator("html").getAttribute("data-theme")).toBe("dark");
  expect(await other.page.locator("html").getAttribute("data-compact")).toBeNull();
});

test("Notifications: the account's preferences are saved for every device, and desktop notifications are enabled from here", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Notifications");
  const prefs = async () => (await suite.server.api("GET", "/api/v1/users/me/notifications", { token: person.token })).body;

  const levels = page.getByRole("group", { name: "Server messages that notify you", exact: true });
  await eventually(async () => expect(await levels.getByRole("radio", { name: "All messages", exact: true }).isChecked()).toBe(true));
  await levels.getByRole("radio", { name: "Only mentions", exact: true }).check();
  await eventually(async () => expect((await prefs()).message_notifications).toBe("mentions"));
  await page.getByRole("switch", { name: "Notification sounds", exact: true }).uncheck();
  await page.getByRole("switch", { name: "Direct messages", exact: true }).uncheck();
  await page.getByRole("switch", { name: "Friend requests", exact: true }).uncheck();
  await eventually(async () => expect(await prefs()).toMatchObject({ sounds: false, dm_notifications: false, friend_request_notifications: false, desktop: true }));

  // The browser is asked only by the button (granted here by the test).
  expect(await page.evaluate("Notification.permission")).toBe("default");
  await person.context.grantPermissions(["notifications"]);
  await page.getByRole("button", { name: "Enable desktop notifications", exact: true }).click();
  await page.getByText("Messages that notify you show on your desktop").waitFor();
  expect(await page.getByRole("button", { name: "Enable desktop notifications" }).count()).toBe(0);
  await suite.shot(page, "user-settings-9-notifications");

  // What another device of the account shows.
  const other = await suite.person({ user: person, path: "/settings/notifications" });
  await eventually(async () => expect(await other.page.getByRole("radio", { name: "Only mentions", exact: true }).isChecked()).toBe(true));
  expect(await other.page.getByRole("switch", { name: "Notification sounds", exact: true }).isChecked()).toBe(false);
});

test("Privacy: muted users muted by name and unmuted", async () => {
  const person = await suite.person();
  const bob = await suite.server.register();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Privacy");
  await page.getByText("You have muted nobody.").waitFor();

  const field = page.getByRole("textbox", { name: "Mute someone by username", exact: true });
  await field.fill("nobody_has_this_name");
  await page.getByRole("button", { name: "Mute", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "Nobody is called nobody_has_this_name." }).waitFor();
  await field.fill(bob.username.toUpperCase());
  await page.getByRole("button", { name: "Mute", exact: true }).click();
  const list = page.getByRole("list", { name: "Muted users", exact: true });
  await list.getByText(bob.username).waitFor();
  await page.getByRole("status").filter({ hasText: `${bob.username} is muted.` }).waitFor();
  const muted = await suite.server.api("GET", "/api/v1/users/me/muted-users", { token: person.token });
  expect(muted.body.map((m: { user_id: string }) => m.user_id)).toEqual([bob.user.id]);
  await suite.shot(page, "user-settings-10-privacy", { phone: true });

  await list.getByRole("button", { name: `Unmute ${bob.username}` }).click();
  await page.getByText("You have muted nobody.").waitFor();
  expect((await suite.server.api("GET", "/api/v1/users/me/muted-users", { token: person.token })).body).toEqual([]);
});

test("Set status: the avatar's picker changes the status, and another person sees it", async () => {
  const alice = await suite.person();
  const serverId = await createServer(suite.server, alice, "Status place");
  const bob = await suite.person();
  await addMember(suite.server, serverId, bob);
  await bob.page.goto(`/channels/${serverId}`);
  const members = bob.page.getByRole("navigation", { name: "Members", exact: true });
  const aliceRow = members.getByRole("listitem").filter({ hasText: alice.username });
  await aliceRow.waitFor();
  await accountPanel(alice.page).getByText("Online").waitFor();

  const picker = accountPanel(alice.page).getByRole("button", { name: "Set status", exact: true });
  expect(await picker.getAttribute("aria-description")).toBe("now Online");
  await picker.click();
  const menu = alice.page.getByRole("menu", { name: "Set status", exact: true });
  await menu.waitFor();
  // The chosen one's check mark is aria-checked's, not part of its name.
  expect(await accessibleNames(menu, "menuitemradio")).toEqual(["Online", "Idle", "Do Not Disturb", "Invisible"]);
  expect(await menu.getByRole("menuitemradio", { name: "Online", exact: true }).getAttribute("aria-checked")).toBe("true");
  await suite.shot(alice.page, "user-settings-11-status-picker");
  await menu.getByRole("menuitemradio", { name: "Do Not Disturb", exact: true }).click();
  await accountPanel(alice.page).getByText("Do not disturb").waitFor();
  await eventually(async () => expect(await aliceRow.getByText("Do not disturb").count()).toBe(1));

  // By keyboard: Invisible (the last status, above "Set custom status"), which others see as offline.
  await picker.focus();
  await alice.page.keyboard.press("Enter");
  await menu.waitFor();
  await alice.page.keyboard.press("End");
  await alice.page.keyboard.press("ArrowUp");
  await alice.page.keyboard.press("Enter");
  await accountPanel(alice.page).getByText("Invisible").waitFor();
  expect(await isFocused(picker)).toBe(true);
  await eventually(async () => expect(await aliceRow.getByText("Offline").count()).toBe(1));
  const seen = await suite.server.api("GET", `/api/v1/users/${alice.user.id}`, { token: bob.token });
  expect(seen.body.status).toBe("offline");
});
