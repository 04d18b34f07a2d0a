/**
 * User settings (issue 43, point 3): `/settings/<section>` behind "User settings" in the account
 * panel, closed by Escape and "Close"; My account (username, password, log out everywhere),
 * Profile (avatar, banner, bio with its count, the preview card), Two-factor authentication
 * (enabled from the QR code's secret with a code computed here, logged in with it, a recovery
 * code used), Notifications, Privacy, Appearance, and the status picker behind the avatar.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { totpCode } from "../../helpers/totp.ts";
import { accessibleNames, eventually, fitsWidth, isFocused, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const accountPanel = (page: Page) => page.getByRole("region", { name: "Your account" });
const settingsNav = (page: Page) => page.getByRole("navigation", { name: "User settings" });
const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
const me = async (token: string) => suite.server.api("GET", "/api/v1/users/me/info", { token });

async function openSettings(page: Page, section?: string): Promise<void> {
  await accountPanel(page).getByRole("button", { name: "User settings" }).click();
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
  expect(await settingsNav(page).getByRole("link", { name: "My account" }).getAttribute("aria-current")).toBe("page");
  await page.getByText(person.email).first().waitFor();
  await suite.shot(page, "user-settings-1-my-account", { phone: true });

  // A section by keyboard: its heading takes the focus.
  await settingsNav(page).getByRole("link", { name: "Privacy" }).focus();
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
  const username = page.getByRole("textbox", { name: "Username" });
  await username.fill("no spaces allowed");
  await page.getByRole("button", { name: "Save username" }).click();
  await page.getByRole("alert").filter({ hasText: "username:" }).waitFor();
  const renamed = `${person.username}_2`.slice(0, 32);
  await username.fill(renamed);
  await page.getByRole("button", { name: "Save username" }).click();
  await page.getByRole("status").filter({ hasText: "Username changed." }).waitFor();
  await page.getByRole("heading", { level: 2, name: renamed, exact: true }).waitFor();
  expect((await me(person.token)).body.username).toBe(renamed);

  // A wrong current password is refused, and nothing changes.
  await page.getByLabel("Current password").fill("not the password");
  await page.getByLabel("New password").fill("a new password 1");
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByRole("alert").filter({ hasText: "Current password is incorrect" }).waitFor();
  expect((await me(person.token)).status).toBe(200);

  await page.getByLabel("Current password").fill(person.password);
  await page.getByLabel("New password").fill("a new password 1");
  await page.getByRole("button", { name: "Change password" }).click();
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
  await page.getByRole("button", { name: "Log out everywhere" }).click();
  const confirm = page.getByRole("dialog", { name: "Log out everywhere?" });
  await confirm.waitFor();
  expect(await isFocused(confirm.getByRole("button", { name: "Cancel" }))).toBe(true);
  // Escape closes the dialog, not the settings.
  await page.keyboard.press("Escape");
  await confirm.waitFor({ state: "detached" });
  await heading(page, "My account").waitFor();
  expect((await me(person.token)).status).toBe(200);

  await page.getByRole("button", { name: "Log out everywhere" }).click();
  await confirm.getByRole("button", { name: "Log out everywhere" }).click();
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
  await page.getByRole("button", { name: "Upload avatar" }).click();
  await page.getByRole("status").filter({ hasText: "Avatar saved." }).waitFor();
  const avatar = (await me(person.token)).body.avatar as string;
  expect(avatar).toMatch(/^\/uploads\/avatars\//);
  await eventually(async () => expect(await card.locator(".avatar img").getAttribute("src")).toBe(avatar));

  // The banner, with its position.
  await page.getByLabel("Choose a banner").setInputFiles({ name: "banner.png", mimeType: "image/png", buffer: Buffer.from(solidPng(300, 100, [76, 110, 245])) });
  await page.getByRole("img", { name: "Preview of the chosen banner" }).waitFor();
  await page.getByRole("button", { name: "Upload banner" }).click();
  await page.getByRole("status").filter({ hasText: "Banner saved." }).waitFor();
  expect((await me(person.token)).body.banner).toMatch(/^\/uploads\/banners\//);

  // The bio: counted as typed, too long refused before sending, saved when it fits.
  const bio = page.getByRole("textbox", { name: "Bio" });
  await bio.fill("x".repeat(501));
  await page.getByText("501 of 500 characters: 1 too many").waitFor();
  expect(await page.getByRole("button", { name: "Save bio" }).isDisabled()).toBe(true);
  await bio.fill("Hearth person. I like soup.");
  await page.getByText("27 of 500 characters").waitFor();
  await card.getByText("Hearth person. I like soup.").waitFor();
  await page.getByRole("button", { name: "Save bio" }).click();
  await page.getByRole("status").filter({ hasText: "Bio saved." }).waitFor();
  expect((await me(person.token)).body.bio).toBe("Hearth person. I like soup.");
  await suite.shot(page, "user-settings-3-profile", { fullPage: true, phone: true });

  // What another person sees.
  const other = await suite.server.api("GET", `/api/v1/users/${person.user.id}`, { token: (await suite.server.register()).token });
  expect(other.body.avatar).toBe(avatar);
  expect(other.body.bio).toBe("Hearth person. I like soup.");

  await page.getByRole("button", { name: "Remove avatar" }).click();
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
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(code);
  await page.getByRole("button", { name: "Log in" }).click();
  return page;
}

test("Two-factor authentication: enabled from the QR code's secret, then a login with a code and one with a recovery code; regenerated; disabled", async () => {
  const person = await suite.person();
  const { page } = person;
  await person.context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await accountPanel(page).getByText(person.username).waitFor();
  await openSettings(page, "Two-factor authentication");
  await page.getByRole("heading", { name: "Two-factor authentication is off" }).waitFor();
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();

  // The QR code and the same secret as text.
  const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
  await qr.waitFor();
  expect((await qr.locator("path").getAttribute("d"))!.length).toBeGreaterThan(1000);
  const key = page.getByLabel("Setup key");
  const secret = (await key.getAttribute("data-secret"))!;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect((await key.textContent())!.replaceAll(" ", "")).toBe(secret);
  await suite.shot(page, "user-settings-4-two-factor-setup");

  // A wrong code is refused by the server; a code computed from the secret enables it.
  const code = page.getByRole("textbox", { name: "Two-factor code", exact: true });
  await code.fill(totpCode(secret) === "000000" ? "111111" : "000000");
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Enable two-factor authentication" }).click();
  await page.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
  await code.fill(totpCode(secret));
  await page.getByRole("button", { name: "Enable two-factor authentication" }).click();

  // The recovery codes, shown once, copied and downloaded.
  const list = page.getByRole("list", { name: "Recovery codes" });
  await list.waitFor();
  const codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  expect(codes[0]).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
  await page.getByRole("button", { name: "Copy recovery codes" }).click();
  await page.getByRole("status").filter({ hasText: "Copied to the clipboard" }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download recovery codes" }).click()]);
  const file = await Bun.file((await download.path())!).text();
  for (const c of codes) expect(file).toContain(c);
  await suite.shot(page, "user-settings-5-recovery-codes");
  expect((await me(person.token)).body.two_factor_enabled).toBe(true);
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("heading", { name: "Two-factor authentication is on" }).waitFor();
  await suite.shot(page, "user-settings-6-two-factor-on");

  // Logging in needs a code now: one from the app, then a recovery code (which is then used up).
  const withCode = await logInWithCode(person.username, person.password, totpCode(secret));
  await withCode.waitForURL(/\/channels\/@me$/);
  const withRecovery = await logInWithCode(person.email, person.password, codes[0]!);
  await withRecovery.waitForURL(/\/channels\/@me$/);
  const again = await logInWithCode(person.email, person.password, codes[0]!);
  await again.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();

  // New recovery codes: the old ones stop working.
  const regenerate = page.getByRole("form", { name: "Regenerate recovery codes" });
  await regenerate.getByLabel("Password", { exact: true }).fill(person.password);
  await regenerate.getByRole("textbox", { name: "Two-factor code" }).fill(totpCode(secret));
  await regenerate.getByRole("button", { name: "Regenerate recovery codes" }).click();
  const fresh = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
  expect(fresh).toHaveLength(10);
  expect(fresh).not.toContain(codes[1]);
  const old = await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password, code: codes[1] } });
  expect(old.status).toBe(401);
  await page.getByRole("button", { name: "Done" }).click();

  // Disabling: a wrong password is refused (403, not a log out), then it goes off.
  const disable = page.getByRole("form", { name: "Disable two-factor authentication" });
  await disable.getByLabel("Password", { exact: true }).fill("not the password");
  await disable.getByRole("textbox", { name: "Two-factor code" }).fill(fresh[0]!);
  await disable.getByRole("button", { name: "Disable two-factor authentication" }).click();
  await disable.getByRole("alert").filter({ hasText: "Invalid password" }).waitFor();
  await disable.getByLabel("Password", { exact: true }).fill(person.password);
  await disable.getByRole("textbox", { name: "Two-factor code" }).fill(totpCode(secret));
  await disable.getByRole("button", { name: "Disable two-factor authentication" }).click();
  await page.getByRole("heading", { name: "Two-factor authentication is off" }).waitFor();
  expect((await me(person.token)).body.two_factor_enabled).toBe(false);
  expect((await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password } })).status).toBe(200);
});
