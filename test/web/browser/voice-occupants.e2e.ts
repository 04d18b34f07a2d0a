/**
 * Issue 43, point 7: voice channels in the channel list show who is in them, live, for everyone
 * who can see the channel. Someone outside the channel watches a member join (in their browser,
 * with Chromium's fake microphone), mute and leave; a meeting shows its speakers and counts its
 * audience; a reconnect that lost events shows the rooms as they are now.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { addMember, createVoiceChannel } from "../../helpers/community.ts";
import { rooms } from "../../../src/domain/shared/events.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";
import { closePages, controls, joinVoice, room, voiceServer } from "./voice-helpers.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite({ media: true });
});
afterAll(() => suite.stop());
afterEach(() => closePages(suite));

const channelList = (page: Page) => page.getByRole("navigation", { name: "Channels", exact: true });
const inChannel = (page: Page, name = "Lounge") => channelList(page).getByRole("list", { name: `In ${name}` });
const occupantNames = (page: Page, name = "Lounge") => inChannel(page, name).getByRole("listitem").evaluateAll((items) => items.map((li) => li.getAttribute("aria-label") ?? li.textContent));

test("someone outside a voice channel sees a member join it, mute and leave, in the channel list", async () => {
  const watcher = await suite.person({ name: "wanda" });
  const member = await suite.server.register("milo");
  const { serverId } = await voiceServer(suite, watcher, [member]);
  await watcher.page.goto(`/channels/${serverId}`);
  await channelList(watcher.page).getByRole("link", { name: "Lounge", exact: true }).waitFor();
  expect(await inChannel(watcher.page).count()).toBe(0);

  const joiner = await suite.person({ user: member });
  const { channelId } = { channelId: (await suite.server.app.store.channels.listByServer(serverId)).find((c) => c.name === "Lounge")!.id };
  await joinVoice(joiner, serverId, channelId);
  // The fake microphone beeps: "speaking" may come and go, the name is always first.
  await eventually(async () => expect((await occupantNames(watcher.page))[0]).toMatch(/^milo\b/));

  await controls(joiner.page).getByRole("button", { name: "Mute", exact: true }).click();
  await eventually(async () => expect(await occupantNames(watcher.page)).toEqual(["milo, muted"]));
  await suite.shot(watcher.page, "voice-occupants-1-muted", { phone: true, drawer: true });
  await controls(joiner.page).getByRole("button", { name: "Deafen", exact: true }).click();
  await eventually(async () => expect(await occupantNames(watcher.page)).toEqual(["milo, muted, deafened"]));
  // Both marks are drawn too, not only said.
  expect(await inChannel(watcher.page).locator(".voice-occupant-flags svg").count()).toBe(2);

  await room(joiner.page).getByRole("button", { name: "Leave voice", exact: true }).click();
  await eventually(async () => expect(await inChannel(watcher.page).count()).toBe(0));
});

test("a meeting lists its speakers and how many listen", async () => {
  const watcher = await suite.person({ name: "owen" });
  const listener = await suite.server.register("lia");
  const { serverId, channelId } = await voiceServer(suite, watcher, [listener]);
  const meetingId = await createVoiceChannel(suite.server, watcher, serverId, { name: "Town hall", is_meeting: true });
  await watcher.page.goto(`/channels/${serverId}/${channelId}`);
  await channelList(watcher.page).getByRole("link", { name: "Town hall", exact: true }).waitFor();

  // The listener in the audience, the watcher (the owner) on stage through its own socket.
  const audience = await suite.server.connect(listener.token);
  expect((await audience.emitWithAck("voice:join", { channelId: meetingId })).ok).toBe(true);
  await eventually(async () => expect(await occupantNames(watcher.page, "Town hall")).toEqual(["1 listening"]));
  const speaker = await suite.server.connect(watcher.token);
  expect((await speaker.emitWithAck("voice:join", { channelId: meetingId })).ok).toBe(true);
  expect((await speaker.emitWithAck("voice:set-meeting-role", { channelId: meetingId, userId: watcher.id, role: "speaker" })).ok).toBe(true);
  await eventually(async () => expect(await occupantNames(watcher.page, "Town hall")).toEqual(["owen, muted", "1 listening"]));
  expect((await speaker.emitWithAck("voice:state", { muted: false })).ok).toBe(true);
  expect((await speaker.emitWithAck("voice:speaking", { speaking: true })).ok).toBe(true);
  await eventually(async () => expect(await occupantNames(watcher.page, "Town hall")).toEqual(["owen, speaking", "1 listening"]));
  await suite.shot(watcher.page, "voice-occupants-2-meeting", { phone: true, drawer: true });
  audience.close();
  speaker.close();
});

test("after a reconnect that lost events, the channel list shows who is in voice now", async () => {
  const watcher = await suite.person({ name: "rhea" });
  const leaver = await suite.server.register("lev");
  const joiner = await suite.server.register("jo");
  const { serverId, channelId } = await voiceServer(suite, watcher, [leaver]);
  await addMember(suite.server, serverId, joiner);
  await watcher.page.goto(`/channels/${serverId}`);
  const leaving = await suite.server.connect(leaver.token);
  expect((await leaving.emitWithAck("voice:join", { channelId })).ok).toBe(true);
  await eventually(async () => expect(await occupantNames(watcher.page)).toEqual(["lev"]));

  let reloads = 0;
  watcher.page.on("request", (request) => {
    if (new URL(request.url()).pathname === `/api/v1/servers/${serverId}/voice-states`) reloads++;
  });
  // Closed on purpose by the server: no session is kept, so the events sent meanwhile are lost.
  const [before] = await suite.server.app.io.in(rooms.user(watcher.id)).fetchSockets();
  before!.disconnect(true);
  expect(await leaving.emitWithAck("voice:leave")).toEqual({ ok: true, channelId });
  const joining = await suite.server.connect(joiner.token);
  expect((await joining.emitWithAck("voice:join", { channelId })).ok).toBe(true);
  await eventually(async () => expect(await occupantNames(watcher.page)).toEqual(["jo"]), 15_000);
  expect(reloads).toBeGreaterThan(0);
  leaving.close();
  joining.close();
});
