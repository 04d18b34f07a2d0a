/**
 * The browser suite's harness: a real Hearth (test/helpers/server.ts, port 0, in-memory) that
 * serves the web app, Debian's Chromium driven by playwright-core (never a downloaded browser),
 * people logged in as separate browser contexts, and screenshots to test/web/screenshots/
 * (not committed). Files here end in .e2e.ts so `bun test test/` (npm test) does not pick them up.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import type { Config } from "../../../src/config.ts";
import { startCoturn, type Coturn } from "../../helpers/coturn.ts";
import { startJanus, type Janus } from "../../helpers/janus.ts";
import { startServer, type TestServer, type TestUser } from "../../helpers/server.ts";
import { eventually as eventuallyTruthy } from "../../helpers/wait.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The flags of shared/DESIGN.md; playwright gives every launch a fresh profile directory. */
export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/**
 * Voice pages: Chromium's fake microphone (a beep) granted without a prompt, and audio that
 * may start without a click (a ringing call).
 */
export const MEDIA_FLAGS = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"];
const SCREENSHOTS = join(import.meta.dir, "..", "screenshots");

export interface Person extends TestUser {
  context: BrowserContext;
  page: Page;
}

/**
 * The window a person uses: a desktop (1280x800, a mouse), a tablet (768x1024, touch) or a phone
 * (390x844, touch and a mobile viewport), for the layouts of docs/web.md "Phone and tablet".
 */
export type Device = "desktop" | "tablet" | "phone";
const DEVICES: Record<Device, { viewport: { width: number; height: number }; hasTouch: boolean; isMobile: boolean }> = {
  desktop: { viewport: { width: 1280, height: 800 }, hasTouch: false, isMobile: false },
  tablet: { viewport: { width: 768, height: 1024 }, hasTouch: true, isMobile: false },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
};

export interface WebSuite {
  server: TestServer;
  /** The suite's coturn (with `media`). */
  coturn: Coturn | null;
  /** The suite's first Janus (with `janus`). */
  janus: Janus | null;
  /** Every Janus instance of the suite, in JANUS_URL's order. */
  januses: Janus[];
  browser: Browser;
  /** A new account, logged in through its stored session, on `path` (default: the DM home). */
  person(options?: { name?: string; path?: string; user?: TestUser; device?: Device }): Promise<Person>;
  /** A new browser context with nobody logged in. */
  visitor(path: string): Promise<{ context: BrowserContext; page: Page }>;
  /**
   * Saves a screenshot of the page as `<name>.png` for a person to look at (`fullPage`: the whole
   * scrolled page; `phone`: also `<name>-phone.png` at 390x844, then the window's size again).
   */
  /**
   * A screenshot, and with `phone` one at 390x844 too; `drawer` opens the phone's navigation
   * drawer for it, when what the shot is about is in the channel list.
   */
  shot(page: Page, name: string, options?: { fullPage?: boolean; phone?: boolean; drawer?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface WebSuiteOptions {
  /**
   * Chromium's fake microphone and permission prompt, and a coturn of the suite's own
   * (test/helpers/coturn.ts, on the media namespace's HEARTH_MEDIA_IP under `npm run test:media`)
   * that every peer connection of the page goes through, relay only (ICE_TRANSPORT_POLICY=relay):
   * WebRTC is tested as it runs between homes.
   */
  media?: boolean;
  /**
   * A Janus of the suite's own (test/helpers/janus.ts) that the server puts voice rooms' media
   * through (a number: that many instances, one JANUS_SECRET). Needs `media`, and so `npm run
   * test:media` (Janus gathers no ICE candidate on loopback: it runs on the namespace's veth address).
   */
  janus?: boolean | number;
  /** The server's configuration beyond the test defaults. */
  server?: Partial<Config>;
  /** A script run in every page of every person before the app's own (Playwright's addInitScript). */
  initScript?: string;
}

export async function startWebSuite(options: WebSuiteOptions = {}): Promise<WebSuite> {
  if (options.janus && !options.media) throw new Error("startWebSuite: `janus` needs `media` (the pages reach Janus through the suite's coturn)");
  const coturn = options.media ? await startCoturn() : null;
  const ice: Partial<Config> = coturn ? { ice: { turnUrls: [coturn.url], turnSecret: coturn.secret, stunUrls: [], ttlSeconds: 3600, transportPolicy: "relay" } } : {};
  // Instances share JANUS_SECRET, as a host's do.
  const januses: Janus[] = [];
  const secret = `janus-test-secret-${crypto.randomUUID()}`;
  for (let i = 0; i < (options.janus === true ? 1 : options.janus || 0); i++) januses.push(await startJanus({ secret }));
  const janus = januses[0] ?? null;
  const media: Partial<Config> = janus ? { janus: { urls: januses.map((j) => j.url), adminUrls: januses.map((j) => j.adminUrl), secret } } : {};
  const server = await startServer({ ...ice, ...media, ...options.server });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: options.media ? [...CHROMIUM_FLAGS, ...MEDIA_FLAGS] : CHROMIUM_FLAGS });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const contexts: BrowserContext[] = [];

  async function newContext(device: Device = "desktop"): Promise<BrowserContext> {
    // A system set to dark: the app follows it until a person chooses (a test that needs light emulates it).
    const context = await browser.newContext({ baseURL: server.url, ...DEVICES[device], locale: "en-US", timezoneId: "UTC", colorScheme: "dark" });
    if (options.initScript) await context.addInitScript(options.initScript);
    contexts.push(context);
    return context;
  }

  function watch(page: Page): void {
    page.on("pageerror", (error) => console.error(`[page error] ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/Failed to load resource/.test(message.text())) console.error(`[console] ${message.text()}`);
    });
  }

  return {
    server,
    coturn,
    janus,
    januses,
    browser,
    async person({ name, path = "/channels/@me", user, device } = {}) {
      const account = user ?? (await server.register(name));
      const context = await newContext(device);
      const session = JSON.stringify({ token: account.token, user: account.user });
      await context.addInitScript((value: string) => {
        if (!sessionStorage.getItem("seeded")) {
          localStorage.setItem("hearth.session", value);
          sessionStorage.setItem("seeded", "1");
        }
      }, session);
      const page = await context.newPage();
      watch(page);
      await page.goto(path);
      return { ...account, context, page };
    },
    async visitor(path) {
      const context = await newContext();
      const page = await context.newPage();
      watch(page);
      await page.goto(path);
      return { context, page };
    },
    async shot(page, name, options = {}) {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? false });
      const size = page.viewportSize();
      if (!options.phone || !size) return;
      await page.setViewportSize({ width: 390, height: 844 });
      await rendered(page);
      if (options.drawer) {
        await page.getByRole("button", { name: "Open navigation", exact: true }).click();
        await page.getByRole("dialog", { name: "Navigation" }).waitFor();
        await rendered(page);
      }
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`) });
      if (options.drawer) await page.keyboard.press("Escape");
      await page.setViewportSize(size);
      await rendered(page);
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await server.stop();
      for (const instance of januses) await instance.stop();
      await coturn?.stop();
    },
  };
}

/** Two frames: a new window size has reached the layout signal and the page has re-rendered for it. */
const rendered = (page: Page) => page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))");

/**
 * Retries `check` (which throws while not yet true, as an `expect` does) until it passes or
 * `timeoutMs` ends, then fails with what `check` last threw: test/helpers/wait.ts's `eventually`
 * with a page's pace and a browser's longer deadline.
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 8000): Promise<T> {
  const passed = await eventuallyTruthy(async () => ({ value: await check() }), "the page to show it", { timeoutMs, intervalMs: 50 });
  return passed.value;
}

/** The message list of the page, and one message in it by its text. */
export const messageLog = (page: Page) => page.getByRole("log", { name: "Messages", exact: true });
export const messageWith = (page: Page, text: string | RegExp) => messageLog(page).getByRole("article").filter({ hasText: text });

/** The accessible names of the elements of `role` inside `scope`, in order, from Chromium's accessibility tree. */
export async function accessibleNames(scope: Locator, role: string): Promise<string[]> {
  const snapshot = await scope.ariaSnapshot();
  const names: string[] = [];
  for (const line of snapshot.split("\n")) {
    const match = new RegExp(`^\\s*- ${role} "((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (match) names.push(JSON.parse(`"${match[1]}"`));
  }
  return names;
}

/** Whether the page fits its width (nothing makes it scroll sideways, e.g. a long name). */
export const fitsWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth <= window.innerWidth") as Promise<boolean>;

/** Whether the element has the keyboard focus. */
export const isFocused = (locator: Locator) => locator.evaluate((el) => el.ownerDocument.activeElement === el);

/** A PNG of one colour, to upload as something a person can see (emoji, attachments, avatars). */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set([r, g, b], y * (1 + width * 3) + 1 + x * 3);
  }
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", new Uint8Array())];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    png.set(part, offset);
    offset += part.length;
  }
  return png;
}
