/**
 * Issue 45, point 7 in the browser (docs/audio.md, "Several nodes"; docs/web.md, "Voice"): the
 * page's voice room lost without the person leaving is joined again by itself, with a visible
 * "Reconnecting…" status. In cluster mode that is the room's home node dying, which the page
 * hears as `voice:error` (the room's node went away); here, on one node, the server's socket
 * says it, and the room is also lost another way: the server closes the page's socket (it takes
 * it out of voice), and the gateway connects again. The SDK's side of a real home node killed is
 * test/faults/voice-home-killed.fault.ts.
 */
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { rooms } from "../../../src/domain/shared/events.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";
import { closePages, controls, joinVoice, room, tile, voiceServer } from "./voice-helpers.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite({ media: true });
});
afterAll(async () => {
  await suite.stop();
});
afterEach(async () => {
  await closePages(suite);
});


/** Every text the page's "Reconnecting to voice" status shows, watched in the page: it may last only a moment. */
async function reconnectingStatuses(page: Page): Promise<string[]> {
  const statuses: string[] = [];
  await page.exposeFunction("noteStatus", (text: string) => statuses.push(text));
  // A string: this file is typed without the DOM.
  await page.evaluate(`new MutationObserver(() => {
    const status = document.querySelector('[role="status"][aria-label="Reconnecting to voice"]');
    if (status) window.noteStatus(status.textContent ?? "");
  }).observe(document.body, { subtree: true, childList: true })`);
  return statuses;
}

test("the room lost without leaving: Reconnecting… (an accessible status), then back in the same room by itself", async () => {
  const person = await suite.person({ name: "rejo" });
  const { serverId, channelId } = await voiceServer(suite, person);
  await joinVoice(person, serverId, channelId);
  await tile(person.page, `${person.username} (you)`).waitFor();
  const inRoom = async () => (await suite.server.app.io.in(rooms.voice(channelId)).fetchSockets()).length;
  await eventually(async () => expect(await inRoom()).toBe(1));

  const statuses = await reconnectingStatuses(person.page);
  const [socket] = await suite.server.app.io.in(rooms.user(person.id)).fetchSockets();
  socket!.disconnect(true);
  await person.page.getByRole("status", { name: "Reconnecting to voice" }).waitFor({ timeout: 5_000 }).catch(() => {});
  await suite.shot(person.page, "voice-rejoin-1-reconnecting");

  // Back in the room by itself: the server holds the page's new socket in it, the page shows its tile again.
  await eventually(async () => expect(await inRoom()).toBe(1), 15_000);
  await tile(person.page, `${person.username} (you)`).waitFor();
  await controls(person.page, "Lounge").waitFor();
  await room(person.page, "Lounge").getByRole("button", { name: "Join voice" }).waitFor({ state: "detached" });
  expect(statuses.some((text) => text.includes("Reconnecting…"))).toBe(true);
  await suite.shot(person.page, "voice-rejoin-2-back");
  await suite.shot(person.page, "voice-rejoin-3-back-phone", { phone: true });
  expect(await person.page.getByRole("status", { name: "Reconnecting to voice" }).count()).toBe(0);
});

test("the room's node went away (voice:error, cluster mode): Reconnecting…, then the page joins the same room again by itself", async () => {
  const person = await suite.person({ name: "rehome" });
  const { serverId, channelId } = await voiceServer(suite, person);
  await joinVoice(person, serverId, channelId);
  await tile(person.page, `${person.username} (you)`).waitFor();
  const [socket] = await suite.server.app.io.in(rooms.user(person.id)).fetchSockets();
  const joins: unknown[] = [];
  (socket as unknown as { onAny(listener: (event: string, payload: unknown) => void): void }).onAny((event, payload) => {
    if (event === "voice:join") joins.push(payload);
  });
  const statuses = await reconnectingStatuses(person.page);

  // What a member relayed to a home node that died is told (src/gateway/voice-proxy.ts); one
  // node has no other home to lose, so the server's socket says it here.
  socket!.emit("voice:error", { error: "The voice room's node went away; join again" });
  await eventually(() => expect(joins.map((payload) => (payload as { channelId: string }).channelId)).toEqual([channelId]), 10_000);
  await tile(person.page, `${person.username} (you)`).waitFor();
  await controls(person.page, "Lounge").waitFor();
  expect(statuses.some((text) => text.includes("Reconnecting…"))).toBe(true);
  expect(await person.page.getByRole("status", { name: "Reconnecting to voice" }).count()).toBe(0);
  // A room loss is not a refusal to show.
  expect(await person.page.getByText("The voice room's node went away").count()).toBe(0);
  expect((await suite.server.app.io.in(rooms.voice(channelId)).fetchSockets()).length).toBe(1);
});
