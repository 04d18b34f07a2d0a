/**
 * Issue 44 point 3, Discord's markdown as a reader meets it: quotes, headings, subtext, lists, a
 * spoiler revealed by pressing it, a masked link that names its host before leaving, timestamps
 * in the reader's locale, and a code block highlighted once the highlighter's chunk has loaded
 * (and not before: it is no part of the first load).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "../../helpers/community.ts";
import { seriousViolations } from "./axe.ts";
import { eventually, isFocused, messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

const inFiveMinutes = () => Math.floor(Date.now() / 1000) + 5 * 60 + 30;

const CONTENT = (soon: number) =>
  [
    "# Release day",
    "## What changed",
    "### Small things",
    "-# posted by the release bot",
    "> Quoted from the **changelog**",
    "> and its second line",
    "- Faster *search*",
    "  - across servers",
    "- Spoiler: ||the cake is a lie||",
    "1. Read the [release notes](https://docs.example.org/notes?v=2)",
    "2. Upgrade at <t:1700000000:f>, or <t:" + soon + ":R>",
    "[do not click](javascript:alert(1)) stays text; so does <t:abc>",
    "```ts",
    "const answer: number = 42; // the answer",
    "```",
    ">>> Everything after this",
    "is one quote",
  ].join("\n");

test("every markdown form, a spoiler revealed, a masked link's confirmation, a timestamp and lazy highlighting", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Markdown Town");
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const sent = await suite.server.api("POST", `/api/v1/messages/${general!.id}`, { token: owner.token, body: { content: CONTENT(inFiveMinutes()) } });
  expect(sent.status).toBe(201);

  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${general!.id}` });
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  const message = messageWith(page, "Release day");
  await message.waitFor();

  // Headings sit below the page's own: # is h3, ## h4, ### h5.
  await message.getByRole("heading", { level: 3, name: "Release day", exact: true }).waitFor();
  await message.getByRole("heading", { level: 4, name: "What changed", exact: true }).waitFor();
  await message.getByRole("heading", { level: 5, name: "Small things", exact: true }).waitFor();
  expect(await message.locator("small.md-subtext").textContent()).toBe("posted by the release bot");

  const quotes = message.locator("blockquote");
  expect(await quotes.count()).toBe(2);
  expect(await quotes.nth(0).textContent()).toBe("Quoted from the changelog\nand its second line");
  expect(await quotes.nth(0).locator("strong").textContent()).toBe("changelog");
  expect(await quotes.nth(1).textContent()).toBe("Everything after this\nis one quote");

  const lists = message.getByRole("list");
  // The bullet list, its nested list, and the numbered list.
  expect(await lists.count()).toBe(3);
  const bullets = message.locator("ul.md-list").first();
  expect(await bullets.locator(":scope > li").count()).toBe(2);
  expect(await bullets.locator(":scope > li").first().locator("ul > li").textContent()).toBe("across servers");
  expect(await message.locator("ol.md-list > li").count()).toBe(2);

  // The spoiler: a button named "Spoiler", its text hidden from everyone until pressed.
  const spoiler = message.getByRole("button", { name: "Spoiler", exact: true });
  await spoiler.waitFor();
  expect(await message.getByText("the cake is a lie").isVisible()).toBe(false);
  // Hidden, not blurred: out of the accessibility tree and not selectable.
  expect(await page.evaluate("(({ visibility, userSelect }) => `${visibility} ${userSelect}`)(getComputedStyle(document.querySelector('.spoiler-text')))")).toBe("hidden none");
  expect(await message.getByRole("button", { name: "Spoiler", exact: true }).textContent()).toBe("the cake is a lie");
  expect(await spoiler.ariaSnapshot()).toBe('- button "Spoiler"');
  await suite.shot(page, "markdown", { phone: true });
  await spoiler.press("Enter");
  await message.getByText("the cake is a lie").waitFor({ state: "visible" });
  expect(await message.getByRole("button", { name: "Spoiler" }).count()).toBe(0);

  // Timestamps in the reader's locale (en-US, UTC here); the relative one says how far off it is.
  await message.getByText("November 14, 2023 at 10:13 PM", { exact: true }).waitFor();
  await message.getByText("in 6 minutes", { exact: true }).or(message.getByText("in 5 minutes", { exact: true })).waitFor();
  expect(await message.locator("time.timestamp").first().getAttribute("title")).toBe("Tuesday, November 14, 2023 at 10:13 PM");
  expect(await message.getByText("<t:abc>", { exact: false }).count()).toBe(1);

  // Only http(s) addresses become links: the javascript: one stays text.
  expect(await message.getByRole("link", { name: "do not click" }).count()).toBe(0);
  await message.getByText("[do not click](javascript:alert(1))", { exact: false }).waitFor();

  // The masked link asks first, naming the host; Cancel stays, "Go to site" opens it.
  await page.context().route("https://docs.example.org/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>Notes</title>" }));
  const link = message.getByRole("link", { name: "release notes", exact: true });
  expect(await link.getAttribute("href")).toBe("https://docs.example.org/notes?v=2");
  await link.click();
  const dialog = page.getByRole("dialog", { name: "Leave Hearth?", exact: true });
  await dialog.getByText("You are going to docs.example.org").waitFor();
  // One dialog for the app: the phone's layout renders the log anew, and the question stays.
  await suite.shot(page, "markdown-leave", { phone: true });
  await dialog.getByText("You are going to docs.example.org").waitFor();
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await dialog.waitFor({ state: "detached" });
  await link.click();
  const [popup] = await Promise.all([page.waitForEvent("popup"), dialog.getByRole("button", { name: "Go to site", exact: true }).click()]);
  await popup.waitForLoadState();
  expect(popup.url()).toBe("https://docs.example.org/notes?v=2");
  await popup.close();
  await dialog.waitFor({ state: "detached" });
  // The focus is back on the link the dialog asked about.
  await eventually(async () => expect(await isFocused(link)).toBe(true));

  // The code block: highlighted token spans once the highlighter's own chunk has loaded.
  const code = message.locator("pre.code-block[data-language=ts] code");
  await code.locator("span.hljs-keyword", { hasText: "const" }).waitFor();
  expect(await code.locator("span.hljs-comment").textContent()).toBe("// the answer");
  expect(await code.textContent()).toBe("const answer: number = 42; // the answer");
  expect(scripts.some((path) => /\/assets\/highlight-[^/]*\.js$/.test(path))).toBe(true);
  await suite.shot(page, "markdown-revealed", { phone: true });
  // Every form's text passes axe (colour contrast included) in both themes: the light theme sets
  // the same variables, so quotes, subtext, timestamps, links and the code's tokens stay legible.
  expect(await seriousViolations(page)).toEqual([]);
  await page.evaluate("document.documentElement.dataset.theme = 'light'");
  expect(await seriousViolations(page)).toEqual([]);
  await suite.shot(page, "markdown-light");
  await page.evaluate("document.documentElement.dataset.theme = 'dark'");
});

test("a reply's quote of a markdown message shows it flat, with nothing to press inside", async () => {
  const owner = await suite.server.register();
  const serverId = await createServer(suite.server, owner, "Preview Town");
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  const original = await suite.server.api<{ id: string }>("POST", `/api/v1/messages/${general!.id}`, {
    token: owner.token,
    body: { content: "# Plans\n- see [the doc](https://docs.example.org)\n- ||secret||" },
  });
  await suite.server.api("POST", `/api/v1/messages/${general!.id}`, { token: owner.token, body: { content: "Agreed", reply_to: original.body.id } });
  const { page } = await suite.person({ user: owner, path: `/channels/${serverId}/${general!.id}` });
  const quote = messageWith(page, "Agreed").getByRole("button", { name: /^Jump to the replied message/ });
  await quote.waitFor();
  expect(await quote.locator("a, button, h3, ul, blockquote").count()).toBe(0);
  expect(await quote.locator(".spoiler-text").count()).toBe(1);
});
