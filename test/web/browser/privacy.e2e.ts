/**
 * Privacy settings (docs/web.md, "Privacy"): a person picks "Friends only" for direct messages and
 * "Nobody" for friend requests, each saved as soon as it is picked; someone sharing a server then
 * tries to message them from the member list and to add them as a friend, another in the
 * conversation they already had, and each sees the server's refusal in its words.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName } from "../../helpers/server.ts";
import { eventually, messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const accountPanel = (page: Page) => page.getByRole("region", { name: "Your account", exact: true });
const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
const group = (page: Page, name: string) => page.getByRole("group", { name, exact: true });

test("Friends only and Nobody are saved at once, and a server mate's message and friend request are refused in the server's words", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const serverId = await createServer(suite.server, bob, "Neighbours");
  await addMember(suite.server, serverId, alice);
  const a = await suite.person({ user: alice });
  const b = await suite.person({ user: bob, path: `/channels/${serverId}` });
  // Carol, in the server too, wrote to Alice once already: the choice applies to that conversation too.
  const carol = await suite.server.register(uniqueName("carol"));
  await addMember(suite.server, serverId, carol);
  expect((await suite.server.api("POST", `/api/v1/dm/${alice.id}/messages`, { token: carol.token, body: { content: "hello before" } })).status).toBe(201);
  const settings = async () => (await suite.server.api("GET", "/api/v1/users/me/privacy", { token: alice.token })).body;

  // Alice's Privacy section: the two groups with today's rules checked.
  await accountPanel(a.page).getByRole("button", { name: "User settings", exact: true }).click();
  await heading(a.page, "My account").waitFor();
  await a.page.getByRole("navigation", { name: "User settings", exact: true }).getByRole("link", { name: "Privacy", exact: true }).click();
  await heading(a.page, "Privacy").waitFor();
  const dms = group(a.page, "Direct messages");
  const requests = group(a.page, "Friend requests");
  await eventually(async () => expect(await dms.getByRole("radio", { name: "Friends and server members", exact: true }).isChecked()).toBe(true));
  expect(await requests.getByRole("radio", { name: "Everyone", exact: true }).isChecked()).toBe(true);
  expect(await requests.getByRole("radio").count()).toBe(3);
  await a.page.getByRole("heading", { name: "Your status", exact: true }).waitFor();

  await dms.getByRole("radio", { name: "Friends only", exact: true }).check();
  await a.page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  expect(await settings()).toEqual({ dms_from: "friends", friend_requests_from: "everyone" });
  await suite.shot(a.page, "privacy-1-friends-only", { phone: true });

  // Bob shares the server: "Message" on Alice's member card shows the refusal.
  const members = b.page.getByRole("navigation", { name: "Members", exact: true });
  await members.getByRole("button", { name: alice.username }).click();
  const card = b.page.getByRole("dialog", { name: alice.username });
  await card.getByRole("button", { name: "Message", exact: true }).click();
  await card.getByRole("alert").filter({ hasText: "This user only accepts direct messages from friends" }).waitFor();
  expect(b.page.url()).toMatch(new RegExp(`/channels/${serverId}`));
  await suite.shot(b.page, "privacy-2-dm-refused", { phone: true });
  // In the conversation Carol already had, her message is refused with the same words, and kept in the box.
  const c = await suite.person({ user: carol });
  await c.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: alice.username }).click();
  await messageWith(c.page, "hello before").waitFor();
  const box = c.page.getByRole("textbox", { name: `Message @${alice.username}`, exact: true });
  await box.fill("are you there?");
  await box.press("Enter");
  await c.page.getByRole("alert").filter({ hasText: "This user only accepts direct messages from friends" }).waitFor();
  expect(await box.inputValue()).toBe("are you there?");
  await suite.shot(c.page, "privacy-2b-dm-send-refused");

  // Alice: nobody may send her friend requests; Bob's "Add friend" shows the refusal.
  await requests.getByRole("radio", { name: "Nobody", exact: true }).check();
  await eventually(async () => expect(await settings()).toEqual({ dms_from: "friends", friend_requests_from: "nobody" }));
  await a.page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  await a.page.reload();
  await eventually(async () => expect(await group(a.page, "Friend requests").getByRole("radio", { name: "Nobody", exact: true }).isChecked()).toBe(true));
  expect(await group(a.page, "Direct messages").getByRole("radio", { name: "Friends only", exact: true }).isChecked()).toBe(true);
  await suite.shot(a.page, "privacy-3-nobody", { phone: true });

  await b.page.keyboard.press("Escape");
  await b.page.goto("/channels/@me");
  await b.page.getByRole("tablist", { name: "Friends", exact: true }).getByRole("tab", { name: "Add friend", exact: true }).click();
  const panel = b.page.getByRole("tabpanel");
  await panel.getByRole("textbox", { name: "Username", exact: true }).fill(alice.username);
  await panel.getByRole("button", { name: "Send friend request", exact: true }).click();
  await panel.getByRole("alert").filter({ hasText: "This user is not accepting friend requests" }).waitFor();
  await suite.shot(b.page, "privacy-4-request-refused", { phone: true });
  const pending = await suite.server.api("GET", "/api/v1/friends/requests", { token: alice.token });
  expect(pending.body).toEqual({ incoming: [], outgoing: [] });
});
