/**
 * Invites in the web app (docs/web.md, "Servers"): "Invite people" shows the reader's own
 * link again while it admits people, else makes one that expires in 7 days; "Edit invite link"
 * makes one with another expiry and use limit; the invite page shows the server before joining,
 * and a used-up or unknown link gets a page that says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { fileForm } from "../../helpers/images.ts";
import { uniqueName } from "../../helpers/server.ts";
import { eventually, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const codeOf = (link: string) => link.split("/invite/")[1]!;

test("Invite people reuses the reader's link, then Edit invite link makes one of 30 minutes and 1 use", async () => {
  const owner = await suite.server.register(uniqueName("host"));
  const serverId = await createServer(suite.server, owner, "Reading Room");
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const open = async (on = page) => {
    await on.getByRole("navigation", { name: "Channels", exact: true }).getByRole("button", { name: "Invite people", exact: true }).click();
    const dialog = on.getByRole("dialog", { name: "Invite people to Reading Room", exact: true });
    const field = dialog.getByRole("textbox", { name: "Invite link", exact: true });
    await eventually(async () => expect(await field.inputValue()).toMatch(/\/invite\/[A-Za-z0-9]{10}$/));
    return { dialog, link: await field.inputValue() };
  };
  const first = await open();
  await first.dialog.getByText("This link expires in 7 days.").waitFor();
  await suite.shot(page, "invites-1-dialog");
  await suite.shot(page, "invites-1-dialog", { phone: true });
  await first.dialog.getByRole("button", { name: "Done", exact: true }).click();
  const again = await open();
  expect(again.link).toBe(first.link);
  const listed = (await suite.server.api("GET", `/api/v1/servers/${serverId}/invites`, { token: owner.token })).body as { id: string; code: string; expires_at: number | null; max_uses: number | null }[];
  const made = listed.filter((i) => i.code === codeOf(first.link));
  expect(made).toHaveLength(1);
  expect(made[0]!.expires_at! - Date.now() / 1000).toBeGreaterThan(7 * 86400 - 120);
  // Another device of the same person is given the same link (the server keeps whose it is).
  const laptop = await suite.person({ user: owner, path: `/channels/${serverId}` });
  const elsewhere = await open(laptop.page);
  expect(elsewhere.link).toBe(first.link);
  await elsewhere.dialog.getByRole("button", { name: "Done", exact: true }).click();

  await again.dialog.getByRole("button", { name: "Edit invite link", exact: true }).click();
  await again.dialog.getByRole("combobox", { name: "Expire after", exact: true }).selectOption({ label: "30 minutes" });
  await again.dialog.getByRole("combobox", { name: "Max number of uses", exact: true }).selectOption({ label: "1 use" });
  await suite.shot(page, "invites-2-edit");
  await again.dialog.getByRole("button", { name: "Generate a new link", exact: true }).click();
  await again.dialog.getByText("This link expires in 30 minutes.").waitFor();
  const newLink = await again.dialog.getByRole("textbox", { name: "Invite link", exact: true }).inputValue();
  expect(newLink).not.toBe(first.link);
  const edited = ((await suite.server.api("GET", `/api/v1/servers/${serverId}/invites`, { token: owner.token })).body as { id: string; code: string; max_uses: number | null }[]).find((i) => i.code === codeOf(newLink));
  expect(edited?.max_uses).toBe(1);
  // The newest of the person's links is the one shown next time, on any device.
  await again.dialog.getByRole("button", { name: "Done", exact: true }).click();
  expect((await open(laptop.page)).link).toBe(newLink);
  // Once it is deleted (here by its creator, through the route), the next open makes a fresh one.
  for (const id of [edited!.id, made[0]!.id]) expect((await suite.server.api("DELETE", `/api/v1/servers/${serverId}/invites/${id}`, { token: owner.token })).status).toBe(200);
  await page.reload();
  const fresh = await open();
  expect([first.link, newLink]).not.toContain(fresh.link);
  await fresh.dialog.getByText("This link expires in 7 days.").waitFor();
});

test("the invite page shows the server, who invited, its counts; joining, then Open server; a used-up link says so", async () => {
  const owner = await suite.server.register(uniqueName("inviter"));
  const serverId = await createServer(suite.server, owner, "Garden Club");
  expect((await suite.server.api("PUT", `/api/v1/servers/${serverId}`, { token: owner.token, body: { description: "Seeds, soil and sunshine." } })).status).toBe(200);
  const withIcon = await suite.server.api("POST", `/api/v1/servers/${serverId}/icon`, { token: owner.token, raw: fileForm("icon", solidPng(64, 64, [47, 158, 68]), "icon.png") });
  expect(withIcon.status).toBe(200);
  const regular = await suite.server.register(uniqueName("regular"));
  await addMember(suite.server, serverId, regular);
  const online = await suite.server.connect(regular.token);
  const invite = (await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: { max_uses: 1 } })).body;

  const guest = await suite.server.register(uniqueName("guest"));
  const { page } = await suite.person({ user: guest, path: `/invite/${invite.code}` });
  await page.getByRole("heading", { name: "Garden Club", level: 1, exact: true }).waitFor();
  await page.getByText(`${owner.username} invited you to join`).waitFor();
  await page.getByText("Seeds, soil and sunshine.").waitFor();
  // The server's icon beside its name (decorative: the name is the heading).
  expect(await page.locator(".invite-server .avatar img").getAttribute("src")).toBe(withIcon.body.icon);
  await page.getByText("1 online", { exact: true }).waitFor();
  await page.getByText("2 members", { exact: true }).waitFor();
  await suite.shot(page, "invites-3-page");
  await suite.shot(page, "invites-3-page", { phone: true });
  await page.getByRole("button", { name: "Accept invite", exact: true }).click();
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${serverId}`));

  // The one use is spent: another person gets the refusal, not a button that would fail.
  const late = await suite.server.register(uniqueName("late"));
  const lateView = await suite.person({ user: late, path: `/invite/${invite.code}` });
  await lateView.page.getByRole("heading", { name: "This invite cannot be used", exact: true }).waitFor();
  await lateView.page.getByRole("alert").filter({ hasText: "This invite has reached its maximum number of uses" }).waitFor();
  expect(await lateView.page.getByRole("button", { name: "Accept invite" }).count()).toBe(0);
  await suite.shot(lateView.page, "invites-4-used-up");
  await suite.shot(lateView.page, "invites-4-used-up", { phone: true });

  // An expired link says so too.
  const brief = (await suite.server.api("POST", `/api/v1/servers/${serverId}/invites`, { token: owner.token, body: { expires_in: 1 } })).body;
  await eventually(async () => expect(Date.now() / 1000).toBeGreaterThanOrEqual(brief.expires_at));
  await lateView.page.goto(`${suite.server.url}/invite/${brief.code}`);
  await lateView.page.getByRole("heading", { name: "This invite cannot be used", exact: true }).waitFor();
  await lateView.page.getByRole("alert").filter({ hasText: "This invite has expired" }).waitFor();
  expect(await lateView.page.getByRole("button", { name: "Accept invite" }).count()).toBe(0);
  await suite.shot(lateView.page, "invites-5-expired");

  // The guest, now a member, opening the server's primary link is offered the server itself.
  const primary = ((await suite.server.api("GET", `/api/v1/servers/${serverId}/invites`, { token: owner.token })).body as { code: string; is_primary: boolean }[]).find((i) => i.is_primary)!;
  await page.goto(`${suite.server.url}/invite/${primary.code}`);
  await page.getByText("You are already a member.").waitFor();
  await page.getByRole("link", { name: "Open server", exact: true }).click();
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${serverId}`));
  online.close();
});
