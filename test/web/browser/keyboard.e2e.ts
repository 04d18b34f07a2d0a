/**
 * The keyboard (docs/web.md "Keyboard"): Ctrl+K opens the "Quick switcher", which finds
 * servers, channels and DMs by name and opens the choice; Alt+Up/Down move between channels;
 * Escape closes the switcher and the settings pages, and focus comes back where it was.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { eventually, isFocused, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
let reader: TestUser;
let friend: TestUser;
let serverId: string;
let generalId: string;
let plansId: string;
let otherServerId: string;
let roadmapId: string;

beforeAll(async () => {
  suite = await startWebSuite();
  reader = await suite.server.register(uniqueName("keys"));
  friend = await suite.server.register(uniqueName("pal"));
  serverId = await createServer(suite.server, reader, "Workshop");
  await addMember(suite.server, serverId, friend);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  generalId = general!.id;
  const plans = await suite.server.api("POST", `/api/v1/channels/${serverId}`, { token: reader.token, body: { name: "plans", type: "text" } });
  plansId = plans.body.id;
  otherServerId = await createServer(suite.server, reader, "Garden Club");
  const roadmap = await suite.server.api("POST", `/api/v1/channels/${otherServerId}`, { token: reader.token, body: { name: "roadmap", type: "text" } });
  roadmapId = roadmap.body.id;
  const dm = await suite.server.api("POST", `/api/v1/dm/channels/${friend.id}`, { token: reader.token });
  if (dm.status >= 300) throw new Error(`dm: ${dm.status} ${JSON.stringify(dm.body)}`);
});
afterAll(() => suite.stop());

test("Ctrl+K (and Cmd+K) finds a channel of another server by name and opens it; Escape closes and focus returns; # narrows to channels", async () => {
  const { page } = await suite.person({ user: reader, path: `/channels/${serverId}/${generalId}` });
  const composer = page.getByRole("textbox", { name: /^Message/ });
  await composer.click();
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Quick switcher", exact: true });
  const field = dialog.getByRole("combobox", { name: "Where would you like to go?", exact: true });
  await field.waitFor();
  expect(await isFocused(field)).toBe(true);
  await field.fill("road");
  const results = dialog.getByRole("listbox", { name: "Places", exact: true });
  await results.getByRole("option", { name: /#roadmap/ }).waitFor();
  expect(await results.getByRole("option").allTextContents()).toEqual(["#roadmap Channel in Garden Club"]);
  await suite.shot(page, "keyboard-1-quick-switcher");
  await suite.shot(page, "keyboard-1-quick-switcher", { phone: true });
  await page.keyboard.press("Enter");
  await eventually(async () => expect(new URL(page.url()).pathname).toBe(`/channels/${otherServerId}/${roadmapId}`));
  expect(await dialog.count()).toBe(0);

  // Escape closes without going anywhere, and the focus is back in the composer.
  await page.getByRole("textbox", { name: /^Message/ }).click();
  await page.keyboard.press("Control+k");
  await field.waitFor();
  await field.fill("#g");
  // "#" keeps channels only: the server "Garden Club" is left out, "general" is found.
  await results.getByRole("option", { name: /#general/ }).first().waitFor();
  expect(await results.getByRole("option", { name: /^Garden Club/ }).count()).toBe(0);
  await page.keyboard.press("Escape");
  await eventually(async () => expect(await dialog.count()).toBe(0));
  expect(new URL(page.url()).pathname).toBe(`/channels/${otherServerId}/${roadmapId}`);
  expect(await isFocused(page.getByRole("textbox", { name: /^Message/ }))).toBe(true);

  // Cmd+K, as on macOS, opens it too.
  await page.keyboard.press("Meta+k");
  await field.waitFor();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(await dialog.count()).toBe(0));
});

test("the switcher finds a DM by the other person's name and a server by its name, with the arrow keys", async () => {
  const { page } = await suite.person({ user: reader, path: `/channels/${serverId}/${generalId}` });
  await page.getByRole("textbox", { name: /^Message/ }).waitFor();
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Quick switcher", exact: true });
  const field = dialog.getByRole("combobox", { name: "Where would you like to go?", exact: true });
  await field.fill(friend.username);
  await dialog.getByRole("option", { name: new RegExp(`^${friend.username} Direct message`) }).waitFor();
  await page.keyboard.press("Enter");
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith("/channels/@me/"));

  await page.keyboard.press("Control+k");
  await field.fill("*");
  await dialog.getByRole("option", { name: /^Workshop/ }).waitFor();
  // The first answer is active; Down makes the second one active, and Enter opens it.
  const names = await dialog.getByRole("option").allTextContents();
  expect(names.map((n) => n.replace(/ Server$/, ""))).toEqual(["Workshop", "Garden Club"]);
  await page.keyboard.press("ArrowDown");
  expect(await field.getAttribute("aria-activedescendant")).toBe("quick-switcher-results-1");
  await page.keyboard.press("Enter");
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${otherServerId}`));
});

test("Alt+Down and Alt+Up move between the server's channels in list order; Escape closes the pins and leaves server and user settings", async () => {
  const { page } = await suite.person({ user: reader, path: `/channels/${serverId}/${generalId}` });
  await page.getByRole("textbox", { name: /^Message/ }).click();
  await page.keyboard.press("Alt+ArrowDown");
  await eventually(async () => expect(new URL(page.url()).pathname).toBe(`/channels/${serverId}/${plansId}`));
  // Past the last channel nothing happens.
  await page.keyboard.press("Alt+ArrowDown");
  await page.keyboard.press("Alt+ArrowUp");
  await eventually(async () => expect(new URL(page.url()).pathname).toBe(`/channels/${serverId}/${generalId}`));

  // Escape closes the pinned messages, and the focus is back on the button that opened them.
  const pinsButton = page.getByRole("button", { name: "Pinned messages", exact: true });
  await pinsButton.click();
  const pins = page.getByRole("complementary", { name: "Pinned messages", exact: true });
  await pins.waitFor();
  await pins.getByRole("button", { name: "Close pinned messages", exact: true }).focus();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(await pins.count()).toBe(0));
  expect(await isFocused(pinsButton)).toBe(true);

  // Server settings opened from the channel list: Escape goes back, the focus on the link that opened them.
  const serverSettings = page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Server settings", exact: true });
  await serverSettings.click();
  await page.getByRole("navigation", { name: "Server settings", exact: true }).waitFor();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${serverId}`));
  await eventually(async () => expect(await isFocused(serverSettings)).toBe(true));
  // Opened by its address, Escape still goes back to the server.
  await page.goto(`/servers/${serverId}/settings/overview`);
  await page.getByRole("navigation", { name: "Server settings", exact: true }).waitFor();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${serverId}`));
  const userSettings = page.getByRole("button", { name: "User settings", exact: true });
  await userSettings.click();
  await page.getByRole("navigation", { name: "User settings", exact: true }).waitFor();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(new URL(page.url()).pathname).toStartWith(`/channels/${serverId}`));
  // The focus is back on the button that opened them.
  await eventually(async () => expect(await isFocused(userSettings)).toBe(true));
  // And stays there: the conversation shown again does not take it for its composer.
  await Bun.sleep(300);
  expect(await isFocused(userSettings)).toBe(true);
});

test("Escape pressed the moment user settings appear closes them: the key is heard from the first render", async () => {
  const { page } = await suite.person({ user: reader, path: `/channels/${serverId}/${generalId}` });
  await page.getByRole("textbox", { name: /^Message/ }).waitFor();
  // The key goes in as the settings' navigation enters the page, before the browser paints it.
  await page.evaluate(`new Promise((done) => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector('nav[aria-label="User settings"]')) return;
      seen.disconnect();
      document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
      done();
    });
    seen.observe(document.body, { childList: true, subtree: true });
    document.querySelector('button[aria-label="User settings"]').click();
  })`);
  await eventually(async () => expect(new URL(page.url()).pathname).toBe(`/channels/${serverId}/${generalId}`));
  await suite.shot(page, "keyboard-escape-closed-settings", { phone: true });
});

test("the focus is visible on every control Tab reaches in the chat view: an outline, or a field's focus border", async () => {
  const { page } = await suite.person({ user: reader, path: `/channels/${serverId}/${generalId}` });
  await page.getByRole("textbox", { name: /^Message/ }).waitFor();
  await page.locator("body").click({ position: { x: 1, y: 1 } });
  const unseen: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    // A string: this file is compiled without the DOM's types.
    const focus = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      // The theme's focus colour, resolved (a probe styled through the CSSOM: the CSP refuses style attributes).
      const probe = document.body.appendChild(document.createElement("i"));
      probe.style.color = "var(--focus)";
      const focusColour = getComputedStyle(probe).color;
      probe.remove();
      const style = getComputedStyle(el);
      const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
      // Text fields draw the focus as their border, the composer's box as its row's ring.
      const border = style.borderTopColor === focusColour && parseFloat(style.borderTopWidth) > 0;
      const row = el.closest(".composer-row");
      const ring = row !== null && getComputedStyle(row).boxShadow.includes(focusColour);
      return { what: el.tagName.toLowerCase() + " " + (el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 40), shown: outline || border || ring };
    })()`)) as { what: string; shown: boolean } | null;
    if (!focus) continue;
    seen.add(focus.what);
    if (!focus.shown) unseen.push(focus.what);
  }
  expect(seen.size).toBeGreaterThan(10);
  expect(unseen).toEqual([]);
});
