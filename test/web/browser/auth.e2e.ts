/** Point 1: register, log in (with the two-factor step), log out, a 401 anywhere, the session across reloads. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "../../helpers/community.ts";
import { totpCode } from "../../helpers/totp.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

test("a visitor registers, stays logged in across a reload, logs out and logs back in", async () => {
  const { page } = await suite.visitor("/");
  await page.waitForURL(/\/login\?next=/);
  await page.getByRole("textbox", { name: "Email or username", exact: true }).waitFor();
  await suite.shot(page, "auth-1-login");
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.waitForURL(/\/register/);

  // The server's refusal is shown as it is.
  const taken = await suite.server.register("taken_name");
  await page.getByRole("textbox", { name: "Username", exact: true }).fill(taken.username);
  await page.getByRole("textbox", { name: "Email", exact: true }).fill("someone@example.test");
  await page.getByRole("textbox", { name: "Password", exact: true }).fill("a long password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("alert").filter({ hasText: "Username is already taken" }).waitFor();
  await suite.shot(page, "auth-2-register-error");

  await page.getByRole("textbox", { name: "Username", exact: true }).fill("new_person");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/channels\/@me$/);
  await page.getByRole("heading", { name: "Welcome to Hearth, new_person!" }).waitFor();
  await page.getByRole("region", { name: "Your account" }).getByText("new_person").waitFor();
  await suite.shot(page, "auth-3-home");

  await page.reload();
  await page.getByRole("region", { name: "Your account" }).getByText("new_person").waitFor();
  expect(page.url()).toEndWith("/channels/@me");

  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
  await page.reload();
  await page.getByRole("button", { name: "Log in" }).waitFor();

  await page.getByRole("textbox", { name: "Email or username", exact: true }).fill("new_person");
  await page.getByRole("textbox", { name: "Password", exact: true }).fill("wrong password");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("alert").filter({ hasText: "Invalid login or password" }).waitFor();
  await page.getByRole("textbox", { name: "Password", exact: true }).fill("a long password");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(/\/channels\/@me$/);
});

test("the login page asks for the two-factor code when the account needs one", async () => {
  const person = await suite.server.register("two_factor");
  const setup = await suite.server.api("POST", "/api/v1/auth/2fa/setup", { token: person.token });
  const secret = setup.body.secret as string;
  expect((await suite.server.api("POST", "/api/v1/auth/2fa/enable", { token: person.token, body: { code: totpCode(secret), password: person.password } })).status).toBe(200);

  const { page } = await suite.visitor("/login");
  await page.getByRole("textbox", { name: "Email or username", exact: true }).fill(person.email);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Log in" }).click();
  const code = page.getByRole("textbox", { name: "Two-factor code", exact: true });
  await code.waitFor();
  await eventually(async () => expect(await code.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true));
  await suite.shot(page, "auth-4-two-factor");
  await code.fill("000000" === totpCode(secret) ? "111111" : "000000");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("alert").filter({ hasText: "Invalid two-factor code" }).waitFor();
  await code.fill(totpCode(secret));
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(/\/channels\/@me$/);
});

test("a page behind the login comes back after logging in", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Back again");
  const { page } = await suite.visitor(`/channels/${serverId}`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByRole("textbox", { name: "Email or username", exact: true }).fill(owner.username);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(owner.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("heading", { name: "Back again" }).waitFor();
  await page.waitForURL(new RegExp(`/channels/${serverId}/[0-9a-f-]{36}$`));
});

test("a 401 anywhere returns to the login page: a revoked token ends the session", async () => {
  const person = await suite.person();
  await person.page.getByRole("heading", { name: /Welcome to Hearth/ }).waitFor();
  // Changing the password elsewhere revokes every older token and drops their sockets.
  const changed = await suite.server.api("PUT", "/api/v1/users/me/password", {
    token: person.token,
    body: { currentPassword: person.password, newPassword: "a brand new password" },
  });
  expect(changed.status).toBe(200);
  await person.page.waitForURL(/\/login/);
  await person.page.getByRole("status").filter({ hasText: "Your session has ended" }).waitFor();
  await suite.shot(person.page, "auth-5-session-ended");
  expect(await person.page.evaluate(() => localStorage.getItem("hearth.session"))).toBeNull();
});

test("a stale stored token is refused on load and leads to the login page", async () => {
  const person = await suite.server.register();
  const { page, context } = await suite.visitor("/login");
  await page.evaluate((user) => localStorage.setItem("hearth.session", JSON.stringify({ token: "not-a-valid-token", user })), person.user);
  await page.goto("/channels/@me");
  await page.waitForURL(/\/login/);
  await context.close();
});
