/**
 * The web app behind the documented Caddy configuration (docs/operations.md, "Behind a reverse
 * proxy", run by test/cluster/caddy.ts with Caddy's internal CA): the page, its assets and the
 * API over HTTPS, and the gateway over WSS through Caddy's WebSocket proxying, so a message
 * sent by someone else arrives live. Chromium does not know Caddy's local CA, so this context
 * accepts its certificate (`ignoreHTTPSErrors`); everything else is what a person's browser does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { WebSocket as PageSocket } from "playwright-core";
import { startCaddy, type Caddy } from "../../cluster/caddy.ts";
import { say } from "../../helpers/bot-platform.ts";
import { addMember, createServer } from "../../helpers/community.ts";
import { uniqueName } from "../../helpers/server.ts";
import { messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
let caddy: Caddy;
beforeAll(async () => {
  suite = await startWebSuite();
  caddy = await startCaddy(Number(new URL(suite.server.url).port));
}, 30_000);
afterAll(async () => {
  await caddy?.stop();
  await suite.stop();
});

test("through Caddy over HTTPS: the page loads, the gateway connects over WSS and a message arrives live", async () => {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, "Behind Caddy");
  const member = await suite.server.register(uniqueName("member"));
  await addMember(suite.server, serverId, member);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);

  const context = await suite.browser.newContext({ baseURL: caddy.url, ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 }, locale: "en-US", timezoneId: "UTC", colorScheme: "dark" });
  try {
    await context.addInitScript((value: string) => localStorage.setItem("hearth.session", value), JSON.stringify({ token: member.token, user: member.user }));
    const page = await context.newPage();
    const sockets: PageSocket[] = [];
    page.on("websocket", (socket) => sockets.push(socket));
    const answers: string[] = [];
    page.on("response", (response) => answers.push(response.url()));

    await page.goto(`/channels/${serverId}/${general!.id}`);
    expect(new URL(page.url()).origin).toBe(caddy.url);
    await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();

    await say(suite.server, owner, general!.id, "Hello through the proxy");
    await messageWith(page, "Hello through the proxy").waitFor();
    // The gateway went through Caddy as a WebSocket over TLS, not another origin or long-polling only.
    const gateway = sockets.filter((socket) => socket.url().includes("/socket.io/"));
    expect(gateway.length).toBeGreaterThan(0);
    expect(gateway.every((socket) => socket.url().startsWith(`${caddy.url.replace("https:", "wss:")}/socket.io/`))).toBe(true);
    expect(gateway.some((socket) => !socket.isClosed())).toBe(true);
    // Every request of the page went to Caddy's https:// origin.
    expect(answers.filter((url) => !url.startsWith(caddy.url) && !url.startsWith("data:") && !url.startsWith("blob:"))).toEqual([]);

    // And the member's own message goes the other way.
    const box = page.getByRole("textbox", { name: "Message #general", exact: true });
    await box.fill("Answered over WSS");
    await box.press("Enter");
    await messageWith(page, "Answered over WSS").waitFor();
    await suite.shot(page, "through-caddy", { phone: true });
  } finally {
    await context.close();
  }
}, 60_000);
