/**
 * Issue 43, point 1 (docs/web.md, "Managing channels"): those with Manage Channels create, edit,
 * move and delete channels and categories from the channel list; everyone sees each change live;
 * a member without the bit is offered none of it; the server's refusal is shown.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { community } from "../../helpers/community.ts";
import { PERMISSIONS as P } from "../../../src/domain/access/permission-bits.ts";
import { accessibleNames, eventually, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const as = (token: string) => (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });
const channelList = (page: Page) => page.getByRole("navigation", { name: "Channels", exact: true });
const categoryGroup = (page: Page, name: string) => channelList(page).getByRole("group", { name, exact: true }).first();
/** The channel names of each category (and "" for those without one) as the list shows them. */
const shownLayout = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll(".sidebar-scroll .channel-group")].map((g) => [
    g.querySelector(".category")?.textContent.replace(/^[▾▸]\\s*/, "") ?? "",
    [...g.querySelectorAll(".channel-name")].map((n) => n.textContent),
  ])`) as Promise<[string, string[]][]>;

async function setUp() {
  const c = await community(suite.server, { name: "Builders", extraMembers: 1 });
  const keeper = c.members[1]!;
  const owner = as(c.owner.token);
  const role = (await owner("POST", `/roles/${c.serverId}`, { name: "Keeper", permissions: P.MANAGE_CHANNELS })).body;
  expect((await owner("POST", `/roles/${c.serverId}/assign`, { targetUserId: keeper.id, roleId: role.id })).status).toBe(200);
  const list = async () => (await owner("GET", `/channels/${c.serverId}`)).body as { channels: any[]; categories: any[] };
  return { ...c, keeper, list };
}

test("a channel manager creates, edits, moves and deletes a channel and a category; the owner and a member see each change live", async () => {
  const c = await setUp();
  const member = await suite.person({ user: c.member, path: `/channels/${c.serverId}/${c.channelId}` });
  const ownerView = await suite.person({ user: c.owner, path: `/channels/${c.serverId}/${c.channelId}` });
  const { page } = await suite.person({ user: c.keeper, path: `/channels/${c.serverId}/${c.channelId}` });
  const list = channelList(page);
  await list.getByRole("button", { name: "Create channel", exact: true }).waitFor();

  // A plain member is offered nothing of it, in the list or in a channel's menu.
  await channelList(member.page).getByRole("link", { name: "general", exact: true }).waitFor();
  for (const name of ["Create channel", "Create category", "Edit channel", "Move general"]) {
    expect(await channelList(member.page).getByRole("button", { name }).count()).toBe(0);
  }
  await channelList(member.page).getByRole("link", { name: "general", exact: true }).click({ button: "right" });
  const memberMenu = member.page.getByRole("menu", { name: "general options", exact: true });
  await memberMenu.waitFor();
  expect(await memberMenu.getByRole("menuitem", { name: "Edit channel" }).count()).toBe(0);
  await member.page.keyboard.press("Escape");
  await suite.shot(member.page, "channels-0-member-offered-nothing");

  // A category.
  await list.getByRole("button", { name: "Create category", exact: true }).click();
  const newCategory = page.getByRole("dialog", { name: "Create category", exact: true });
  await newCategory.getByRole("textbox", { name: "Category name", exact: true }).fill("Projects");
  await newCategory.getByRole("button", { name: "Create", exact: true }).click();
  await categoryGroup(page, "Projects").waitFor();
  for (const other of [ownerView.page, member.page]) await categoryGroup(other, "Projects").waitFor();

  // A text channel in it: the dialog's type, name and category; the voice switches show for Voice only.
  await list.getByRole("button", { name: "Create channel", exact: true }).click();
  const create = page.getByRole("dialog", { name: "Create channel", exact: true });
  const types = create.getByRole("radiogroup", { name: "Channel type", exact: true });
  expect(await accessibleNames(types, "radio")).toEqual(["Text", "Voice"]);
  expect(await types.getByRole("radio", { name: "Text", exact: true }).isChecked()).toBe(true);
  expect(await create.getByRole("switch", { name: "Meeting" }).count()).toBe(0);
  await types.getByRole("radio", { name: "Voice", exact: true }).check();
  await create.getByRole("switch", { name: "Meeting", exact: true }).waitFor();
  await create.getByRole("switch", { name: "Text chat", exact: true }).waitFor();
  await types.getByRole("radio", { name: "Text", exact: true }).check();
  expect(await create.getByRole("switch", { name: "Text chat" }).count()).toBe(0);
  const categorySelect = create.getByRole("combobox", { name: "Category", exact: true });
  expect(await categorySelect.locator("option").allTextContents()).toEqual(["No category", "Projects"]);
  // The server's refusal is shown and the dialog stays.
  await create.getByRole("textbox", { name: "Channel name", exact: true }).fill("\u200b");
  await create.getByRole("button", { name: "Create", exact: true }).click();
  await create.getByRole("alert").getByText("name: must contain visible characters").waitFor();
  await create.getByRole("textbox", { name: "Channel name", exact: true }).fill("Road Map");
  await categorySelect.selectOption({ label: "Projects" });
  await suite.shot(page, "channels-1-create-channel");
  await create.getByRole("button", { name: "Create", exact: true }).click();
  const created = await eventually(async () => {
    const found = (await c.list()).channels.find((ch) => ch.name === "road-map");
    expect(found).toBeDefined();
    return found;
  });
  await eventually(async () => expect(new URL(page.url()).pathname).toBe(`/channels/${c.serverId}/${created.id}`));
  expect(created.category_id).toBe((await c.list()).categories[0].id);
  for (const other of [ownerView.page, member.page]) await categoryGroup(other, "Projects").getByRole("link", { name: "road-map", exact: true }).waitFor();

  // A voice meeting channel, its text chat on by default with a meeting.
  await list.getByRole("button", { name: "Create channel", exact: true }).click();
  await types.getByRole("radio", { name: "Voice", exact: true }).check();
  await create.getByRole("textbox", { name: "Channel name", exact: true }).fill("Town Hall");
  await create.getByRole("switch", { name: "Meeting", exact: true }).check();
  expect(await create.getByRole("switch", { name: "Text chat", exact: true }).isChecked()).toBe(true);
  await create.getByRole("button", { name: "Create", exact: true }).click();
  await ownerView.page.getByRole("link", { name: "Town Hall", exact: true }).waitFor();
  const hall = (await c.list()).channels.find((ch) => ch.name === "Town Hall");
  expect([hall.type, hall.is_meeting, hall.chat_enabled, hall.category_id]).toEqual(["voice", true, true, null]);

  // Editing: the channel's own tools, by name and topic; a voice channel's switches.
  await categoryGroup(page, "Projects").getByRole("group", { name: "road-map", exact: true }).getByRole("button", { name: "Edit channel", exact: true }).click();
  const edit = page.getByRole("dialog", { name: "Edit channel", exact: true });
  await edit.getByRole("textbox", { name: "Channel name", exact: true }).fill("roadmap");
  await edit.getByRole("textbox", { name: "Topic", exact: true }).fill("Where we are going");
  await suite.shot(page, "channels-2-edit-channel");
  await edit.getByRole("button", { name: "Save", exact: true }).click();
  await edit.waitFor({ state: "detached" });
  for (const other of [ownerView.page, member.page]) await categoryGroup(other, "Projects").getByRole("link", { name: "roadmap", exact: true }).waitFor();
  expect((await c.list()).channels.find((ch) => ch.id === created.id).topic).toBe("Where we are going");
  await list.getByRole("group", { name: "Town Hall", exact: true }).getByRole("button", { name: "Edit channel", exact: true }).click();
  expect(await edit.getByRole("textbox", { name: "Topic" }).count()).toBe(0);
  await edit.getByRole("switch", { name: "Text chat", exact: true }).uncheck();
  await edit.getByRole("button", { name: "Save", exact: true }).click();
  await edit.waitFor({ state: "detached" });
  expect((await c.list()).channels.find((ch) => ch.id === hall.id).chat_enabled).toBe(false);

  // Moving a channel by the keyboard: up out of Projects, into the channels without a category.
  const handle = categoryGroup(page, "Projects").getByRole("button", { name: "Move roadmap", exact: true });
  await handle.focus();
  await page.keyboard.press("Space");
  await page.getByText("roadmap picked up, in Projects, position 1 of 1.").waitFor();
  await page.keyboard.press("ArrowUp");
  await page.getByText("roadmap, without a category, position 3 of 3.").waitFor();
  await page.keyboard.press("ArrowUp");
  await page.getByText("roadmap, without a category, position 2 of 3.").waitFor();
  expect(await isFocused(list.getByRole("button", { name: "Move roadmap", exact: true }))).toBe(true);
  await suite.shot(page, "channels-3-moving-by-keyboard");
  await page.keyboard.press("Space");
  await page.getByText("roadmap moved, without a category, position 2 of 3.").waitFor();
  const expected: [string, string[]][] = [
    ["", ["general", "roadmap", "Town Hall"]],
    ["Projects", []],
  ];
  for (const view of [page, ownerView.page, member.page]) await eventually(async () => expect(await shownLayout(view)).toEqual(expected));
  expect((await c.list()).channels.find((ch) => ch.id === created.id).category_id).toBeNull();
  // Escape puts a picked-up channel back.
  await page.keyboard.press("Space");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Escape");
  await page.getByText("Move cancelled. roadmap is back where it was.").waitFor();
  expect(await shownLayout(page)).toEqual(expected);

  // A second category, moved above the first by the keyboard; everyone sees the order.
  await list.getByRole("button", { name: "Create category", exact: true }).click();
  await newCategory.getByRole("textbox", { name: "Category name", exact: true }).fill("Archive");
  await newCategory.getByRole("button", { name: "Create", exact: true }).click();
  await categoryGroup(member.page, "Archive").waitFor();
  await list.getByRole("button", { name: "Move Archive", exact: true }).focus();
  await page.keyboard.press("Space");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Space");
  await page.getByText("Archive moved, category 1 of 2.").waitFor();
  for (const view of [ownerView.page, member.page]) {
    await eventually(async () => expect((await shownLayout(view)).map(([name]) => name)).toEqual(["", "Archive", "Projects"]));
  }

  // Dragging a category's heading onto another's swaps them back, and again.
  await categoryGroup(page, "Projects").locator(".category-head").dragTo(categoryGroup(page, "Archive").locator(".category-head"));
  await eventually(async () => expect((await c.list()).categories.map((x) => x.name)).toEqual(["Projects", "Archive"]));
  await categoryGroup(page, "Archive").locator(".category-head").dragTo(categoryGroup(page, "Projects").locator(".category-head"));
  await eventually(async () => expect((await c.list()).categories.map((x) => x.name)).toEqual(["Archive", "Projects"]));
  await eventually(async () => expect((await shownLayout(member.page)).map(([name]) => name)).toEqual(["", "Archive", "Projects"]));

  // Dragging a channel onto a category puts it there.
  await list.getByRole("link", { name: "Town Hall", exact: true }).dragTo(categoryGroup(page, "Archive").locator(".category-head"));
  await eventually(async () => expect((await c.list()).channels.find((ch) => ch.id === hall.id).category_id).toBe((await c.list()).categories.find((x) => x.name === "Archive").id));
  await eventually(async () => expect(await shownLayout(member.page)).toContainEqual(["Archive", ["Town Hall"]]));

  // Renaming a category.
  await categoryGroup(page, "Archive").getByRole("button", { name: "Edit category", exact: true }).click();
  const editCategory = page.getByRole("dialog", { name: "Edit category", exact: true });
  await editCategory.getByRole("textbox", { name: "Category name", exact: true }).fill("Old stuff");
  await editCategory.getByRole("button", { name: "Save", exact: true }).click();
  for (const view of [ownerView.page, member.page]) await categoryGroup(view, "Old stuff").waitFor();
  await suite.shot(ownerView.page, "channels-4-owner-sees-changes");

  // Deleting a channel from its menu: the confirmation names it.
  await list.getByRole("link", { name: "roadmap", exact: true }).click({ button: "right" });
  await page.getByRole("menu", { name: "roadmap options", exact: true }).getByRole("menuitem", { name: "Delete channel", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Delete #roadmap?", exact: true });
  await suite.shot(page, "channels-5-delete-channel");
  await confirm.getByRole("button", { name: "Delete channel", exact: true }).click();
  for (const view of [ownerView.page, member.page]) await eventually(async () => expect(await channelList(view).getByRole("link", { name: "roadmap" }).count()).toBe(0));

  // Deleting a category from its edit dialog: its channels stay, without a category.
  await categoryGroup(page, "Old stuff").getByRole("button", { name: "Edit category", exact: true }).click();
  await editCategory.getByRole("button", { name: "Delete category", exact: true }).click();
  await page.getByRole("dialog", { name: "Delete the category Old stuff?", exact: true }).getByRole("button", { name: "Delete category", exact: true }).click();
  for (const view of [page, ownerView.page, member.page]) {
    await eventually(async () =>
      expect(await shownLayout(view)).toEqual([
        ["", ["general", "Town Hall"]],
        ["Projects", []],
      ]),
    );
  }
});

test("losing Manage Channels takes the controls away live; the owner deletes the open channel and lands on the next one", async () => {
  const c = await setUp();
  const { page } = await suite.person({ user: c.keeper, path: `/channels/${c.serverId}/${c.channelId}` });
  await channelList(page).getByRole("button", { name: "Create category", exact: true }).waitFor();
  const roles = (await as(c.owner.token)("GET", `/roles/${c.serverId}`)).body as { id: string; name: string }[];
  const keeperRole = roles.find((r) => r.name === "Keeper")!;
  await eventually(async () => {
    await as(c.owner.token)("PUT", `/roles/${c.serverId}/${keeperRole.id}`, { permissions: 0 });
    expect(await channelList(page).getByRole("button", { name: "Create category" }).count()).toBe(0);
  });
  expect(await channelList(page).getByRole("button", { name: "Move general" }).count()).toBe(0);

  const second = (await as(c.owner.token)("POST", `/channels/${c.serverId}`, { name: "second", type: "text" })).body;
  const owner = await suite.person({ user: c.owner, path: `/channels/${c.serverId}/${second.id}` });
  await channelList(owner.page).getByRole("group", { name: "second", exact: true }).getByRole("button", { name: "Edit channel", exact: true }).click();
  await owner.page.getByRole("dialog", { name: "Edit channel", exact: true }).getByRole("button", { name: "Delete channel", exact: true }).click();
  await owner.page.getByRole("dialog", { name: "Delete #second?", exact: true }).getByRole("button", { name: "Delete channel", exact: true }).click();
  await eventually(async () => expect(new URL(owner.page.url()).pathname).toBe(`/channels/${c.serverId}/${c.channelId}`));
  await eventually(async () => expect(await channelList(page).getByRole("link", { name: "second" }).count()).toBe(0));
});
