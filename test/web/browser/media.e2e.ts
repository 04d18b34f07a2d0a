/**
 * Media in messages (docs/web.md "Media"): chosen files show a thumbnail (images) or their icon,
 * name and size before sending, each removable; a pasted image is staged and sent too; images open
 * in the viewer (a lazy chunk; named by the file name, arrow keys between the message's images,
 * "Open original", "Close" and Escape, focus back on the image); video and audio play inline; the composer counts the
 * characters left near the limit and refuses a message over it before sending.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { eventually, isFocused, messageWith, solidPng, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
let sender: TestUser;
let reader: TestUser;
let path: string;
let channelId: string;

beforeAll(async () => {
  suite = await startWebSuite();
  sender = await suite.server.register(uniqueName("sender"));
  reader = await suite.server.register(uniqueName("viewer"));
  const serverId = await createServer(suite.server, sender, "Gallery");
  await addMember(suite.server, serverId, reader);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  channelId = general!.id;
  path = `/channels/${serverId}/${channelId}`;
});
afterAll(() => suite.stop());

const png = (name: string, rgb: [number, number, number]) => ({ name, mimeType: "image/png", buffer: Buffer.from(solidPng(120, 80, rgb)) });

test("staged files show thumbnails or icons and can be removed; the images open in the viewer and the arrows move between them", async () => {
  const { page } = await suite.person({ user: sender, path });
  const composer = page.getByRole("textbox", { name: /^Message/ });
  await composer.waitFor();
  // What the list shows the moment its three items are first in the page: the thumbnails are
  // there from the first paint, not the file icon first.
  await page.evaluate(`new MutationObserver((_, observer) => {
    const items = document.querySelectorAll('[aria-label="Files to send"] > li');
    if (items.length < 3) return;
    window.firstStaged = [...items].map((li) => (li.querySelector("img.staged-thumb") ? "thumb" : "icon")).join(" ");
    observer.disconnect();
  }).observe(document.body, { childList: true, subtree: true })`);
  await page.locator('input[type="file"]').setInputFiles([png("red.png", [224, 49, 49]), png("blue.png", [76, 110, 245]), { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("plain notes") }]);
  const staged = page.getByRole("list", { name: "Files to send", exact: true });
  await staged.getByRole("listitem").nth(2).waitFor();
  expect(await page.evaluate("window.firstStaged")).toBe("thumb thumb icon");
  expect(await staged.locator("img.staged-thumb").count()).toBe(2);
  expect(await staged.getByRole("listitem").nth(2).textContent()).toContain("notes.txt");
  await suite.shot(page, "media-1-staged");
  await suite.shot(page, "media-1-staged", { phone: true });
  await staged.getByRole("button", { name: "Remove notes.txt", exact: true }).click();
  expect(await staged.getByRole("listitem").count()).toBe(2);
  await composer.fill("two colours");
  await composer.press("Enter");

  const viewer = await suite.person({ user: reader, path });
  const scripts: string[] = [];
  viewer.page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  const message = messageWith(viewer.page, "two colours");
  const red = message.getByRole("button", { name: "Open red.png", exact: true });
  await red.waitFor();
  // The viewer is a chunk of its own, fetched when an image is first opened.
  const isViewer = (path: string) => /\/assets\/image-viewer-[^/]*\.js$/.test(path);
  expect(scripts.some(isViewer)).toBe(false);
  await red.click();
  let dialog = viewer.page.getByRole("dialog", { name: "red.png", exact: true });
  await dialog.waitFor();
  expect(await dialog.getByRole("img", { name: "red.png", exact: true }).count()).toBe(1);
  expect(await dialog.getByRole("link", { name: "Open original", exact: true }).getAttribute("href")).toMatch(/^\/uploads\//);
  await suite.shot(viewer.page, "media-2-viewer");
  await suite.shot(viewer.page, "media-2-viewer", { phone: true });
  await viewer.page.keyboard.press("ArrowRight");
  dialog = viewer.page.getByRole("dialog", { name: "blue.png", exact: true });
  await dialog.waitFor();
  await viewer.page.keyboard.press("ArrowLeft");
  await viewer.page.getByRole("dialog", { name: "red.png", exact: true }).waitFor();
  expect(scripts.filter(isViewer).length).toBe(1);
  await viewer.page.getByRole("dialog", { name: "red.png", exact: true }).getByRole("button", { name: "Close", exact: true }).click();
  await eventually(async () => expect(await viewer.page.getByRole("dialog").count()).toBe(0));
  expect(await isFocused(red)).toBe(true);
  // Escape closes it too, the focus back on the image that opened it.
  const blue = message.getByRole("button", { name: "Open blue.png", exact: true });
  await blue.press("Enter");
  await viewer.page.getByRole("dialog", { name: "blue.png", exact: true }).waitFor();
  await viewer.page.keyboard.press("Escape");
  await eventually(async () => expect(await viewer.page.getByRole("dialog").count()).toBe(0));
  expect(await isFocused(blue)).toBe(true);
});

test("video and audio attachments play inline; a pasted image is staged, then uploaded with the message", async () => {
  // The first bytes of each format (an EBML header, an Ogg page), as a file's type is judged by them too.
  const files = [["clip.webm", "video/webm", [0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0]], ["tune.ogg", "audio/ogg", [0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0]]] as const;
  for (const [name, mime, bytes] of files) {
    const form = new FormData();
    form.append("files", new File([new Uint8Array(bytes)], name, { type: mime }));
    form.append("content", `media ${name}`);
    const res = await suite.server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: sender.token, raw: form });
    expect(res.status).toBe(201);
  }
  const { page } = await suite.person({ user: reader, path });
  await messageWith(page, "media clip.webm").locator("video[controls]").waitFor();
  await messageWith(page, "media tune.ogg").locator("audio[controls]").waitFor();
  expect(await messageWith(page, "media clip.webm").getByRole("link", { name: /clip\.webm/ }).count()).toBe(1);

  const composer = page.getByRole("textbox", { name: /^Message/ });
  await composer.focus();
  // A paste of an image, as the clipboard hands it over (a string: this file has no DOM types).
  const pasted = Buffer.from(solidPng(40, 40, [47, 158, 68])).toString("base64");
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    const bytes = Uint8Array.from(atob("${pasted}"), (c) => c.charCodeAt(0));
    data.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
    document.activeElement.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  })()`);
  await page.getByRole("list", { name: "Files to send", exact: true }).getByRole("button", { name: "Remove pasted.png", exact: true }).waitFor();
  // Sent, it is uploaded with the message and shown in it.
  await composer.fill("pasted in");
  await composer.press("Enter");
  await messageWith(page, "pasted in").getByRole("button", { name: "Open pasted.png", exact: true }).waitFor();
  const stored = await suite.server.api("GET", `/api/v1/messages/${channelId}?limit=5`, { token: reader.token });
  const sentPaste = (stored.body as { content: string; attachments: { original_name: string; mime_type: string }[] }[]).find((m) => m.content === "pasted in");
  expect(sentPaste?.attachments.map((a) => `${a.original_name} ${a.mime_type}`)).toEqual(["pasted.png image/png"]);
});

test("near the limit the composer counts what is left; over it, it refuses before sending and says why", async () => {
  const { page } = await suite.person({ user: sender, path });
  const composer = page.getByRole("textbox", { name: /^Message/ });
  await composer.fill("a".repeat(3900));
  await page.getByText("100 characters left", { exact: true }).waitFor();
  expect(await composer.getAttribute("aria-describedby")).toMatch(/^composer-count-/);
  await composer.fill("b".repeat(4010));
  await page.getByText("10 characters over the limit", { exact: true }).waitFor();
  await suite.shot(page, "media-3-over-limit");
  await composer.press("Enter");
  await page.getByRole("alert").getByText("This message is 4,010 characters long, over the limit of 4,000: shorten it by 10 characters to send it.").waitFor();
  const sent = await suite.server.api("GET", `/api/v1/messages/${channelId}?limit=5`, { token: sender.token });
  expect((sent.body as { content: string }[]).some((m) => m.content.startsWith("bbbb"))).toBe(false);
  await composer.press("Backspace");
  await composer.fill("b".repeat(4000));
  await page.getByText("0 characters left", { exact: true }).waitFor();
});
