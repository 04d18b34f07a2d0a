/**
 * Issue 17, points 6 and 7, for people: invites, members (kick, ban with a reason, timeout with
 * a duration picker, built-in role), bans and unban, the audit log with its filters and paging;
 * a moderator is offered only what their bits and rank allow.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { community } from "../../helpers/community.ts";
import { accessibleNames, eventually, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const as = (token: string) => (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });
const settingsNav = (page: Page) => page.getByRole("navigation", { name: "Server settings", exact: true });
const main = (page: Page) => page.getByRole("main");

test("invites: create with max uses and expiry, copy the link, uses counted, delete, regenerate the primary", async () => {
  const c = await community(suite.server, { name: "Open Doors" });
  const api = as(c.owner.token);
  const { page, context } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/invites` });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const table = main(page).getByRole("table");
  await table.getByText("PRIMARY", { exact: true }).waitFor();
  await main(page).getByRole("combobox", { name: "Expire after" }).selectOption({ label: "1 day" });
  await main(page).getByRole("combobox", { name: "Max number of uses" }).selectOption({ label: "5 uses" });
  const before = Math.floor(Date.now() / 1000);
  await main(page).getByRole("button", { name: "Create invite" }).click();
  const link = await main(page).getByRole("textbox", { name: "New invite link" }).inputValue();
  const code = link.split("/invite/")[1]!;
  expect(link).toBe(`${suite.server.url}/invite/${code}`);
  const created = (await api("GET", `/servers/${c.serverId}/invites`)).body.find((i: { code: string }) => i.code === code);
  expect(created.max_uses).toBe(5);
  expect(created.expires_at - before).toBeGreaterThanOrEqual(86400 - 5);
  expect(created.expires_at - before).toBeLessThanOrEqual(86400 + 60);
  const row = table.getByRole("row").filter({ hasText: code });
  await row.getByRole("cell", { name: "0 of 5" }).waitFor();
  await row.getByRole("button", { name: `Copy link of invite ${code}` }).click();
  await row.getByRole("button", { name: `Copy link of invite ${code}` }).filter({ hasText: "Copied" }).waitFor();
  expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(link);

  // Someone joins with it; the list counts the use when it is asked again.
  const joiner = await suite.server.register();
  expect((await suite.server.api("POST", `/api/v1/servers/join/${code}`, { token: joiner.token })).status).toBe(200);
  await page.reload();
  await table.getByRole("row").filter({ hasText: code }).getByRole("cell", { name: "1 of 5" }).waitFor();
  await suite.shot(page, "settings-10-invites");

  await table.getByRole("button", { name: `Delete invite ${code}` }).click();
  await page.getByRole("dialog", { name: `Delete invite ${code}?` }).getByRole("button", { name: "Delete invite" }).click();
  await eventually(async () => expect(await table.getByRole("row").filter({ hasText: code }).count()).toBe(0));
  expect((await suite.server.api("POST", `/api/v1/servers/join/${code}`, { token: (await suite.server.register()).token })).status).toBe(404);

  const primary = (await api("GET", `/servers/${c.serverId}/invites`)).body[0].code;
  await main(page).getByRole("button", { name: "Regenerate the primary invite" }).click();
  await page.getByRole("dialog", { name: "Regenerate the primary invite?" }).getByRole("button", { name: "Regenerate" }).click();
  const fresh = await eventually(async () => {
    const now = (await api("GET", `/servers/${c.serverId}/invites`)).body[0].code;
    expect(now).not.toBe(primary);
    return now;
  });
  await table.getByText(fresh).waitFor();
  expect(await table.getByText(primary).count()).toBe(0);
});

test("a moderator: kick, ban with a reason, time out with a duration picker, only below their rank; the owner sets built-in roles", async () => {
  const c = await community(suite.server, { moderator: true, admin: true, extraMembers: 2, name: "Keepers" });
  const api = as(c.owner.token);
  const [, kicked, banned] = c.members;
  const { page } = await suite.person({ user: c.moderator, path: `/channels/${c.serverId}` });
  await page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Server settings" }).click();
  await page.waitForURL(/\/settings\/members$/);
  expect(await accessibleNames(settingsNav(page), "link")).toEqual(["← Back to the server", "Members", "Bans", "Bots"]);
  const list = main(page).getByRole("list", { name: "Members" });
  const rowOf = (name: string) => list.getByRole("listitem", { name, exact: true });
  await rowOf(c.member.username).waitFor();
  // Nothing on the owner, the admin or themselves; no built-in role picker (owner and admins only).
  for (const user of [c.owner, c.admin, c.moderator]) expect(await rowOf(user.username).getByRole("button").count()).toBe(0);
  expect(await list.getByRole("combobox").count()).toBe(0);
  expect(await accessibleNames(rowOf(c.member.username), "button")).toEqual([`Time out ${c.member.username}`, `Kick ${c.member.username}`, `Ban ${c.member.username}`]);
  await suite.shot(page, "settings-11-members-moderator");

  // Time out for one hour, with a reason; the dialog keeps the keyboard inside it.
  await rowOf(c.member.username).getByRole("button", { name: `Time out ${c.member.username}` }).click();
  const timeout = page.getByRole("dialog", { name: `Time out ${c.member.username}` });
  await timeout.getByRole("radio", { name: "1 hour" }).check();
  await timeout.getByRole("textbox", { name: "Reason (optional)" }).fill("cooling off");
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press("Tab");
    expect(await page.evaluate<boolean>("Boolean(document.activeElement?.closest('dialog'))")).toBe(true);
  }
  await suite.shot(page, "settings-12-timeout-dialog");
  const start = Math.floor(Date.now() / 1000);
  await timeout.getByRole("button", { name: "Time out" }).click();
  await rowOf(c.member.username).getByText(/^Timed out until/).waitFor();
  const target = (await api("GET", `/servers/${c.serverId}/members`)).body.find((m: { user_id: string }) => m.user_id === c.member.id);
  expect(target.timeout_until - start).toBeGreaterThanOrEqual(3600 - 5);
  expect(target.timeout_until - start).toBeLessThanOrEqual(3600 + 60);
  const entry = (await api("GET", `/servers/${c.serverId}/audit-log?action=MEMBER_TIMEOUT`)).body.entries[0];
  expect(entry.changes).toMatchObject({ duration: 3600, reason: "cooling off", userId: c.member.id });
  await rowOf(c.member.username).getByRole("button", { name: `Remove timeout of ${c.member.username}` }).click();
  await rowOf(c.member.username).getByRole("button", { name: `Time out ${c.member.username}` }).waitFor();
  // Live: the owner times someone out elsewhere; the row says so.
  await api("POST", `/servers/${c.serverId}/timeouts`, { targetUserId: kicked!.id, duration: 600 });
  await rowOf(kicked!.username).getByText(/^Timed out until/).waitFor();

  // Kick after a confirmation.
  await rowOf(kicked!.username).getByRole("button", { name: `Kick ${kicked!.username}` }).click();
  await page.getByRole("dialog", { name: `Kick ${kicked!.username}?` }).getByRole("button", { name: "Kick" }).click();
  await eventually(async () => expect(await rowOf(kicked!.username).count()).toBe(0));
  expect((await api("GET", `/servers/${c.serverId}/members`)).body.some((m: { user_id: string }) => m.user_id === kicked!.id)).toBe(false);

  // Ban with a reason and their messages of the last 24 hours deleted, then find them in Bans and unban.
  const spam = await suite.server.api("POST", `/api/v1/messages/${c.channelId}`, { token: banned!.token, body: { content: "buy now" } });
  expect(spam.status).toBe(201);
  await rowOf(banned!.username).getByRole("button", { name: `Ban ${banned!.username}` }).click();
  const ban = page.getByRole("dialog", { name: `Ban ${banned!.username}?` });
  expect(await isFocused(ban.getByRole("textbox", { name: "Reason (optional)" }))).toBe(true);
  await ban.getByRole("textbox", { name: "Reason (optional)" }).fill("spam links");
  await ban.getByRole("radio", { name: "Previous 24 hours" }).check();
  await ban.getByRole("button", { name: "Ban" }).click();
  await eventually(async () => expect(await rowOf(banned!.username).count()).toBe(0));
  await eventually(async () => expect((await api("GET", `/messages/id/${spam.body.id}`)).status).toBe(404));
  expect((await api("GET", `/servers/${c.serverId}/audit-log?action=MEMBER_BAN`)).body.entries[0].changes).toMatchObject({ reason: "spam links", delete_message_seconds: 86400 });
  await settingsNav(page).getByRole("link", { name: "Bans" }).click();
  const bans = main(page).getByRole("list", { name: "Banned users" });
  const bannedRow = bans.getByRole("listitem", { name: banned!.username });
  await bannedRow.getByText(/Reason: spam links/).waitFor();
  await bannedRow.getByText(new RegExp(`by ${c.moderator.username}`)).waitFor();
  // Live: the owner bans someone else; the list grows.
  await api("POST", `/servers/${c.serverId}/bans`, { targetUserId: c.outsider.id, reason: "by id" });
  await bans.getByRole("listitem", { name: c.outsider.username }).waitFor();
  await suite.shot(page, "settings-13-bans");
  await bannedRow.getByRole("button", { name: `Unban ${banned!.username}` }).click();
  await eventually(async () => expect(await bans.getByRole("listitem", { name: banned!.username }).count()).toBe(0));
  expect((await api("GET", `/servers/${c.serverId}/bans`)).body.map((b: { user_id: string }) => b.user_id)).toEqual([c.outsider.id]);

  // The owner changes a built-in role with the picker; the moderator's page follows live.
  const owner = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/members` });
  const ownerList = main(owner.page).getByRole("list", { name: "Members" });
  await ownerList.getByRole("combobox", { name: `Built-in role of ${c.member.username}` }).selectOption({ label: "Moderator" });
  await eventually(async () =>
    expect((await api("GET", `/servers/${c.serverId}/members`)).body.find((m: { user_id: string }) => m.user_id === c.member.id).role).toBe("moderator"),
  );
  await suite.shot(owner.page, "settings-14-members-owner");
  await settingsNav(page).getByRole("link", { name: "Members" }).click();
  // Now equal in rank: the moderator is offered nothing on them.
  await eventually(async () => expect(await rowOf(c.member.username).getByRole("button").count()).toBe(0));
});

test("the server's refusal is shown when the rank changed after the dialog opened", async () => {
  const c = await community(suite.server, { moderator: true, name: "Races" });
  const { page } = await suite.person({ user: c.moderator, path: `/servers/${c.serverId}/settings/members` });
  const row = main(page).getByRole("list", { name: "Members" }).getByRole("listitem", { name: c.member.username, exact: true });
  await row.getByRole("button", { name: `Ban ${c.member.username}` }).click();
  const dialog = page.getByRole("dialog", { name: `Ban ${c.member.username}?` });
  await dialog.getByRole("textbox", { name: "Reason (optional)" }).waitFor();
  await as(c.owner.token)("PUT", `/servers/${c.serverId}/members/${c.member.id}/role`, { role: "admin" });
  await dialog.getByRole("button", { name: "Ban" }).click();
  await dialog.getByRole("alert").filter({ hasText: "You cannot act on a member ranked at or above you" }).waitFor();
  await suite.shot(page, "settings-15-refusal-in-dialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect(await page.getByRole("dialog").count()).toBe(0);
});

test("audit log: newest first, filters by action and by actor, older pages without gaps", async () => {
  const c = await community(suite.server, { admin: true, name: "Records" });
  const owner = as(c.owner.token);
  const admin = as(c.admin.token);
  for (let i = 0; i < 20; i++) await owner("POST", `/servers/${c.serverId}/invites`, {});
  for (let i = 0; i < 12; i++) await admin("POST", `/servers/${c.serverId}/timeouts`, { targetUserId: c.member.id, duration: 60 + i });
  const all = (await owner("GET", `/servers/${c.serverId}/audit-log?limit=100`)).body.entries;
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/audit-log` });
  const log = main(page).getByRole("list", { name: "Audit log entries, newest first" });
  const entries = log.locator(":scope > li");
  await eventually(async () => expect(await entries.count()).toBe(25));
  expect(await entries.first().textContent()).toContain("Member timed out");
  await suite.shot(page, "settings-16-audit-log");
  await main(page).getByRole("button", { name: "Load older entries" }).click();
  await eventually(async () => expect(await entries.count()).toBe(all.length));
  expect(await main(page).getByRole("button", { name: "Load older entries" }).count()).toBe(0);
  // Every entry once, in the server's order: the second page starts right after the first.
  expect(await entries.evaluateAll((items) => items.map((li) => li.getAttribute("data-entry-id")))).toEqual(all.map((e: { id: string }) => e.id));

  await main(page).getByRole("combobox", { name: "Action" }).selectOption({ label: "Member timed out" });
  await eventually(async () => expect(await entries.count()).toBe(12));
  expect(await log.getByText("Member timed out").count()).toBe(12);
  await main(page).getByRole("combobox", { name: "Done by" }).selectOption({ label: c.owner.username });
  await main(page).getByText("No entries match these filters.").waitFor();
  await main(page).getByRole("combobox", { name: "Action" }).selectOption({ label: "All actions" });
  // The owner's: 20 invites and the server's creation and the joins they caused, not the admin's timeouts.
  await eventually(async () => expect(await entries.count()).toBe(all.filter((e: { actor_id: string }) => e.actor_id === c.owner.id).length));
  expect(await log.getByText("Member timed out").count()).toBe(0);
  // Details open to show the changes.
  await main(page).getByRole("combobox", { name: "Action" }).selectOption({ label: "Server created" });
  await eventually(async () => expect(await entries.count()).toBe(1));
  await log.getByText("Details").click();
  await log.getByText("name: Records").waitFor();
  await suite.shot(page, "settings-17-audit-log-filtered");
});
