/**
 * Issue 41, points 9-11: jumping to any message. A message 500 messages back found with the
 * Search box and chosen from the results is shown centred and highlighted, away from the
 * present (live messages stay out of that window) until "Jump to present"; a reply's quote and
 * a pin's "Jump to message" jump too; a whole-server search leads to another channel; search in a DM; an image sent by the other person keeps a
 * reader at the bottom with the newest message fully in view; day dividers name the day.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { say } from "../../helpers/bot-platform.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { letTimePass } from "../../helpers/wait.ts";
import { eventually, messageLog, messageWith, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
let reader: TestUser;
let other: TestUser;
let serverId: string;
let channelId: string;
let path: string;
/** A second text channel, with a message of its own. */
let randomId: string;
/** The oldest message (500 messages back), found by its word. */
let needle: { id: string; created_at: number };
/** The second oldest, quoted by a reply and pinned. */
let original: { id: string };
const FILLERS = 500;

beforeAll(async () => {
  suite = await startWebSuite();
  reader = await suite.server.register(uniqueName("reader"));
  other = await suite.server.register(uniqueName("other"));
  serverId = await createServer(suite.server, reader, "Archive");
  await addMember(suite.server, serverId, other);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  channelId = general!.id;
  path = `/channels/${serverId}/${channelId}`;
  const random = await suite.server.api("POST", `/api/v1/channels/${serverId}`, { token: reader.token, body: { name: "random", type: "text" } });
  if (random.status !== 201) throw new Error(`channel: ${random.status} ${JSON.stringify(random.body)}`);
  randomId = random.body.id;
  await say(suite.server, other, randomId, "a quasar over the random channel");
  for (let i = 1; i <= 60; i++) await say(suite.server, other, randomId, `random chatter ${i}`);
  needle = (await say(suite.server, reader, channelId, "the zebracorn was seen at dawn")).body;
  original = (await say(suite.server, other, channelId, "the original question, asked long ago")).body;
  // 500 more, fast: sends are limited per caller and channel (100 per 10 s), so six seeders share them.
  const seeders: TestUser[] = [];
  for (let i = 0; i < 6; i++) {
    const seeder = await suite.server.register(uniqueName("seed"));
    await addMember(suite.server, serverId, seeder);
    seeders.push(seeder);
  }
  let sent = 0;
  await Promise.all(
    seeders.map(async (seeder, s) => {
      for (let i = s; i < FILLERS; i += seeders.length) {
        const res = await say(suite.server, seeder, channelId, `filler message ${i + 1}`);
        if (res.status !== 201) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
        sent++;
      }
    }),
  );
  expect(sent).toBe(FILLERS);
});
afterAll(() => suite.stop());

async function open(user: TestUser, at = path): Promise<Page> {
  const person = await suite.person({ user, path: at });
  await messageLog(person.page).waitFor();
  return person.page;
}

/** The element's box lies inside the log's visible box (1 px of rounding allowed). */
async function insideLog(page: Page, item: Locator): Promise<boolean> {
  const log = await messageLog(page).boundingBox();
  const box = await item.boundingBox();
  if (!log || !box) return false;
  return box.y >= log.y - 1 && box.y + box.height <= log.y + log.height + 1;
}

/** The log is scrolled to its end. */
const atEnd = (page: Page) => messageLog(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight <= 8);

const highlighted = (page: Page) => messageLog(page).locator('article[aria-current="true"]');

test("Search finds a message 500 back; choosing it jumps there, centred and highlighted; Jump to present comes back", async () => {
  const page = await open(reader);
  await messageWith(page, `filler message ${FILLERS}`).waitFor();
  const search = page.getByRole("searchbox", { name: "Search", exact: true });
  await search.fill("zebracorn");
  await search.press("Enter");
  const results = page.getByRole("list", { name: "Search results", exact: true });
  const result = results.getByRole("listitem");
  await eventually(async () => expect(await result.count()).toBe(1));
  expect(await result.textContent()).toContain(reader.username);
  expect(await result.textContent()).toContain("the zebracorn was seen at dawn");
  await suite.shot(page, "jumps-1-search-results", { phone: true });

  await result.getByRole("button", { name: "Jump to message", exact: true }).click();
  const found = messageWith(page, "the zebracorn was seen at dawn");
  await found.waitFor();
  await eventually(async () => expect(await found.getAttribute("aria-current")).toBe("true"));
  expect(await found.getAttribute("class")).toContain("highlighted");
  await eventually(async () => expect(await insideLog(page, found)).toBe(true));
  // The start of the history: the channel's intro and the day's divider, named in the reader's locale (en-US, UTC here).
  const day = new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(needle.created_at * 1000));
  await messageLog(page).getByRole("separator", { name: day, exact: true }).waitFor();
  await page.getByRole("heading", { name: "Welcome to #general!" }).waitFor();
  await suite.shot(page, "jumps-2-found-far-back", { phone: true });
  // The newest messages are not loaded now; "Jump to present" says the way back.
  expect(await messageWith(page, `filler message ${FILLERS}`).count()).toBe(0);
  const jump = page.getByRole("button", { name: "Jump to present", exact: true });
  await jump.waitFor();

  // A live message meanwhile is not put in the middle of this old window.
  await say(suite.server, other, channelId, "said while the reader was far back");
  await letTimePass(300, "the live message would have been applied by now");
  expect(await messageWith(page, "said while the reader was far back").count()).toBe(0);

  // The highlight fades after a few seconds.
  await eventually(async () => expect(await highlighted(page).count()).toBe(0), 8000);

  await jump.click();
  const newest = messageWith(page, "said while the reader was far back");
  await newest.waitFor();
  await eventually(async () => expect(await insideLog(page, newest)).toBe(true));
  await eventually(async () => expect(await atEnd(page)).toBe(true));
  await eventually(async () => expect(await jump.count()).toBe(0));
  expect(await messageWith(page, "the zebracorn was seen at dawn").count()).toBe(0);
  await suite.shot(page, "jumps-3-back-to-present");

  // Escape in the panel closes it.
  await results.getByRole("button", { name: "Jump to message" }).focus();
  await page.keyboard.press("Escape");
  await eventually(async () => expect(await results.count()).toBe(0));

  // A search with nothing to find says so.
  await search.fill("unicornzebra");
  await search.press("Enter");
  await page.getByRole("complementary", { name: "Message search" }).getByText("No results", { exact: true }).waitFor();
  await page.getByRole("button", { name: "Close search results" }).click();
  await eventually(async () => expect(await page.getByRole("complementary", { name: "Message search" }).count()).toBe(0));
  await page.context().close();
});

test("a message in the middle of the history is centred; scrolling down from there loads the newer pages up to the present", async () => {
  const page = await open(reader);
  await messageWith(page, `filler message ${FILLERS}`).waitFor();
  const search = page.getByRole("searchbox", { name: "Search", exact: true });
  await search.fill("filler message 250");
  await search.press("Enter");
  const result = page.getByRole("list", { name: "Search results", exact: true }).getByRole("listitem");
  await eventually(async () => expect(await result.count()).toBe(1));
  await result.getByRole("button", { name: "Jump to message" }).click();
  const shown = messageWith(page, /^.*filler message 250$/);
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  // Centred: its middle within a row's height of the log's middle.
  await eventually(async () => {
    const log = (await messageLog(page).boundingBox())!;
    const box = (await shown.boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (log.y + log.height / 2))).toBeLessThan(40);
  });
  await suite.shot(page, "jumps-2b-centred");
  await page.getByRole("button", { name: "Close search results" }).click();

  // Scrolling down, a reader meets the newer messages page after page, then the present.
  for (let step = 0; step < 40 && (await page.getByRole("button", { name: "Jump to present", exact: true }).count()) > 0; step++) {
    await messageLog(page).evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await letTimePass(100, "a newer page is asked for and laid out");
  }
  await messageWith(page, "said while the reader was far back").waitFor();
  await eventually(async () => expect(await page.getByRole("button", { name: "Jump to present", exact: true }).count()).toBe(0));
  // Every message from 250 on came in order, none twice.
  const numbers = (await messageLog(page).locator("article .message-text").allTextContents()).map((text) => Number(/filler message (\d+)/.exec(text)?.[1] ?? NaN));
  const fillers = numbers.filter((n) => !Number.isNaN(n));
  expect(fillers.length).toBeGreaterThan(3);
  expect(new Set(fillers).size).toBe(fillers.length);
  await page.context().close();
});

test('scrolling up a channel never read: older pages keep coming with "New messages" above the window, and what is in view stays', async () => {
  const newcomer = await suite.server.register(uniqueName("newcomer"));
  await addMember(suite.server, serverId, newcomer);
  const page = await open(newcomer);
  const log = messageLog(page);
  await messageWith(page, `filler message ${FILLERS}`).waitFor();
  let olderPages = 0;
  page.on("response", (response) => {
    if (/\/api\/v1\/messages\/[^/?]+\?before=/.test(response.url())) olderPages++;
  });
  // Older pages answer a little late, so the top of each window can be seen before the next page comes.
  await page.route(/\/api\/v1\/messages\/[^/?]+\?before=/, async (route) => {
    await letTimePass(300, "older pages answer late");
    await route.continue();
  });
  // Everything is unread: the divider sits above the first loaded message, at the top of the window.
  await log.evaluate((el) => {
    el.scrollTop = 0;
  });
  await log.getByRole("separator", { name: "New messages", exact: true }).waitFor();
  for (let step = 0; step < 60 && olderPages < 4; step++) {
    const pagesBefore = olderPages;
    await log.evaluate((el) => {
      el.scrollTop = 100;
    });
    await eventually(() => olderPages > pagesBefore, 3000).catch(() => {});
    await letTimePass(50, "the prepended page is laid out");
  }
  // Four older pages: 250 messages loaded, from about filler message 300 on; the view was kept each time (not thrown to the top).
  expect(olderPages).toBeGreaterThanOrEqual(4);
  // The last page's answer was counted when it arrived; it is laid out (and the view kept) a moment later.
  await eventually(async () => expect(await log.evaluate((el) => el.scrollTop)).toBeGreaterThan(400));
  await suite.shot(page, "jumps-9-unread-scrolled-up");
  await page.context().close();
});

test("a reply's quote jumps to an original far back, by mouse and by keyboard", async () => {
  const page = await open(reader);
  await messageWith(page, `filler message ${FILLERS}`).waitFor();
  await say(suite.server, other, channelId, "answering that old question now", { reply_to: original.id });
  const reply = messageWith(page, "answering that old question now");
  await reply.waitFor();
  const quote = reply.getByRole("button", { name: /^Jump to the replied message/ });
  // The original is not loaded: its text is fetched for the quote.
  await eventually(async () => expect(await quote.textContent()).toContain("the original question, asked long ago"));
  await quote.click();
  const shown = messageWith(page, "the original question, asked long ago").filter({ hasNotText: "answering" });
  await shown.waitFor();
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  await eventually(async () => expect(await insideLog(page, shown)).toBe(true));
  await suite.shot(page, "jumps-4-reply-original");

  // Back to the present by keyboard, then the quote again by keyboard.
  const jump = page.getByRole("button", { name: "Jump to present", exact: true });
  await jump.focus();
  await page.keyboard.press("Enter");
  await reply.waitFor();
  await eventually(async () => expect(await atEnd(page)).toBe(true));
  await quote.focus();
  await page.keyboard.press("Enter");
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  await page.context().close();
});

test("a pin far back: the pins panel's Jump to message shows it", async () => {
  const pinned = await suite.server.api("POST", `/api/v1/messages/${channelId}/pins/${original.id}`, { token: reader.token });
  expect(pinned.status).toBeLessThan(300);
  const page = await open(reader);
  await messageWith(page, `filler message ${FILLERS}`).waitFor();
  await page.getByRole("button", { name: "Pinned messages" }).click();
  const panel = page.getByRole("complementary", { name: "Pinned messages" });
  await panel.getByText("the original question, asked long ago").waitFor();
  await panel.getByRole("button", { name: "Jump to message", exact: true }).click();
  const shown = messageWith(page, "the original question, asked long ago").filter({ hasNotText: "answering" });
  await shown.waitFor();
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  await eventually(async () => expect(await insideLog(page, shown)).toBe(true));
  await suite.shot(page, "jumps-5-pin", { phone: true });
  // Sending from far back brings the reader to the present, where the sent message is.
  const box = page.getByRole("textbox", { name: "Message #general", exact: true });
  await box.fill("back from the pins");
  await box.press("Enter");
  const mine = messageWith(page, "back from the pins");
  await mine.waitFor();
  await eventually(async () => expect(await insideLog(page, mine)).toBe(true));
  await eventually(async () => expect(await page.getByRole("button", { name: "Jump to present", exact: true }).count()).toBe(0));
  expect(await messageWith(page, "the original question, asked long ago").filter({ hasNotText: "answering" }).count()).toBe(0);
  await suite.server.api("DELETE", `/api/v1/messages/${channelId}/pins/${original.id}`, { token: reader.token });
  await page.context().close();
});

test("an image sent by the other person keeps the reader at the bottom, the newest message wholly in view", async () => {
  const page = await open(reader);
  await messageWith(page, /filler message|answering that old question now/).first().waitFor();
  await eventually(async () => expect(await atEnd(page)).toBe(true));
  // Images arrive late here, so a box not reserved would grow the row after it was laid out.
  await page.route(/\/uploads\/attachments\//, async (route) => {
    await letTimePass(700, "the image loads late");
    await route.continue();
  });
  const form = new FormData();
  form.append("files", new File([solidPng(640, 480, [47, 158, 68])], "meadow.png", { type: "image/png" }));
  form.append("content", "a picture of the meadow");
  const upload = await suite.server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: other.token, raw: form });
  expect(upload.status).toBe(201);
  const sent = messageWith(page, "a picture of the meadow");
  await sent.waitFor();
  const image = sent.getByRole("img", { name: "meadow.png" });
  // The box is reserved before the image loads (640x480 fitted into 400x300).
  const before = await eventually(async () => {
    const seen = await image.evaluate((img) => {
      const el = img as unknown as { naturalWidth: number; getBoundingClientRect(): { width: number; height: number } };
      const rect = el.getBoundingClientRect();
      return { width: rect.width, height: rect.height, loaded: el.naturalWidth > 0 };
    });
    expect(seen).toMatchObject({ width: 400, height: 300 });
    return seen;
  });
  expect(before.loaded).toBe(false);
  await eventually(async () => expect(await insideLog(page, sent)).toBe(true));
  await eventually(async () => expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(640), 8000);
  await eventually(async () => expect(await insideLog(page, sent)).toBe(true));
  expect(await atEnd(page)).toBe(true);
  await suite.shot(page, "jumps-6-image-at-bottom");

  // An embed's image has no size to reserve: its row grows when the image arrives, late, and the reader stays at the bottom.
  const hook = await suite.server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: reader.token, body: { name: "Photos" } });
  expect(hook.status).toBe(201);
  const picture = `${suite.server.url}${upload.body.attachments[0].filename}?as=embed`;
  const posted = await fetch(`${suite.server.url}${hook.body.url}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: "the meadow, embedded", embeds: [{ title: "Meadow", image: picture }] }),
  });
  expect(posted.status).toBe(204);
  const embedded = messageWith(page, "the meadow, embedded");
  await embedded.waitFor();
  const embedImage = embedded.locator("img.embed-image");
  await eventually(async () => expect(await embedImage.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(640), 8000);
  await eventually(async () => expect(await insideLog(page, embedded)).toBe(true));
  await eventually(async () => expect(await atEnd(page)).toBe(true));
  await suite.shot(page, "jumps-6b-embed-at-bottom");

  // And a text message after it: still at the bottom.
  await say(suite.server, other, channelId, "and one more line below the picture");
  const last = messageWith(page, "and one more line below the picture");
  await last.waitFor();
  await eventually(async () => expect(await insideLog(page, last)).toBe(true));
  await page.context().close();
});

test("a whole-server search finds a message of another channel; choosing it opens that channel there, highlighted", async () => {
  const page = await open(reader);
  await messageWith(page, /filler message|answering that old question now|one more line/).first().waitFor();
  const scope = page.getByRole("combobox", { name: "Search in", exact: true });
  expect(await scope.locator("option").allTextContents()).toEqual(["This channel", "Whole server"]);
  const search = page.getByRole("searchbox", { name: "Search", exact: true });
  // This channel alone has no quasar.
  await search.fill("quasar");
  await search.press("Enter");
  await page.getByRole("complementary", { name: "Message search" }).getByText("No results", { exact: true }).waitFor();
  await scope.selectOption({ label: "Whole server" });
  await search.press("Enter");
  const result = page.getByRole("list", { name: "Search results", exact: true }).getByRole("listitem");
  await eventually(async () => expect(await result.count()).toBe(1));
  expect(await result.textContent()).toContain("#random");
  await result.getByRole("button", { name: "Jump to message" }).click();
  await page.waitForURL(`**/channels/${serverId}/${randomId}`);
  const shown = messageWith(page, "a quasar over the random channel");
  await shown.waitFor();
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  await eventually(async () => expect(await insideLog(page, shown)).toBe(true));
  // The results stay beside the log in the channel they led to.
  expect(await result.count()).toBe(1);
  await suite.shot(page, "jumps-7-server-search", { phone: true });
  await page.context().close();
});

test("search in a DM finds its message and jumps to it", async () => {
  const dm = await suite.server.api("POST", `/api/v1/dm/channels/${other.id}`, { token: reader.token });
  expect(dm.status).toBeLessThan(300);
  await suite.server.api("POST", `/api/v1/dm/${other.id}/messages`, { token: reader.token, body: { content: "remember the lighthouse keeper" } });
  for (let i = 1; i <= 80; i++) await suite.server.api("POST", `/api/v1/dm/${reader.id}/messages`, { token: other.token, body: { content: `dm chatter ${i}` } });
  const page = await open(reader, `/channels/@me/${dm.body.id}`);
  await messageWith(page, "dm chatter 80").waitFor();
  // No "Search in" choice in a DM: it searches the DM.
  expect(await page.getByRole("combobox", { name: "Search in" }).count()).toBe(0);
  const search = page.getByRole("searchbox", { name: "Search", exact: true });
  await search.fill("lighthouse");
  await search.press("Enter");
  const result = page.getByRole("list", { name: "Search results", exact: true }).getByRole("listitem");
  await eventually(async () => expect(await result.count()).toBe(1));
  await result.getByRole("button", { name: "Jump to message" }).click();
  const shown = messageWith(page, "remember the lighthouse keeper");
  await eventually(async () => expect(await shown.getAttribute("aria-current")).toBe("true"));
  await eventually(async () => expect(await insideLog(page, shown)).toBe(true));
  await suite.shot(page, "jumps-8-dm-search");
  await page.context().close();
});
