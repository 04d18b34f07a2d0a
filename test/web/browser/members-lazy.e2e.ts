/**
 * The member list of a large server is lazy (docs/web.md, "Servers"): a server of 100,000
 * members, built through the store in one multi-row INSERT (test/helpers/seed.ts), opens
 * with well under 1 MB of API answers and renders only the rows in view; a join appears, a role
 * change updates one member and a presence change re-renders one row, none of them asking for a
 * list; "Search members" asks the server's search; scrolling loads the next page; the presence
 * of a member in view stays live through `presence:subscribe`; on a phone the member sheet shows
 * the same lazy list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { createServer } from "../../helpers/community.ts";
import type { TestUser } from "../../helpers/server.ts";
import { addBulkMembers, type BulkMembers } from "../../helpers/seed.ts";
import { accessibleNames, eventually, startWebSuite, type WebSuite } from "./harness.ts";

const MEMBERS = 100_000;

let suite: WebSuite;
let owner: TestUser;
let serverId: string;
let bulk: BulkMembers;
beforeAll(async () => {
  suite = await startWebSuite();
  owner = await suite.server.register("lazy_owner");
  serverId = await createServer(suite.server, owner, "Hundred Thousand");
  const started = performance.now();
  bulk = await addBulkMembers(suite.server.app.store, serverId, MEMBERS, "m");
  console.log(`[members-lazy] ${MEMBERS} members built in ${Math.round(performance.now() - started)} ms`);
}, 120_000);
afterAll(() => suite.stop());

const memberList = (page: Page) => page.getByRole("navigation", { name: "Members", exact: true });
const rowsInDom = (page: Page) => page.locator(".member-row").count();

/** Every request the page sends to the server's member routes, as `path?query` after `/servers/<id>`. */
function recordMemberRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request: Request) => {
    const url = new URL(request.url());
    const prefix = `/api/v1/servers/${serverId}/members`;
    if (url.pathname.startsWith(prefix)) seen.push(`${url.pathname.slice(`/api/v1/servers/${serverId}`.length)}${url.search}`);
  });
  return seen;
}
/** Requests for a list (whole, a page or a search), not for one member. */
const listRequests = (seen: string[]) => seen.filter((r) => r === "/members" || r.startsWith("/members?"));

/**
 * Counts the member rows whose subtree changes from now on (a row re-rendered with new content),
 * in the page (a script: this file is type-checked without the DOM's types).
 */
const WATCH_ROWS = `(() => {
  const changed = new Set();
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      const row = target && target.closest(".member-row");
      if (row) changed.add(row);
    }
  }).observe(document.querySelector("nav[aria-label='Members']"), { subtree: true, childList: true, attributes: true, characterData: true });
  window.rowMutations = () => [...changed].map((row) => row.querySelector("button")?.getAttribute("aria-label") ?? "");
})()`;
const watchRowMutations = (page: Page) => page.evaluate(WATCH_ROWS);
const rowMutations = (page: Page) => page.evaluate("window.rowMutations()") as Promise<string[]>;

test("opening a server of 100,000 members loads well under 1 MB and renders only the rows in view", async () => {
  const { page } = await suite.person({ user: owner, path: "/channels/@me" });
  let apiBytes = 0;
  const answers: { url: string; bytes: number }[] = [];
  page.on("response", async (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith("/api/")) return;
    const bytes = (await response.body().catch(() => Buffer.alloc(0))).length;
    apiBytes += bytes;
    answers.push({ url: `${url.pathname}${url.search}`, bytes });
  });
  const requests = recordMemberRequests(page);
  const started = performance.now();
  await page.goto(`/channels/${serverId}`);
  const list = memberList(page);
  await list.getByRole("heading", { name: `Members — ${(MEMBERS + 1).toLocaleString("en-US")}` }).waitFor();
  await list.getByRole("button", { name: bulk.nameOf(1), exact: true }).waitFor();
  const shownMs = Math.round(performance.now() - started);
  // The reader is known (looked up alone: their id is not in the first page) and online.
  await list.getByRole("button", { name: "lazy_owner", exact: true }).waitFor();
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  await page.waitForLoadState("networkidle");
  const rows = await rowsInDom(page);
  console.log(`[members-lazy] open: ${answers.length} API answers, ${apiBytes} bytes, list shown in ${shownMs} ms, ${rows} member rows in the DOM`);
  expect(apiBytes).toBeLessThan(200_000);
  expect(rows).toBeGreaterThan(5);
  expect(rows).toBeLessThan(100);
  expect(listRequests(requests)).toEqual(["/members?limit=100"]);
  expect(requests).toContain(`/members/${owner.id}`);
  await list.getByText("101 loaded, online first").waitFor();
  await suite.shot(page, "members-lazy-1-open", { phone: true });
});

test("on a phone, the member sheet shows the same lazy list: the first page, only the rows in view", async () => {
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}`, device: "phone" });
  const requests = recordMemberRequests(page);
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  await page.getByRole("button", { name: "Show members" }).tap();
  await page.getByRole("dialog", { name: "Members", exact: true }).waitFor();
  const list = memberList(page);
  await list.getByRole("heading", { name: `Members — ${(MEMBERS + 1).toLocaleString("en-US")}` }).waitFor();
  await list.getByRole("button", { name: bulk.nameOf(1), exact: true }).waitFor();
  await list.getByText("101 loaded, online first").waitFor();
  await page.waitForLoadState("networkidle");
  const rows = await rowsInDom(page);
  expect(rows).toBeGreaterThan(5);
  expect(rows).toBeLessThan(100);
  expect(listRequests(requests)).toEqual(["/members?limit=100"]);
  await suite.shot(page, "members-lazy-1-phone-sheet");
});

test("scrolling loads the next page; search finds a member by prefix with the server's search", async () => {
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const requests = recordMemberRequests(page);
  const list = memberList(page);
  await list.getByRole("button", { name: bulk.nameOf(1), exact: true }).waitFor();
  const scroller = list.getByRole("list", { name: "Loaded members" });
  // Scroll to the end of what is loaded: the next page comes, after the last id of the first.
  await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await eventually(() => expect(listRequests(requests)).toContain(`/members?limit=100&after=${bulk.idOf(100)}`));
  await list.getByText("201 loaded, online first").waitFor();
  // The pages come after what is loaded: the view stays where it was, on the first page's last rows.
  await list.getByRole("button", { name: bulk.nameOf(100), exact: true }).waitFor();
  await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await eventually(() => expect(listRequests(requests)).toContain(`/members?limit=100&after=${bulk.idOf(200)}`));
  await list.getByText("301 loaded, online first").waitFor();
  await list.getByRole("button", { name: bulk.nameOf(200), exact: true }).waitFor();
  expect(await rowsInDom(page)).toBeLessThan(100);
  // By keyboard: the list takes the focus and End goes to its end, which loads the next page.
  await scroller.focus();
  await page.keyboard.press("End");
  await list.getByText("401 loaded, online first").waitFor();
  await suite.shot(page, "members-lazy-2-scrolled");

  const search = list.getByRole("searchbox", { name: "Search members", exact: true });
  await search.fill("m05000");
  const results = list.getByRole("group", { name: /^Results/ });
  await eventually(async () => expect(await results.getByRole("button").count()).toBe(10));
  expect(await results.getByRole("button", { name: bulk.nameOf(50_000), exact: true }).count()).toBe(1);
  expect(listRequests(requests)).toContain("/members?query=m05000&limit=100");
  await suite.shot(page, "members-lazy-3-search", { phone: true });
  // Someone far from the pages loaded, by a longer prefix; Escape clears the search.
  await search.fill("m09999");
  await results.getByRole("button", { name: bulk.nameOf(99_999), exact: true }).waitFor();
  await search.press("Escape");
  expect(await search.inputValue()).toBe("");
  await list.getByRole("list", { name: "Loaded members" }).waitFor();
});

test("a join appears, a role change updates one member and presence stays live, without a list request", async () => {
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const list = memberList(page);
  await list.getByRole("button", { name: bulk.nameOf(1), exact: true }).waitFor();
  await page.waitForLoadState("networkidle");
  const requests = recordMemberRequests(page);

  // Someone joins by invite, connected: they appear online at the top, from the event and one lookup.
  const invite = await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: {} });
  const joiner = await suite.server.register("lazy_joiner");
  const socket = await suite.server.connect(joiner.token);
  expect((await suite.server.api("POST", `/api/v1/servers/join/${invite.body.code}`, { token: joiner.token })).status).toBe(200);
  const row = list.getByRole("button", { name: "lazy_joiner", exact: true });
  await row.waitFor();
  await eventually(async () => expect(await row.getAttribute("class")).not.toContain("offline"));
  await list.getByRole("heading", { name: `Members — ${(MEMBERS + 2).toLocaleString("en-US")}` }).waitFor();
  expect(requests).toEqual([`/members/${joiner.id}`]);

  // A coloured role given to them: that member is asked for, alone, and their name takes the colour.
  const role = await suite.server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "Crew", color: "#E8590C", permissions: 0 } });
  await watchRowMutations(page);
  await suite.server.api("POST", `/api/v1/roles/${serverId}/assign`, { token: owner.token, body: { targetUserId: joiner.id, roleId: role.body.id } });
  const colour = () => row.locator(".member-name").evaluate((el) => (el.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color);
  await eventually(async () => expect(await colour()).toBe("rgb(232, 89, 12)"));
  expect(requests).toEqual([`/members/${joiner.id}`, `/members/${joiner.id}`]);
  expect(await rowMutations(page)).toEqual(["lazy_joiner"]);

  // Presence of a row in view: the list subscribed to it (the server is large), so a change shows;
  // only that row changes, and nothing is asked.
  await page.waitForTimeout(1000);
  await watchRowMutations(page);
  const sent = performance.now();
  await socket.emitWithAck("status:set", { status: "dnd" });
  await eventually(async () => expect(await row.getAttribute("aria-describedby").then((id) => page.locator(`#${id}`).textContent())).toBe("Do not disturb"));
  const presenceMs = Math.round(performance.now() - sent);
  const mutated = await rowMutations(page);
  console.log(`[members-lazy] a presence change shown in ${presenceMs} ms (status:set to the row), rows changed: ${mutated.length}`);
  expect(mutated).toEqual(["lazy_joiner"]);
  expect(presenceMs).toBeLessThan(1000);
  await suite.shot(page, "members-lazy-4-presence");

  // Going offline moves them among the offline members, at the end of those loaded (the order they
  // became known); leaving takes them away.
  socket.close();
  await list.getByRole("heading", { name: "Online — 1" }).waitFor();
  await list.getByRole("list", { name: "Loaded members" }).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await eventually(async () => expect(await row.getAttribute("class")).toContain("offline"));
  await suite.server.api("DELETE", `/api/v1/servers/${serverId}/leave`, { token: joiner.token });
  await eventually(async () => expect(await row.count()).toBe(0));
  await list.getByRole("heading", { name: `Members — ${(MEMBERS + 1).toLocaleString("en-US")}` }).waitFor();
  // The only list requests: the next page, from scrolling to the end above; none for any event.
  for (const request of listRequests(requests)) expect(request).toStartWith("/members?limit=100&after=");
});

test("the main thread stays free when a presence event arrives in the big server", async () => {
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const list = memberList(page);
  await list.getByRole("button", { name: bulk.nameOf(1), exact: true }).waitFor();
  // A member found by search is in view: their presence is followed.
  const friend = await suite.server.register("lazy_friend");
  const invite = await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: {} });
  await suite.server.api("POST", `/api/v1/servers/join/${invite.body.code}`, { token: friend.token });
  await list.getByRole("searchbox", { name: "Search members", exact: true }).fill("lazy_fr");
  const found = list.getByRole("group", { name: /^Results/ }).getByRole("button", { name: "lazy_friend", exact: true });
  await found.waitFor();
  await page.waitForTimeout(1000);
  // Long tasks (over 50 ms of main thread) from now on.
  await page.evaluate(`(() => {
    window.longTasks = [];
    new PerformanceObserver((entries) => {
      for (const entry of entries.getEntries()) window.longTasks.push(entry.duration);
    }).observe({ type: "longtask" });
  })()`);
  const socket = await suite.server.connect(friend.token);
  await eventually(async () => expect(await found.getAttribute("class")).not.toContain("offline"));
  const longTasks = (await page.evaluate("window.longTasks")) as number[];
  console.log(`[members-lazy] long tasks during the presence change: ${JSON.stringify(longTasks)}`);
  expect(longTasks).toEqual([]);
  socket.close();
});

test("the composer asks the server's search for @name, and a mention of a member not loaded is looked up", async () => {
  const channels = await suite.server.api("GET", `/api/v1/channels/${serverId}`, { token: owner.token });
  const general = (channels.body.channels as { id: string; name: string }[]).find((c) => c.name === "general")!;
  // A message that mentions someone far from the first page.
  await suite.server.api("POST", `/api/v1/messages/${general.id}`, { token: owner.token, body: { content: `welcome <@${bulk.idOf(88_888)}>!` } });
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${general.id}` });
  const requests = recordMemberRequests(page);
  const line = page.getByRole("log", { name: "Messages", exact: true }).getByRole("article").filter({ hasText: "welcome" });
  await eventually(async () => expect(await line.locator(".message-text").textContent()).toBe(`welcome @${bulk.nameOf(88_888)}!`));
  expect(requests).toContain(`/members/${bulk.idOf(88_888)}`);

  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.pressSequentially("hi @m07770");
  const suggestions = page.getByRole("listbox", { name: "Members", exact: true });
  await suggestions.getByRole("option", { name: `@${bulk.nameOf(77_700)}` }).waitFor();
  expect(await suggestions.getByRole("option").count()).toBe(8);
  // Asked as typing paused, not once per key.
  expect(listRequests(requests).filter((r) => r.includes("query="))).toEqual(["/members?query=m07770&limit=100"]);
  await suite.shot(page, "members-lazy-5-mention-suggestions");
  await box.press("Enter"); // chooses
  await box.press("Enter"); // sends
  await page.getByRole("log", { name: "Messages", exact: true }).getByRole("article").filter({ hasText: `hi @${bulk.nameOf(77_700)}` }).waitFor();
  const history = await suite.server.api("GET", `/api/v1/messages/${general.id}?limit=1`, { token: owner.token });
  expect(history.body[0].content).toBe(`hi <@${bulk.idOf(77_700)}>`);
});

test("the settings' Members section shows what is loaded, more on request, and finds anyone by name", async () => {
  const { page } = await suite.person({ user: owner, path: `/servers/${serverId}/settings/members` });
  const main = page.getByRole("main");
  const list = main.getByRole("list", { name: "Members" });
  await list.getByRole("listitem", { name: bulk.nameOf(1), exact: true }).waitFor();
  // Everyone who joined in the tests above counts; the first page and the reader are shown.
  await main.getByText(/^101 of 100,00\d members shown$/).waitFor();
  await main.getByRole("button", { name: "Load more members" }).click();
  await main.getByText(/^201 of 100,00\d members shown$/).waitFor();
  await main.getByRole("searchbox", { name: "Search members" }).fill("m09000");
  await list.getByRole("listitem", { name: bulk.nameOf(90_005), exact: true }).waitFor();
  expect(await list.getByRole("listitem", { name: bulk.nameOf(90_005), exact: true }).getByRole("button", { name: `Kick ${bulk.nameOf(90_005)}` }).count()).toBe(1);
  await suite.shot(page, "members-lazy-6-settings");
});

test("a small server keeps its whole list, grouped, and searches it without asking", async () => {
  const small = await suite.server.register("small_owner");
  const smallId = await createServer(suite.server, small, "Small Club");
  for (const name of ["small_amy", "small_bob", "other_cat"]) {
    const user = await suite.server.register(name);
    await suite.server.app.store.members.add(smallId, user.id);
  }
  const { page } = await suite.person({ user: small, path: `/channels/${smallId}` });
  const requests = recordMemberRequests(page);
  const list = memberList(page);
  await list.getByRole("heading", { name: "Members — 4" }).waitFor();
  await list.getByRole("group", { name: "Offline — 3" }).getByRole("button", { name: "other_cat", exact: true }).waitFor();
  expect(await list.getByRole("list", { name: "Loaded members" }).count()).toBe(0);
  await list.getByRole("searchbox", { name: "Search members", exact: true }).fill("SMALL_");
  const results = list.getByRole("group", { name: /^Results/ });
  await eventually(async () => expect(await accessibleNames(results, "button")).toEqual(["small_amy", "small_bob", "small_owner"]));
  await list.getByRole("searchbox", { name: "Search members", exact: true }).fill("nobody");
  await list.getByText("No member's name starts with “nobody”.").waitFor();
  await page.waitForTimeout(400);
  expect(listRequests(requests)).toEqual([]);
});

test("New group finds people of a large server by name, through its search", async () => {
  const { page } = await suite.person({ user: owner, path: "/channels/@me" });
  const requests = recordMemberRequests(page);
  await page.getByRole("button", { name: "New group" }).click();
  const dialog = page.getByRole("dialog", { name: "New group" });
  await dialog.getByRole("searchbox", { name: "Find people" }).fill("m04242");
  await dialog.getByRole("checkbox", { name: bulk.nameOf(42_420), exact: true }).waitFor();
  expect(await dialog.getByRole("checkbox", { name: /^m04242/ }).count()).toBe(10);
  expect(listRequests(requests)).toContain("/members?query=m04242&limit=100");
  expect(listRequests(requests)).not.toContain("/members");
});

test("a role in the big server: its holders are those known, and Find a member gives it to anyone", async () => {
  const role = await suite.server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name: "Readers", color: "#2F9E44", permissions: 0 } });
  const { page } = await suite.person({ user: owner, path: `/servers/${serverId}/settings/roles?role=${role.body.id}` });
  const editor = page.getByRole("main").getByRole("region", { name: /^Edit role/ });
  await editor.getByText("None of the members loaded holds this role.").waitFor();
  await editor.getByRole("searchbox", { name: "Find a member" }).fill("m06060");
  const give = editor.getByRole("combobox", { name: "Give this role to" });
  await eventually(async () => expect(await give.locator("option").count()).toBe(11)); // "Choose a member…" and ten
  await give.selectOption({ label: bulk.nameOf(60_606) });
  await editor.getByRole("button", { name: "Add", exact: true }).click();
  await editor.getByRole("button", { name: `Remove Readers from ${bulk.nameOf(60_606)}` }).waitFor();
  await editor.getByRole("heading", { name: "Members with this role (1+)" }).waitFor();
  const roles = await suite.server.api("GET", `/api/v1/roles/${serverId}/member/${bulk.idOf(60_606)}`, { token: owner.token });
  expect(roles.body.map((r: { id: string }) => r.id)).toEqual([role.body.id]);
  // The role list counts the holders known, as a lower bound.
  await page.getByRole("main").getByRole("list", { name: "Roles, highest first" }).getByText("1+").waitFor();
  await suite.shot(page, "members-lazy-7-role");
});
