/**
 * Custom status in the web app (docs/web.md, "Custom status"): "Set status" → "Set custom status"
 * opens a dialog (text counted to 128, an emoji, "Clear after"); the reader's panel shows it under
 * their name; another member of the server sees it in the member list and its card live, and
 * "Clear status" takes it away live; the Profile settings show it with "Edit"; a status that
 * expires disappears without a reload.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { eventually, fitsWidth, startWebSuite, type Person, type WebSuite } from "./harness.ts";

let suite: WebSuite;
let alice: Person;
let bob: Person;
let serverId: string;
beforeAll(async () => {
  suite = await startWebSuite();
  alice = await suite.person({ name: `cs_alice_${process.pid.toString(36)}` });
  serverId = await createServer(suite.server, alice, "Status place");
  bob = await suite.person({ name: `cs_bob_${process.pid.toString(36)}` });
  await addMember(suite.server, serverId, bob);
  await alice.page.goto(`/channels/${serverId}`);
  await bob.page.goto(`/channels/${serverId}`);
}, 60_000);
afterAll(() => suite.stop());

const accountPanel = (page: Page) => page.getByRole("region", { name: "Your account", exact: true });
const memberRow = (page: Page, username: string) =>
  page.getByRole("navigation", { name: "Members", exact: true }).getByRole("listitem").filter({ hasText: username });

async function openDialog(page: Page) {
  await accountPanel(page).getByRole("button", { name: "Set status", exact: true }).click();
  await page.getByRole("menu", { name: "Set status", exact: true }).getByRole("menuitem", { name: "Set custom status", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Set custom status", exact: true });
  await dialog.waitFor();
  return dialog;
}

test("setting a custom status with Clear after: the panel, another member's list and card show it live; Clear status removes it live", async () => {
  const row = memberRow(bob.page, alice.username);
  await row.waitFor();
  await accountPanel(alice.page).getByText("Online").waitFor();

  const dialog = await openDialog(alice.page);
  await dialog.getByLabel("Emoji").fill("🍕");
  const text = dialog.getByLabel("Custom status");
  await text.fill("x".repeat(129));
  await dialog.getByText("129 of 128 characters: 1 too many").waitFor();
  expect(await dialog.getByRole("button", { name: "Save", exact: true }).isDisabled()).toBe(true);
  await text.fill("Out for lunch");
  await dialog.getByText("13 of 128 characters").waitFor();
  const clearAfter = dialog.getByLabel("Clear after");
  expect(await clearAfter.locator("option").allTextContents()).toEqual(["Don't clear", "30 minutes", "1 hour", "4 hours", "Today"]);
  await clearAfter.selectOption({ label: "1 hour" });
  await suite.shot(alice.page, "custom-status-1-dialog", { phone: true });
  expect(await fitsWidth(alice.page)).toBe(true);
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await dialog.waitFor({ state: "detached" });

  await accountPanel(alice.page).getByText("Out for lunch").waitFor();
  await suite.shot(alice.page, "custom-status-2-panel", { phone: true, drawer: true });
  const saved = await suite.server.api("GET", "/api/v1/users/me/info", { token: alice.token });
  expect(saved.body.custom_status).toMatchObject({ text: "Out for lunch", emoji: "🍕" });
  const left = Date.parse(saved.body.custom_status.expires_at) - Date.now();
  expect(left).toBeGreaterThan(3500_000);
  expect(left).toBeLessThanOrEqual(3600_000);

  // Bob's member list, with no reload.
  await row.getByText("Out for lunch").waitFor();
  expect(await row.getByText("🍕").count()).toBe(1);
  await row.getByRole("button", { name: alice.username }).click();
  await bob.page.getByRole("dialog", { name: alice.username }).getByText("Out for lunch").waitFor();
  // Desktop only: at a phone's size the member list is a sheet, closed, and the card with it.
  await suite.shot(bob.page, "custom-status-3-member-list");
  await bob.page.getByRole("dialog", { name: alice.username }).getByRole("button", { name: "Close", exact: true }).click();

  // Clear status: gone from both, live.
  const again = await openDialog(alice.page);
  expect(await again.getByLabel("Custom status").inputValue()).toBe("Out for lunch");
  await again.getByRole("button", { name: "Clear status", exact: true }).click();
  await again.waitFor({ state: "detached" });
  await accountPanel(alice.page).getByText("Online").waitFor();
  await eventually(async () => expect(await row.getByText("Out for lunch").count()).toBe(0));
  expect((await suite.server.api("GET", "/api/v1/users/me/info", { token: alice.token })).body.custom_status).toBeNull();
});

test("the Profile settings show it with Edit, which opens the same dialog", async () => {
  await suite.server.api("PUT", "/api/v1/users/me/custom-status", { token: alice.token, body: { text: "Reading", emoji: "📚" } });
  await alice.page.goto("/settings/profile");
  const card = alice.page.getByRole("region", { name: "Custom status", exact: true });
  await card.getByText("Reading").waitFor();
  await card.getByRole("button", { name: "Edit", exact: true }).click();
  const dialog = alice.page.getByRole("dialog", { name: "Set custom status", exact: true });
  await dialog.waitFor();
  expect(await dialog.getByLabel("Custom status").inputValue()).toBe("Reading");
  await dialog.getByLabel("Custom status").fill("Reading a book");
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await card.getByText("Reading a book").waitFor();
  await suite.shot(alice.page, "custom-status-4-profile", { phone: true });
  await alice.page.goto(`/channels/${serverId}`);
});

test("a status that expires disappears from another member's list without a reload", async () => {
  const row = memberRow(bob.page, alice.username);
  await row.getByText("Reading a book").waitFor();
  // Its time is made to be up now, and the sweep (the node's timer) runs: no request is made by anyone.
  const now = Math.floor(Date.now() / 1000);
  await suite.server.app.store.users.setCustomStatus(alice.id, { text: "Reading a book", emoji: "📚", expiresAt: now + 1 });
  suite.server.app.domain.customStatuses.watch(now + 1);
  await eventually(async () => expect(await row.getByText("Reading a book").count()).toBe(0), 8000);
  await accountPanel(alice.page).getByText("Online").waitFor();
});
