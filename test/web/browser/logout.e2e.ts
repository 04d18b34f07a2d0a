/**
 * Logging out (issue 39, point 11): "Log out" revokes the page's token on the server before the
 * app forgets it, and forgets it even when the server cannot be reached; "Log out everywhere", in
 * the user settings' My account (behind "User settings" in the account panel), asks first and then
 * ends every session.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { TestUser } from "../../helpers/server.ts";
import { eventually, fitsWidth, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const meStatus = async (token: string) => (await suite.server.api("GET", "/api/v1/users/me/info", { token })).status;

/** A second session of the same account, as another device would hold. */
async function otherDevice(person: TestUser): Promise<string> {
  const login = await suite.server.api("POST", "/api/v1/auth/login", { body: { login: person.username, password: person.password } });
  expect(login.status).toBe(200);
  return login.body.token as string;
}

const storedSession = (page: Page) => page.evaluate(() => localStorage.getItem("hearth.session"));
const accountPanel = (page: Page) => page.getByRole("region", { name: "Your account" });

test("Log out revokes this page's token on the server, and only that one", async () => {
  const person = await suite.person();
  const { page } = person;
  const elsewhere = await otherDevice(person);
  await accountPanel(page).getByText(person.username).waitFor();
  expect(await meStatus(person.token)).toBe(200);

  await accountPanel(page).getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
  await page.getByRole("button", { name: "Log in" }).waitFor();
  await suite.shot(page, "logout-1-logged-out");
  expect(await storedSession(page)).toBeNull();
  // Logging out on purpose is no "session has ended".
  expect(await page.getByText("Your session has ended").count()).toBe(0);
  expect(await meStatus(person.token)).toBe(401);
  expect(await meStatus(elsewhere)).toBe(200);
});

test("Log out forgets the token here even when the server cannot be reached", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await page.route("**/api/v1/auth/logout", (route) => route.abort("internetdisconnected"));

  await accountPanel(page).getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
  expect(await storedSession(page)).toBeNull();
  // The request never arrived, so the token itself still works: only this device forgot it.
  expect(await meStatus(person.token)).toBe(200);
});

test("Log out answered 401 (a token already refused) still logs out here, as a plain log out", async () => {
  const person = await suite.person();
  const { page } = person;
  await accountPanel(page).getByText(person.username).waitFor();
  await page.route("**/api/v1/auth/logout", (route) => route.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ error: "Unauthorized" }) }));

  await accountPanel(page).getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
  await page.getByRole("button", { name: "Log in" }).waitFor();
  expect(await storedSession(page)).toBeNull();
  expect(await page.getByText("Your session has ended").count()).toBe(0);
});

test("Log out everywhere, from the user settings, asks first and then ends every session", async () => {
  const person = await suite.person();
  const { page } = person;
  const elsewhere = await otherDevice(person);
  await accountPanel(page).getByText(person.username).waitFor();

  // By keyboard: "User settings" opens My account.
  await accountPanel(page).getByRole("button", { name: "User settings" }).focus();
  await page.keyboard.press("Enter");
  const settings = page.getByRole("main");
  await settings.getByRole("heading", { name: "My account" }).waitFor();
  await settings.getByText(person.email).first().waitFor();
  await suite.shot(page, "logout-2-account-settings");

  // Cancel keeps everyone logged in.
  await settings.getByRole("button", { name: "Log out everywhere" }).click();
  const confirm = page.getByRole("dialog", { name: "Log out everywhere?" });
  await confirm.waitFor();
  expect(await isFocused(confirm.getByRole("button", { name: "Cancel" }))).toBe(true);
  await suite.shot(page, "logout-3-confirm");
  await page.keyboard.press("Enter");
  await confirm.waitFor({ state: "detached" });
  // The dialog gives the focus back as it goes, which may land a moment after it left the page.
  await eventually(async () => expect(await isFocused(settings.getByRole("button", { name: "Log out everywhere" }))).toBe(true));
  expect(await meStatus(person.token)).toBe(200);

  // A failure is shown, and nobody is logged out: the other sessions would still be open.
  await page.route("**/api/v1/auth/logout/all", (route) => route.abort("internetdisconnected"), { times: 1 });
  await settings.getByRole("button", { name: "Log out everywhere" }).click();
  await confirm.getByRole("button", { name: "Log out everywhere" }).click();
  await confirm.getByRole("alert").filter({ hasText: "Cannot reach the server" }).waitFor();
  expect(await storedSession(page)).not.toBeNull();
  expect(await meStatus(elsewhere)).toBe(200);

  await confirm.getByRole("button", { name: "Log out everywhere" }).click();
  await page.waitForURL(/\/login/);
  expect(await storedSession(page)).toBeNull();
  expect(await meStatus(person.token)).toBe(401);
  expect(await meStatus(elsewhere)).toBe(401);
});

test("the user settings' My account on a phone-sized window", async () => {
  const person = await suite.person();
  const { page } = person;
  await page.setViewportSize({ width: 390, height: 844 });
  // At a phone's size the account panel is in the navigation drawer.
  await page.getByRole("button", { name: "Open navigation" }).click();
  await accountPanel(page).getByText(person.username).waitFor();
  await suite.shot(page, "logout-4-phone-panel");
  await accountPanel(page).getByRole("button", { name: "User settings" }).click();
  await page.getByRole("heading", { name: "My account" }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "logout-5-phone-account-settings");
  await page.getByRole("main").getByRole("button", { name: "Log out everywhere" }).click();
  await page.getByRole("dialog", { name: "Log out everywhere?" }).waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await suite.shot(page, "logout-6-phone-confirm");
});
