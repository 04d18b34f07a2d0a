/**
 * A dropped gateway connection (docs/web.md, "Reconnects"): the app asks to resume, so the
 * messages sent while it was away arrive as replayed events, in order, with nothing fetched again
 * over REST; a reconnect that cannot resume (the server closed the socket on purpose) reloads
 * the open channel over REST instead, as does `session:resync` (events missed while connected,
 * after a Redis outage in a cluster).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Socket } from "socket.io";
import { addMember, createServer } from "../../helpers/community.ts";
import { say } from "../../helpers/bot-platform.ts";
import { uniqueName, type TestUser } from "../../helpers/server.ts";
import { rooms } from "../../../src/domain/shared/events.ts";
import { eventually, messageLog, messageWith, startWebSuite, type WebSuite } from "./harness.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite();
});
afterAll(() => suite.stop());

async function twoPeople() {
  const owner = await suite.server.register(uniqueName("owner"));
  const serverId = await createServer(suite.server, owner, "Reconnects");
  const member = await suite.server.register(uniqueName("member"));
  await addMember(suite.server, serverId, member);
  const [general] = await suite.server.app.store.channels.listByServer(serverId);
  return { owner, member, channelId: general!.id, path: `/channels/${serverId}/${general!.id}` };
}

/** The user's sockets on the server (one node: the local Socket objects). */
async function socketsOf(user: TestUser): Promise<Socket[]> {
  return (await suite.server.app.io.in(rooms.user(user.id)).fetchSockets()) as unknown as Socket[];
}

/** The texts of the messages shown, oldest first. */
const shownTexts = (page: Page) => messageLog(page).getByRole("article").locator(".message-text").allTextContents();

/** Counts the page's REST reads of the channel's messages from now on. */
function countMessageReads(page: Page, channelId: string): { count: number } {
  const reads = { count: 0 };
  page.on("request", (request) => {
    if (request.method() === "GET" && new URL(request.url()).pathname.startsWith(`/api/v1/messages/${channelId}`)) reads.count++;
  });
  return reads;
}

const account = (page: Page) => page.getByRole("region", { name: "Your account" });

async function openChannel(user: TestUser, path: string): Promise<Page> {
  const { page } = await suite.person({ user, path });
  await page.getByRole("textbox", { name: "Message #general", exact: true }).waitFor();
  await account(page).getByText("Online").waitFor();
  return page;
}

test("a dropped connection resumes: the messages sent meanwhile appear in order, with no reload", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  await say(suite.server, member, channelId, "before the drop");
  const page = await openChannel(owner, path);
  await messageLog(page).getByText("before the drop").waitFor();
  const [before] = await socketsOf(owner);
  expect(before).toBeDefined();
  const reads = countMessageReads(page, channelId);

  // The transport closes under the socket (as a network drop or a node going away does).
  before!.conn.close();
  await account(page).getByText("Connecting…").waitFor();
  for (const text of ["missed one", "missed two", "missed three"]) await say(suite.server, member, channelId, text);
  await account(page).getByText("Online").waitFor({ timeout: 10_000 });

  await eventually(async () => expect(await shownTexts(page)).toEqual(["before the drop", "missed one", "missed two", "missed three"]));
  // Resumed: the same Socket.IO session, and the channel was not read again.
  const after = await socketsOf(owner);
  expect(after.map((socket) => socket.id)).toEqual([before!.id]);
  expect(after[0]!.recovered).toBe(true);
  expect(reads.count).toBe(0);

  // Still live after the resume, and the channel room is still joined.
  await say(suite.server, member, channelId, "live again");
  await eventually(async () => expect((await shownTexts(page)).at(-1)).toBe("live again"));
  await suite.shot(page, "reconnect-1-resumed");
});

test("a reconnect that cannot resume reloads the channel over REST and shows what was missed", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  const page = await openChannel(owner, path);
  const [before] = await socketsOf(owner);
  const reads = countMessageReads(page, channelId);

  // Closed on purpose by the server: no session is kept, the app connects again without one.
  before!.disconnect(true);
  await say(suite.server, member, channelId, "sent while closed");
  await eventually(async () => {
    const after = await socketsOf(owner);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).not.toBe(before!.id);
    expect(after[0]!.recovered).toBe(false);
  }, 10_000);
  await messageLog(page).getByText("sent while closed").waitFor();
  await eventually(() => expect(reads.count).toBeGreaterThan(0));
  await account(page).getByText("Online").waitFor();
});

test("session:resync (connected all along, events missed) reloads the open channel over REST and shows what was missed", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  await say(suite.server, member, channelId, "before the outage");
  const page = await openChannel(owner, path);
  await messageLog(page).getByText("before the outage").waitFor();
  const [socket] = await socketsOf(owner);
  // What a Redis outage between nodes does to a socket (docs/gateway.md, "Resync"): a message
  // whose event never reaches it, while it stays connected. One node has no Redis to lose, so
  // the socket is out of the channel's room for that one send.
  socket!.leave(rooms.channel(channelId));
  await say(suite.server, member, channelId, "missed while connected");
  socket!.join(rooms.channel(channelId));
  await say(suite.server, member, channelId, "heard live");
  await messageLog(page).getByText("heard live").waitFor();
  expect(await shownTexts(page)).toEqual(["before the outage", "heard live"]);
  const reads = countMessageReads(page, channelId);

  // What src/gateway/outage-recovery.ts sends once Redis is back.
  socket!.emit("session:resync", { reason: "cluster_outage", since: Math.floor(Date.now() / 1000) - 5 });
  await eventually(async () => expect(await shownTexts(page)).toEqual(["before the outage", "missed while connected", "heard live"]));
  expect(reads.count).toBeGreaterThan(0);
  // The same connection throughout.
  expect((await socketsOf(owner)).map((s) => s.id)).toEqual([socket!.id]);
});

test("a message sent after the page read the channel but before its gateway joined the rooms still shows", async () => {
  const { owner, member, channelId, path } = await twoPeople();
  await say(suite.server, owner, channelId, "read over REST");
  // A first page in the context, then the gateway held back for the next one: its WebSocket
  // reaches the server only when released (a slow proxy, a slow TLS handshake).
  const { context } = await suite.person({ user: member, path: "/channels/@me" });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await context.routeWebSocket(/\/socket\.io\//, async (socket) => {
    await released;
    socket.connectToServer();
  });
  const page = await context.newPage();
  await page.goto(path);
  await messageWith(page, "read over REST").waitFor();
  expect(await account(page).getByText("Online").count()).toBe(0);

  await say(suite.server, owner, channelId, "sent before the rooms were joined");
  release();
  await account(page).getByText("Online").waitFor();
  await messageWith(page, "sent before the rooms were joined").waitFor();
  expect(await shownTexts(page)).toEqual(["read over REST", "sent before the rooms were joined"]);
  await suite.shot(page, "reconnect-4-late-gateway", { phone: true });
});
