/**
 * Leaving and deleting a server from the web app (docs/web.md, "Servers"): "Leave server" asks
 * first and takes the member to their next server or home, live for the others; the owner is
 * told they cannot leave; "Delete server" in Server settings > Overview asks for the name and,
 * with two-factor on, the "Two-factor code"; the other members' apps drop it live.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName } from "../../helpers/server.ts";
import { totpCode, wrongCode } from "../../helpers/totp.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

test("a member leaves after confirming and lands on their next server; the owner's list follows; the owner is told to delete instead", async () => {
  const owner = await suite.server.register(uniqueName("owner"));
  const member = await suite.server.register(uniqueName("leaver"));
  const first = await createServer(suite.server, owner, "Left Behind");
  const second = await createServer(suite.server, owner, "Still Here");
  await addMember(suite.server, first, member);
  await addMember(suite.server, second, member);
  const ownerView = await suite.person({ user: owner, path: `/channels/${first}` });
  const ownerMembers = ownerView.page.getByRole("navigation", { name: "Members", exact: true });
  await ownerMembers.getByRole("button", { name: member.username }).waitFor();

  const { page } = await suite.person({ user: member, path: `/channels/${first}` });
  const channels = page.getByRole("navigation", { name: "Channels", exact: true });
  await channels.getByRole("button", { name: "Leave server", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Leave Left Behind", exact: true });
  await dialog.waitFor();
  await suite.shot(page, "server-exit-1-leave");
  await suite.shot(page, "server-exit-1-leave", { phone: true });
  // Cancel keeps everything as it was.
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  expect(await page.getByRole("navigation", { name: "Servers", exact: true }).getByRole("link", { name: /^Left Behind/ }).count()).toBe(1);
  await channels.getByRole("button", { name: "Leave server", exact: true }).click();
  await dialog.getByRole("button", { name: "Leave server", exact: true }).click();
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${second}`));
  await eventually(async () => expect(await page.getByRole("navigation", { name: "Servers" }).getByRole("link", { name: /^Left Behind/ }).count()).toBe(0));
  await eventually(async () => expect(await ownerMembers.getByRole("button", { name: member.username }).count()).toBe(0));
  expect((await suite.server.api("GET", `/api/v1/servers/${first}`, { token: member.token })).status).toBe(403);

  // The owner cannot leave: the dialog says what to do instead.
  await ownerView.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("button", { name: "Leave server", exact: true }).click();
  const told = ownerView.page.getByRole("dialog", { name: "You own Left Behind", exact: true });
  await told.getByText("An owner cannot leave their server").waitFor();
  await suite.shot(ownerView.page, "server-exit-2-owner-cannot-leave");
  await told.getByRole("button", { name: "Close", exact: true }).click();
  expect((await suite.server.api("GET", `/api/v1/servers/${first}`, { token: owner.token })).status).toBe(200);

  // Without two-factor on the account, deleting asks for the name alone.
  await ownerView.page.goto(`/servers/${first}/settings/overview`);
  await ownerView.page.getByRole("button", { name: "Delete server", exact: true }).click();
  const deleting = ownerView.page.getByRole("dialog", { name: "Delete Left Behind", exact: true });
  await deleting.getByRole("textbox", { name: "Server name", exact: true }).waitFor();
  expect(await deleting.getByRole("textbox", { name: "Two-factor code" }).count()).toBe(0);
  await deleting.getByRole("button", { name: "Cancel", exact: true }).click();
  await deleting.waitFor({ state: "detached" });
});

test("the owner deletes a server with two-factor: the name typed out, a wrong code refused, the right one deletes and goes home; a member viewing it sees it go", async () => {
  const owner = await suite.server.register(uniqueName("deleter"));
  const setup = await suite.server.api("POST", "/api/v1/auth/2fa/setup", { token: owner.token });
  const secret = setup.body.secret as string;
  expect((await suite.server.api("POST", "/api/v1/auth/2fa/enable", { token: owner.token, body: { code: totpCode(secret), password: owner.password } })).status).toBe(200);
  const serverId = await createServer(suite.server, owner, "Doomed");
  const member = await suite.server.register(uniqueName("bystander"));
  await addMember(suite.server, serverId, member);
  const memberView = await suite.person({ user: member, path: `/channels/${serverId}` });
  const memberServers = memberView.page.getByRole("navigation", { name: "Servers", exact: true });
  await memberServers.getByRole("link", { name: /^Doomed/ }).waitFor();
  const { page } = await suite.person({ user: owner, path: `/servers/${serverId}/settings/overview` });
  await page.getByRole("button", { name: "Delete server", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Delete Doomed", exact: true });
  const confirm = dialog.getByRole("button", { name: "Delete server", exact: true });
  expect(await confirm.isDisabled()).toBe(true);
  await dialog.getByRole("textbox", { name: "Server name", exact: true }).fill("Doomed");
  await dialog.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(wrongCode(secret));
  await confirm.click();
  await dialog.getByRole("alert").waitFor();
  await suite.shot(page, "server-exit-3-delete-wrong-code");
  await suite.shot(page, "server-exit-3-delete-wrong-code", { phone: true });
  expect((await suite.server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);

  await dialog.getByRole("textbox", { name: "Two-factor code", exact: true }).fill(totpCode(secret, 1));
  await confirm.click();
  await eventually(async () => expect(new URL(page.url()).pathname).toBe("/channels/@me"));
  expect(await page.getByRole("navigation", { name: "Servers" }).getByRole("link", { name: /^Doomed/ }).count()).toBe(0);
  expect((await suite.server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(404);
  // The member's app drops it live (server:deleted) and says so where it was shown.
  await eventually(async () => expect(await memberServers.getByRole("link", { name: /^Doomed/ }).count()).toBe(0));
  await memberView.page.getByRole("heading", { name: "Server not found", exact: true }).waitFor();
});
