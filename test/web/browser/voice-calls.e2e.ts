/**
 * Issue 17, voice point 5 in the browser: DM calls ring (`dm:call-incoming`), are answered or
 * declined, and carry the voices over WebRTC like a voice room.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createServer } from "../../helpers/community.ts";
import { eventually, startWebSuite, type Person, type WebSuite } from "./harness.ts";
import { closePages, diagnostics } from "./voice-helpers.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite({ media: true });
});
afterAll(() => suite.stop());
afterEach(() => closePages(suite));

/**
 * Two people who share a server (so they may message and call), the caller on their DM; with
 * `otherDm`, the caller also has a DM with a third member (`other`: their username).
 */
async function pair(otherDm = false): Promise<{ caller: Person; callee: Person; other?: string }> {
  const callerUser = await suite.server.register();
  const calleeUser = await suite.server.register();
  const serverId = await createServer(suite.server, callerUser, "Callers");
  await addMember(suite.server, serverId, calleeUser);
  let other: string | undefined;
  if (otherDm) {
    const third = await suite.server.register();
    await addMember(suite.server, serverId, third);
    const made = await suite.server.api("POST", `/api/v1/dm/channels/${third.id}`, { token: callerUser.token });
    expect(made.status).toBeLessThan(300);
    other = third.username;
  }
  const dm = await suite.server.api("POST", `/api/v1/dm/channels/${calleeUser.id}`, { token: callerUser.token });
  expect(dm.status).toBeLessThan(300);
  const caller = await suite.person({ user: callerUser, path: `/channels/@me/${dm.body.id}` });
  const callee = await suite.person({ user: calleeUser, path: "/channels/@me" });
  return { caller, callee, other };
}

const callBar = (page: Page) => page.getByRole("region", { name: "Call", exact: true });
const ringing = (page: Page) => page.getByRole("alertdialog", { name: "Incoming call" });

test("a DM call rings, is answered, and both hear each other over WebRTC; hanging up ends it for both", async () => {
  const { caller, callee } = await pair();
  await caller.page.getByRole("button", { name: "Start a call" }).click();
  await callBar(caller.page).getByText("Calling…").waitFor();
  // One call at a time: the button says why it is disabled (its title, the accessible description).
  const start = caller.page.getByRole("button", { name: "Start a call" });
  expect(await start.isDisabled()).toBe(true);
  expect(await start.getAttribute("title")).toBe("You are in a call here");

  await ringing(callee.page).getByText(`${caller.username} is calling you`).waitFor();
  await suite.shot(callee.page, "call-1-incoming");
  await ringing(callee.page).getByRole("button", { name: "Answer" }).click();
  await ringing(callee.page).waitFor({ state: "detached" });

  for (const [person, other] of [
    [caller, callee],
    [callee, caller],
  ] as const) {
    await callBar(person.page).getByText("In a call").waitFor();
    await callBar(person.page).getByRole("list", { name: "In the call" }).getByText(other.username).waitFor();
    // Connected peer to peer, and the other's (fake, beeping) microphone is heard.
    await eventually(async () => {
      const d = await diagnostics(person.page);
      expect(Object.values(d.call.peers)).toEqual(["connected"]);
      expect(d.voice.audio.speakers[`call:${other.id}`]?.level).toBeGreaterThan(0.005);
    }, 20_000);
    await callBar(person.page).getByRole("img", { name: "Speaking" }).waitFor({ timeout: 15_000 });
  }
  await suite.shot(caller.page, "call-2-connected");

  await callBar(callee.page).getByRole("button", { name: "Hang up" }).click();
  await callBar(caller.page).getByRole("status").filter({ hasText: "The call ended." }).waitFor();
  expect((await diagnostics(caller.page)).call.call).toBeNull();
});

test("a DM call can be declined: the caller is told", async () => {
  const { caller, callee, other } = await pair(true);
  await caller.page.getByRole("button", { name: "Start a call" }).click();
  await callBar(caller.page).getByText("Calling…").waitFor();
  // In another conversation during the call, "Start a call" says why it is disabled.
  await caller.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: other! }).click();
  await caller.page.getByRole("textbox", { name: `Message @${other!}`, exact: true }).waitFor();
  const start = caller.page.getByRole("button", { name: "Start a call" });
  expect(await start.isDisabled()).toBe(true);
  expect(await start.getAttribute("title")).toBe("Hang up your current call first");
  await ringing(callee.page).getByRole("button", { name: "Decline" }).click();
  await ringing(callee.page).waitFor({ state: "detached" });
  await callBar(caller.page).getByRole("status").filter({ hasText: "The call was declined." }).waitFor();
  await suite.shot(caller.page, "call-3-declined");
  expect((await diagnostics(callee.page)).call).toMatchObject({ incoming: null, call: null });
});

test("a page whose gateway connects while the call rings still rings, and answering connects the call", async () => {
  const { caller, callee } = await pair();
  // The callee opens the app in a new tab instead, its WebSocket held back until the ring has gone out.
  await callee.page.close();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await callee.context.routeWebSocket(/\/socket\.io\//, async (socket) => {
    await released;
    socket.connectToServer();
  });
  const page = await callee.context.newPage();
  await page.goto("/channels/@me");
  await page.getByRole("navigation", { name: "Channels", exact: true }).waitFor();
  await caller.page.getByRole("button", { name: "Start a call" }).click();
  await callBar(caller.page).getByText("Calling…").waitFor();
  release();
  await ringing(page).getByText(`${caller.username} is calling you`).waitFor();
  await suite.shot(page, "call-4-rung-late", { phone: true });
  await ringing(page).getByRole("button", { name: "Answer" }).click();
  await callBar(caller.page).getByText("In a call").waitFor();
  await callBar(page).getByText("In a call").waitFor();
  await page.close();
});
