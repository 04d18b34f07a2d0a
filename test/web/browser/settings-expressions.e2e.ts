/**
 * Issue 17, points 6 and 7: custom emojis and soundboard sounds (upload with preview, rename,
 * delete, limits), webhooks (create, copy the URL, regenerate, delete), bots with their managed
 * role; every settings page in a narrow window and with a name on every control.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { community } from "../../helpers/community.ts";
import { eventually, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const as = (token: string) => (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/v1${path}`, { token, body });
const settingsNav = (page: Page) => page.getByRole("navigation", { name: "Server settings", exact: true });
const main = (page: Page) => page.getByRole("main");

/** A short mono WAV of a 440 Hz tone, as a person might upload. */
function toneWav(seconds = 0.2, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8);
  header.write("fmt ", 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

test("emojis: upload with a preview, the limit shown, rename, delete; a file the server refuses says why", async () => {
  const c = await community(suite.server, { name: "Emoji Lab" });
  const api = as(c.owner.token);
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/emojis` });
  await main(page).getByText("0 of 50").waitFor();
  const upload = main(page).getByRole("form", { name: "Upload an emoji" });
  // Not an image, whatever its name says: the server's refusal is shown.
  await upload.getByLabel("Image").setInputFiles({ name: "fake.png", mimeType: "image/png", buffer: Buffer.from("not an image at all") });
  await upload.getByRole("button", { name: "Upload emoji" }).click();
  await upload.getByRole("alert").filter({ hasText: "emoji must be a PNG, JPEG, WEBP or GIF image" }).waitFor();
  await suite.shot(page, "settings-18-emoji-refused");

  await upload.getByLabel("Image").setInputFiles({ name: "party parrot.png", mimeType: "image/png", buffer: Buffer.from(solidPng(48, 48, [250, 176, 5])) });
  await upload.getByRole("img", { name: "Preview of party parrot.png" }).waitFor();
  await upload.getByRole("textbox", { name: "Emoji name" }).fill("parrot");
  await suite.shot(page, "settings-19-emoji-preview");
  await upload.getByRole("button", { name: "Upload emoji" }).click();
  const list = main(page).getByRole("list", { name: "Emojis" });
  await list.getByRole("listitem", { name: ":parrot:" }).waitFor();
  await main(page).getByText("1 of 50").waitFor();
  // Without a name, the server names it after the file.
  await upload.getByLabel("Image").setInputFiles({ name: "thumbs-up.png", mimeType: "image/png", buffer: Buffer.from(solidPng(32, 32, [47, 158, 68])) });
  await upload.getByRole("button", { name: "Upload emoji" }).click();
  await list.getByRole("listitem", { name: ":thumbs-up:" }).waitFor();
  await main(page).getByText("2 of 50").waitFor();

  await list.getByRole("button", { name: "Rename :parrot:" }).click();
  await list.getByRole("textbox", { name: "New name for :parrot:" }).fill("party_parrot");
  await list.getByRole("button", { name: "Save" }).click();
  await list.getByRole("listitem", { name: ":party_parrot:" }).waitFor();
  await suite.shot(page, "settings-20-emojis");
  await list.getByRole("button", { name: "Delete :thumbs-up:" }).click();
  await page.getByRole("dialog", { name: "Delete :thumbs-up:?" }).getByRole("button", { name: "Delete emoji" }).click();
  await main(page).getByText("1 of 50").waitFor();
  expect((await api("GET", `/servers/${c.serverId}/emojis`)).body.emojis.map((e: { name: string }) => e.name)).toEqual(["party_parrot"]);
});

test("soundboard: upload with a preview to listen to, rename with an icon, delete, the limit shown", async () => {
  const c = await community(suite.server, { name: "Sound Lab" });
  const api = as(c.owner.token);
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/soundboard` });
  await main(page).getByText("No sounds yet.").waitFor();
  await main(page).getByText("0 of 50").waitFor();
  const upload = main(page).getByRole("form", { name: "Upload a sound" });
  await upload.getByLabel("Audio file").setInputFiles({ name: "air horn.wav", mimeType: "audio/wav", buffer: toneWav() });
  const preview = upload.locator("audio");
  await preview.waitFor();
  expect(await preview.getAttribute("aria-label")).toBe("Preview of air horn.wav");
  // The preview is the chosen file, and it decodes.
  await eventually(async () => expect(await preview.evaluate((audio) => (audio as unknown as { duration: number }).duration)).toBeGreaterThan(0.1));
  await upload.getByRole("textbox", { name: "Icon (one emoji)" }).fill("📯");
  await suite.shot(page, "settings-21-sound-preview");
  await upload.getByRole("button", { name: "Upload sound" }).click();
  const list = main(page).getByRole("list", { name: "Sounds" });
  await list.getByRole("listitem", { name: "air horn" }).waitFor();
  await main(page).getByText("1 of 50").waitFor();
  expect((await api("GET", `/servers/${c.serverId}/soundboard`)).body[0]).toMatchObject({ name: "air horn", icon: "📯", mime_type: "audio/wav" });

  await list.getByRole("button", { name: "Rename air horn" }).click();
  await list.getByRole("textbox", { name: "New name for air horn" }).fill("fog horn");
  await list.getByRole("textbox", { name: "Icon of air horn" }).fill("🚢");
  await list.getByRole("button", { name: "Save" }).click();
  await list.getByRole("listitem", { name: "fog horn" }).waitFor();
  expect((await api("GET", `/servers/${c.serverId}/soundboard`)).body[0]).toMatchObject({ name: "fog horn", icon: "🚢" });
  // A bad icon is the server's to refuse, and it says so.
  await list.getByRole("button", { name: "Rename fog horn" }).click();
  await list.getByRole("textbox", { name: "Icon of fog horn" }).fill("no");
  await list.getByRole("button", { name: "Save" }).click();
  await list.getByRole("alert").filter({ hasText: "icon: must be a single Unicode emoji" }).waitFor();
  await suite.shot(page, "settings-22-sounds");
  await list.getByRole("button", { name: "Cancel" }).click();
  await list.getByRole("button", { name: "Delete fog horn" }).click();
  await page.getByRole("dialog", { name: "Delete the sound fog horn?" }).getByRole("button", { name: "Delete sound" }).click();
  await main(page).getByText("No sounds yet.").waitFor();
  expect((await api("GET", `/servers/${c.serverId}/soundboard`)).body).toEqual([]);
});

test("webhooks: create, copy the URL that posts, regenerate (the old URL stops), delete", async () => {
  const c = await community(suite.server, { name: "Hooks" });
  const api = as(c.owner.token);
  await api("POST", `/channels/${c.serverId}`, { name: "deploys", type: "text" });
  const { page, context } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/webhooks` });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await main(page).getByText("No webhooks yet.").waitFor();
  const create = main(page).getByRole("form", { name: "Create a webhook" });
  await create.getByRole("textbox", { name: "Webhook name" }).fill("CI");
  await create.getByRole("combobox", { name: "Channel" }).selectOption({ label: "#deploys" });
  await create.getByRole("button", { name: "Create webhook" }).click();
  const group = main(page).getByRole("region", { name: "Webhooks of #deploys" });
  await group.getByRole("listitem", { name: "CI" }).waitFor();
  await group.getByRole("button", { name: "Copy URL of CI" }).click();
  await group.getByRole("button", { name: "Copy URL of CI" }).filter({ hasText: "Copied" }).waitFor();
  const url = await page.evaluate<string>("navigator.clipboard.readText()");
  expect(url).toMatch(new RegExp(`^${suite.server.url}/api/webhooks/[0-9a-f-]{36}/[A-Za-z0-9_-]{43}$`));
  const post = (target: string) => fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: "deployed" }) });
  expect((await post(url)).status).toBe(204);
  await suite.shot(page, "settings-23-webhooks");

  await group.getByRole("button", { name: "Regenerate URL of CI" }).click();
  await page.getByRole("dialog", { name: "Regenerate the URL of CI?" }).getByRole("button", { name: "Regenerate URL" }).click();
  await eventually(async () => expect((await post(url)).status).toBe(401));
  await group.getByRole("button", { name: "Copy URL of CI" }).click();
  const fresh = await eventually(async () => {
    const value = await page.evaluate<string>("navigator.clipboard.readText()");
    expect(value).not.toBe(url);
    return value;
  });
  expect((await post(fresh)).status).toBe(204);

  await group.getByRole("button", { name: "Delete CI" }).click();
  await page.getByRole("dialog", { name: "Delete the webhook CI?" }).getByRole("button", { name: "Delete webhook" }).click();
  await main(page).getByText("No webhooks yet.").waitFor();
  expect((await post(fresh)).status).toBe(401);
});

test("bots with their managed role: the owner edits it from here, a moderator may only remove the bot", async () => {
  const c = await community(suite.server, { bot: true, moderator: true, name: "Bot Yard" });
  const api = as(c.owner.token);
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/bots` });
  const list = main(page).getByRole("list", { name: "Bots" });
  const row = list.getByRole("listitem", { name: c.bot.name });
  await row.getByText("Send Messages", { exact: false }).waitFor();
  await suite.shot(page, "settings-24-bots");
  await row.getByRole("link", { name: `Edit role of ${c.bot.name}` }).click();
  await page.waitForURL(/\/settings\/roles\?role=/);
  const editor = main(page).getByRole("region", { name: `Edit role ${c.bot.name}` });
  await editor.getByRole("checkbox", { name: "Kick Members", exact: true }).check();
  await editor.getByRole("button", { name: "Save changes" }).click();
  await editor.getByRole("status").filter({ hasText: "Saved." }).waitFor();
  const managed = (await api("GET", `/roles/${c.serverId}`)).body.find((r: { managed_bot_id: string | null }) => r.managed_bot_id === c.bot.botUserId);
  expect(managed.permissions & 4).toBe(4);
  // Only the bot may hold it: no one else is offered.
  await editor.getByText(`Only ${c.bot.name} can hold a bot's managed role.`).waitFor();
  expect(await editor.getByRole("combobox", { name: "Give this role to" }).count()).toBe(0);

  const moderator = await suite.person({ user: c.moderator, path: `/servers/${c.serverId}/settings/bots` });
  const modRow = main(moderator.page).getByRole("list", { name: "Bots" }).getByRole("listitem", { name: c.bot.name });
  await modRow.getByRole("button", { name: `Remove ${c.bot.name}` }).waitFor();
  expect(await modRow.getByRole("link").count()).toBe(0);
  await modRow.getByRole("button", { name: `Remove ${c.bot.name}` }).click();
  await moderator.page.getByRole("dialog", { name: `Remove ${c.bot.name} from Bot Yard?` }).getByRole("button", { name: "Remove bot" }).click();
  await main(moderator.page).getByText("There are no bots in Bot Yard.", { exact: false }).waitFor();
  // The owner's page follows (member:left).
  await settingsNav(page).getByRole("link", { name: "Bots" }).click();
  await main(page).getByText("There are no bots in Bot Yard.", { exact: false }).waitFor();
});

const SECTIONS = ["overview", "roles", "channels", "emojis", "soundboard", "invites", "members", "bans", "audit-log", "webhooks", "bots"];

test("every settings page: each control has a name, and a narrow window still fits", async () => {
  const c = await community(suite.server, { bot: true, moderator: true, extraMembers: 1, name: "A server with a rather long name that goes on" });
  const api = as(c.owner.token);
  await api("POST", `/roles/${c.serverId}`, { name: "A role with a long name for people who read the whole thing", color: "#E8590C" });
  await api("POST", `/servers/${c.serverId}/bans`, { targetUserId: c.outsider.id, reason: "a reason long enough to wrap on a small screen, as reasons often are" });
  await api("POST", `/channels/${c.channelId}/webhooks`, { name: "Nightly build reporter" });
  const { page } = await suite.person({ user: c.owner, path: `/servers/${c.serverId}/settings/overview` });
  for (const section of SECTIONS) {
    await page.goto(`/servers/${c.serverId}/settings/${section}`);
    await main(page).getByRole("heading", { level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    const snapshot = await main(page).ariaSnapshot();
    const unnamed = snapshot.split("\n").filter((line) => /^\s*- (button|link|textbox|checkbox|radio|combobox|slider|searchbox|spinbutton)(:|\s*$|\s+\[)/.test(line));
    expect({ section, unnamed }).toEqual({ section, unnamed: [] });
  }
  await page.setViewportSize({ width: 420, height: 860 });
  for (const section of ["roles", "members", "invites", "bans", "webhooks"]) {
    await page.goto(`/servers/${c.serverId}/settings/${section}`);
    await main(page).getByRole("heading", { level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    // Nothing runs off the side of the page.
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(420);
    await suite.shot(page, `settings-narrow-${section}`);
  }
});
