/**
 * The web app's Timeline (web/state/timeline.ts) against a real server through the SDK's REST
 * client: jumping to any message (a window away from the present, paging forward back to it,
 * returning to the present), live messages while away, and waiting for a bot's answer from
 * before the command is sent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RestClient, type FetchLike } from "../../sdk/src/client.ts";
import type { Message } from "../../web/lib/wire-types.ts";
import { Timeline } from "../../web/state/timeline.ts";
import { say } from "../helpers/bot-platform.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

let server: TestServer;
let place: Community;
/** The seeded history, oldest first: "line 1" ... "line 180". */
let seeded: Message[] = [];
let pages: string[] = [];

const counted: FetchLike = (url, init) => {
  if (url.pathname.startsWith("/api/v1/messages/")) pages.push(url.search);
  return fetch(url, init);
};

const timeline = () => new Timeline(place.channelId, { kind: "channel", channelId: place.channelId }, new RestClient({ baseUrl: server.url, token: place.owner.token, fetch: counted }));
const ids = (t: Timeline) => t.messages.value.map((m) => m.id);
const texts = (t: Timeline) => t.messages.value.map((m) => m.content);

async function post(content: string, who = place.owner): Promise<Message> {
  const res = await say(server, who, place.channelId, content);
  if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Message;
}

beforeAll(async () => {
  server = await startServer();
  place = await community(server, { extraMembers: 1 });
  // Three authors: sends are limited per caller and channel (100 per 10 s).
  const authors = [place.owner, place.member, place.members[1]!];
  for (let i = 1; i <= 180; i++) seeded.push(await post(`line ${i}`, authors[i % 3]));
});
afterAll(() => server.stop());

test("jumpTo loads the page around a far message, away from the present; newer pages lead back to it", async () => {
  const t = timeline();
  await t.open();
  expect(texts(t).at(-1)).toBe("line 180");
  expect(t.hasNewer.value).toBe(false);

  pages = [];
  const target = seeded[59]!; // line 60
  expect(await t.jumpTo(target.id)).toBe(true);
  expect(pages).toEqual([`?around=${target.id}&limit=50`]);
  // 25 older, the message, 24 newer.
  expect(texts(t)[0]).toBe("line 35");
  expect(texts(t).at(-1)).toBe("line 84");
  expect(t.hasOlder.value).toBe(true);
  expect(t.hasNewer.value).toBe(true);
  expect(t.scrollTarget.value).toEqual({ kind: "message", messageId: target.id, highlight: true });
  // The list takes the scroll, and the message is highlighted from then on.
  expect(t.highlight.value).toBeNull();
  t.takeScrollTarget();
  expect(t.scrollTarget.value).toBeNull();
  expect(t.highlight.value).toBe(target.id);

  // A message already in the window: no request.
  pages = [];
  expect(await t.jumpTo(seeded[79]!.id)).toBe(true);
  expect(pages).toEqual([]);
  expect(t.scrollTarget.value).toEqual({ kind: "message", messageId: seeded[79]!.id, highlight: true });
  t.takeScrollTarget();
  expect(t.highlight.value).toBe(seeded[79]!.id);

  // Paging forward: 85-134, then 135-180 (short: the present), one contiguous window.
  await t.loadNewer();
  expect(texts(t).at(-1)).toBe("line 134");
  expect(t.hasNewer.value).toBe(true);
  await t.loadNewer();
  expect(t.hasNewer.value).toBe(false);
  expect(ids(t)).toEqual(seeded.slice(34).map((m) => m.id));
  // And older: 1-34, a short page (the start of the history).
  await t.loadOlder();
  expect(ids(t)).toEqual(seeded.map((m) => m.id));
  expect(t.hasOlder.value).toBe(false);
  t.dispose();
});

test("away from the present, live messages stay out of the window; jumpToPresent shows the newest page with them", async () => {
  const t = timeline();
  await t.open();
  await t.jumpTo(seeded[20]!.id);
  expect(t.hasNewer.value).toBe(true);
  const before = ids(t);
  const live = await post("live while away");
  t.receive(live);
  await Bun.sleep(40); // one frame (no browser here: a 16 ms timer)
  expect(ids(t)).toEqual(before);

  pages = [];
  await t.jumpToPresent();
  expect(pages).toEqual([""]);
  expect(t.hasNewer.value).toBe(false);
  expect(t.scrollTarget.value).toEqual({ kind: "present" });
  expect(texts(t).at(-1)).toBe("live while away");
  expect(t.messages.value.length).toBe(50);

  // At the present, live messages are appended again.
  const next = await post("live at the present");
  t.receive(next);
  await eventually(() => texts(t).at(-1) === "live at the present", "the live message appended");
  // jumpToPresent there is only a scroll.
  pages = [];
  t.takeScrollTarget();
  await t.jumpToPresent();
  expect(pages).toEqual([]);
  expect(t.scrollTarget.value).toEqual({ kind: "present" });
  // Clean up the two live messages for the other tests' counts.
  for (const m of [live, next]) {
    await server.api("DELETE", `/api/v1/messages/${m.id}`, { token: place.owner.token });
    t.remove(m.id);
  }
  t.dispose();
});

test("a live message that arrives while the last newer page is on its way joins the window when it reaches the present", async () => {
  const t = timeline();
  await t.jumpTo(seeded[150]!.id); // 126-175 of 180: one more page forward reaches the present
  expect(t.hasNewer.value).toBe(true);
  // Sent while the page is on its way: in the page or not, it shows once, at the end.
  const loading = t.loadNewer();
  const live = await post("sent during the last page");
  t.receive(live);
  await loading;
  await Bun.sleep(40);
  expect(t.hasNewer.value).toBe(false);
  expect(texts(t).filter((c) => c === "sent during the last page")).toHaveLength(1);
  expect(texts(t).at(-1)).toBe("sent during the last page");
  await server.api("DELETE", `/api/v1/messages/${live.id}`, { token: place.owner.token });
  t.dispose();
});

test("jumpTo works before the place was opened, and near the start of the history", async () => {
  const t = timeline();
  expect(t.status.value).toBe("idle");
  const jump = t.jumpTo(seeded[2]!.id);
  expect(t.status.value).toBe("loading");
  // The place opening meanwhile (its page view mounting) leaves the jump alone.
  await t.open();
  expect(await jump).toBe(true);
  expect(t.status.value).toBe("ready");
  expect(texts(t)[0]).toBe("line 1");
  expect(t.messages.value.length).toBe(50);
  expect(t.hasOlder.value).toBe(false);
  expect(t.hasNewer.value).toBe(true);
  t.dispose();
});

test("jumpTo a deleted message shows its place, says so, and highlights nothing", async () => {
  const gone = await post("soon gone");
  await server.api("DELETE", `/api/v1/messages/${gone.id}`, { token: place.owner.token });
  const t = timeline();
  await t.open();
  await t.jumpTo(seeded[10]!.id);
  expect(await t.jumpTo(gone.id)).toBe(false);
  expect(t.error.value).toBe("That message no longer exists.");
  expect(t.hasNewer.value).toBe(false);
  expect(t.scrollTarget.value).toEqual({ kind: "message", messageId: seeded.at(-1)!.id, highlight: false });
  t.takeScrollTarget();
  expect(t.highlight.value).toBeNull();
  t.dispose();
});

test("expectAnswer: an answer before the send returns counts; silence shows the notice; a failed send shows none", async () => {
  const t = timeline();
  await t.open();
  const bot = place.member;
  const answer = (user_id: string) => ({ ...seeded[0]!, id: `answer-${user_id}-${Math.random()}`, user_id });

  // The bot answers before the command's send returns.
  const early = t.expectAnswer(bot.id, "did not answer", 60);
  t.receive(answer(bot.id));
  early.sent(seeded[100]!.id);
  await Bun.sleep(120);
  expect(t.notices.value.size).toBe(0);

  // Nobody answers: the notice shows on the sent command, also when the wait ran out before the send returned.
  const silent = t.expectAnswer(bot.id, "did not answer", 30);
  t.receive(answer(place.owner.id)); // someone else writing is no answer
  silent.sent(seeded[101]!.id);
  await eventually(() => t.notices.value.get(seeded[101]!.id) === "did not answer", "the notice");
  const slowSend = t.expectAnswer(bot.id, "slow", 10);
  await Bun.sleep(40);
  expect(t.notices.value.has(seeded[102]!.id)).toBe(false);
  slowSend.sent(seeded[102]!.id);
  expect(t.notices.value.get(seeded[102]!.id)).toBe("slow");

  // The send failed.
  const failed = t.expectAnswer(bot.id, "never", 10);
  failed.cancel();
  await Bun.sleep(40);
  expect([...t.notices.value.values()]).not.toContain("never");

  // A press on an existing message (waited for before it is sent) still works, and an answer clears it.
  t.expectAnswer(bot.id, "pressed", 60).sent(seeded[103]!.id);
  t.receive(answer(bot.id));
  await Bun.sleep(120);
  expect(t.notices.value.has(seeded[103]!.id)).toBe(false);
  t.dispose();
});
