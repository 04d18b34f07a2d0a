/** Point 5: direct messages and group DMs: open one from a member, send, the list, live `dm:new`. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName } from "../../helpers/server.ts";
import { eventually, messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

test("open a DM from the member list, send, and the other person gets it live with the DM in their list", async () => {
  const alice = await suite.server.register(uniqueName("alice"));
  const bob = await suite.server.register(uniqueName("bob"));
  const serverId = await createServer(suite.server, alice, "Neighbours");
  await addMember(suite.server, serverId, bob);
  const a = await suite.person({ user: alice, path: `/channels/${serverId}` });
  const b = await suite.person({ user: bob, path: "/channels/@me" });
  await b.page.getByText("No conversations yet").waitFor();

  const members = a.page.getByRole("navigation", { name: "Members", exact: true });
  await members.getByRole("button", { name: bob.username }).click();
  await a.page.getByRole("dialog", { name: bob.username }).getByRole("button", { name: "Message" }).click();
  const box = a.page.getByRole("textbox", { name: `Message @${bob.username}`, exact: true });
  await box.waitFor();
  expect(a.page.url()).toMatch(/\/channels\/@me\/[0-9a-f-]{36}$/);
  await box.fill("Hi Bob, want to play tonight?");
  await box.press("Enter");
  await messageWith(a.page, "want to play tonight?").waitFor();

  // Bob: the conversation appears in the list live, and its message when he opens it.
  const list = b.page.getByRole("navigation", { name: "Channels", exact: true });
  await list.getByRole("link", { name: alice.username }).click();
  await messageWith(b.page, "want to play tonight?").waitFor();
  await b.page.getByRole("textbox", { name: `Message @${alice.username}`, exact: true }).fill("Sure, 8 pm");
  await b.page.keyboard.press("Enter");
  await messageWith(a.page, "Sure, 8 pm").waitFor();
  await suite.shot(a.page, "dms-1-conversation");

  // Typing shows in DMs too.
  await b.page.getByRole("textbox", { name: `Message @${alice.username}`, exact: true }).pressSequentially("one more");
  await a.page.getByText(`${bob.username} is typing…`).waitFor();
});

test("group DMs: created elsewhere they appear live; messages flow both ways; a new group from the dialog", async () => {
  const owner = await suite.server.register(uniqueName("gown"));
  const second = await suite.server.register(uniqueName("gtwo"));
  const third = await suite.server.register(uniqueName("gthree"));
  const serverId = await createServer(suite.server, owner, "Group Home");
  await addMember(suite.server, serverId, second);
  await addMember(suite.server, serverId, third);
  const two = await suite.person({ user: second, path: "/channels/@me" });
  await two.page.getByRole("navigation", { name: "Channels", exact: true }).waitFor();

  const group = await suite.server.api("POST", "/api/v1/dm/groups", { token: owner.token, body: { name: "Weekend plans", member_ids: [second.id, third.id] } });
  expect(group.status).toBe(201);
  const link = two.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: /Weekend plans/ });
  await link.waitFor();
  await link.click();
  await two.page.getByRole("textbox", { name: "Message Weekend plans" }).waitFor();
  await suite.server.api("POST", `/api/v1/dm/groups/${group.body.id}/messages`, { token: owner.token, body: { content: "Hike on Saturday?" } });
  await messageWith(two.page, "Hike on Saturday?").waitFor();
  await two.page.getByRole("textbox", { name: "Message Weekend plans" }).fill("Count me in");
  await two.page.keyboard.press("Enter");
  const history = await suite.server.api("GET", `/api/v1/dm/groups/${group.body.id}/messages`, { token: third.token });
  await eventually(async () => {
    const page = await suite.server.api("GET", `/api/v1/dm/groups/${group.body.id}/messages`, { token: third.token });
    expect(page.body[0].content).toBe("Count me in");
  });
  expect(history.status).toBe(200);
  await suite.shot(two.page, "dms-2-group");

  // A group made in the app, from people one shares a server with.
  const o = await suite.person({ user: owner, path: `/channels/${serverId}` });
  await o.page.getByRole("navigation", { name: "Members", exact: true }).getByRole("button", { name: second.username }).waitFor();
  await o.page.getByRole("link", { name: "Direct messages" }).click();
  await o.page.getByRole("button", { name: "New group" }).click();
  const dialog = o.page.getByRole("dialog", { name: "New group" });
  await dialog.getByRole("textbox", { name: "Group name (optional)" }).fill("Book swap");
  await dialog.getByRole("checkbox", { name: second.username }).check();
  await dialog.getByRole("checkbox", { name: third.username }).check();
  // Only others are offered.
  expect(await dialog.getByRole("checkbox", { name: owner.username }).count()).toBe(0);
  await suite.shot(o.page, "dms-3-new-group");
  await dialog.getByRole("button", { name: "Create group" }).click();
  await o.page.getByRole("textbox", { name: "Message Book swap" }).waitFor();
  await two.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: /Book swap/ }).waitFor();
});
