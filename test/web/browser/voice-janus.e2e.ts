/**
 * Issue 47, people's audio through Janus's VideoRoom (docs/voice.md, "Janus"), in Chromium, inside
 * the media suites' network namespace (scripts/test-media.ts): a Janus and a coturn of the
 * suite's own (test/helpers/janus.ts, coturn.ts), every peer connection relay only. Two people
 * hear each other; a meeting's speaker is heard by four listener pages while sending exactly one
 * audio stream; server mute silences a publisher; a member kicked from the server is dropped from
 * the Janus room and their token no longer opens a session.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { JanusAdmin } from "../../../src/media/janus-admin.ts";
import { eventually, startWebSuite, type Person, type WebSuite } from "./harness.ts";
import { peerStats, RECORD_PEER_CONNECTIONS } from "./peer-stats.ts";
import { closePages, controls, diagnostics, joinVoice, options, tile, voiceBot, voiceServer } from "./voice-helpers.ts";

let suite: WebSuite;
let admin: JanusAdmin;
beforeAll(async () => {
  suite = await startWebSuite({ media: true, janus: true, initScript: RECORD_PEER_CONNECTIONS });
  admin = new JanusAdmin(suite.janus!.adminUrl, suite.janus!.secret);
});
afterAll(() => suite.stop());
afterEach(() => closePages(suite));

/** The Janus room's participants: their ids (socket ids) and whether each publishes. */
async function janusParticipants(channelId: string): Promise<{ id: string; publisher: boolean }[]> {
  const answer = await admin.videoRoom({ request: "listparticipants", room: channelId }).catch(() => ({ participants: [] }));
  return ((answer.participants ?? []) as { id: string; publisher: boolean }[]).map(({ id, publisher }) => ({ id, publisher })).sort((a, b) => a.id.localeCompare(b.id));
}

const level = async (person: Person, speakerId: string) => ((await diagnostics(person.page)).voice.audio.speakers[speakerId]?.level as number | undefined) ?? 0;

/** The page is in the room through Janus, with relay candidates only, and hears `speakerId`. */
async function hearsThroughJanus(person: Person, speakerId: string) {
  await eventually(async () => {
    const d = await diagnostics(person.page);
    expect(d.voice.media).toBe("janus");
    expect(d.voice.peers["janus:subscribe"]).toBe("connected");
    expect(await level(person, speakerId)).toBeGreaterThan(0.005);
  }, 25_000);
  for (const s of (await peerStats(person.page)).filter((s) => s.state === "connected")) {
    expect(s.policy).toBe("relay");
    expect(new Set(s.local)).toEqual(new Set(["relay"]));
    expect(s.selected?.local).toBe("relay");
  }
}

describe("voice through Janus", () => {
  test("two people hear each other through Janus; each page has one connection up and one down, relay only", async () => {
    const ana = await suite.person({ name: "ana_janus" });
    const ben = await suite.person({ name: "ben_janus" });
    const { serverId, channelId } = await voiceServer(suite, ana, [ben]);
    await joinVoice(ana, serverId, channelId);
    await joinVoice(ben, serverId, channelId);
    await tile(ana.page, ben.username).waitFor();
    await hearsThroughJanus(ana, ben.id);
    await hearsThroughJanus(ben, ana.id);
    for (const person of [ana, ben]) {
      const open = (await peerStats(person.page)).filter((s) => s.state === "connected");
      expect(open).toHaveLength(2);
      expect(open.flatMap((s) => s.outbound)).toHaveLength(1);
    }
    // Janus's room is the channel's, with both pages in it, publishing, under their socket ids.
    const socketIds = await roomSocketIds(ana, channelId);
    expect(socketIds).toHaveLength(2);
    expect(await janusParticipants(channelId)).toEqual(socketIds.map((id) => ({ id, publisher: true })).sort((a, b) => a.id.localeCompare(b.id)));
    // The page may reach Janus, and nothing else outside its origin.
    const response = await suite.server.api("GET", "/");
    expect(response.headers.get("content-security-policy")).toContain(`connect-src 'self' ${suite.janus!.url};`);
    await suite.shot(ana.page, "voice-janus-1-room", { phone: true });

    // Leaving takes the page out of the Janus room; the last one out takes the room.
    await controls(ben.page).getByRole("button", { name: "Leave voice" }).click();
    await eventually(async () => expect(await janusParticipants(channelId)).toHaveLength(1));
    await controls(ana.page).getByRole("button", { name: "Leave voice" }).click();
    await eventually(async () => expect((await admin.videoRoom({ request: "exists", room: channelId })).exists).toBe(false));
  });

  test("a meeting: four listener pages hear the one speaker, whose page sends exactly one audio stream", async () => {
    const host = await suite.person({ name: "host_janus" });
    const listeners: Person[] = [];
    for (let i = 0; i < 4; i++) listeners.push(await suite.person({ name: `listener${i}_janus` }));
    const { serverId, channelId } = await voiceServer(suite, host, listeners, { is_meeting: true, name: "Town hall" });
    await joinVoice(host, serverId, channelId, "Town hall");
    const speakers = (page: Person["page"], name: string) => tile(page, name, "Speakers", "Town hall");
    await tile(host.page, `${host.username} (you)`, "Audience", "Town hall").getByRole("button", { name: `Options for ${host.username}` }).click();
    await options(host.page, host.username, "Town hall").getByRole("button", { name: "Invite to speak" }).click();
    await speakers(host.page, `${host.username} (you)`).waitFor();
    await controls(host.page, "Town hall").getByRole("button", { name: "Mute" }).click();
    for (const listener of listeners) await joinVoice(listener, serverId, channelId, "Town hall");
    for (const listener of listeners) await hearsThroughJanus(listener, host.id);
    // The speaker uploads once whatever the audience's size; the audience uploads nothing.
    const hostStats = (await peerStats(host.page)).filter((s) => s.state === "connected");
    expect(hostStats.flatMap((s) => s.outbound)).toHaveLength(1);
    for (const listener of listeners) expect((await peerStats(listener.page)).flatMap((s) => s.outbound)).toHaveLength(0);
    const participants = await janusParticipants(channelId);
    expect(participants).toHaveLength(5);
    expect(participants.filter((p) => p.publisher)).toHaveLength(1);
    await suite.shot(listeners[0]!.page, "voice-janus-2-meeting", { phone: true });
  });

  test("bots are unchanged: the page plays a bot's PCM beside Janus's streams, and a bot that listens hears the people", async () => {
    const ana = await suite.person({ name: "ana_janus_bot" });
    const ben = await suite.person({ name: "ben_janus_bot" });
    const { serverId, channelId } = await voiceServer(suite, ana, [ben]);
    const bot = await voiceBot(suite, ana, serverId, channelId);
    try {
      await joinVoice(ana, serverId, channelId);
      await joinVoice(ben, serverId, channelId);
      await hearsThroughJanus(ana, ben.id);
      // The bot's tone comes through Hearth's relay as frames, mixed with Ben's stream from Janus.
      bot.send({ do: "tone", hz: 440, seconds: 6 });
      const botId = bot.bot.botUserId;
      await eventually(async () => {
        const speakers = (await diagnostics(ana.page)).voice.audio.speakers;
        expect(speakers[botId]?.kind).toBe("frames");
        expect(speakers[botId].frames).toBeGreaterThan(50);
        expect(speakers[ben.id]?.kind).toBe("stream");
      }, 15_000);
      // A bot that listens hears Ana's microphone: the page sends its frames through the gateway, as in the mesh.
      bot.send({ do: "listen", on: true });
      expect((await bot.waitFor((l) => l.event === "listen-ack")).ok).toBe(true);
      const heard = await bot.waitFor((l) => l.event === "heard" && l.userId === ana.id && l.total >= 10 && l.rms > 0.01, 20_000);
      expect(heard).toMatchObject({ sampleRate: 48000, channels: 1 });
      // The bot is no participant of the Janus room.
      expect(await janusParticipants(channelId)).toHaveLength(2);
    } finally {
      bot.stop();
    }
  });

  test("server mute silences a publisher; a member kicked from the server is dropped from the Janus room", async () => {
    const ana = await suite.person({ name: "ana_janus_mod" });
    const ben = await suite.person({ name: "ben_janus_mod" });
    const { serverId, channelId } = await voiceServer(suite, ana, [ben]);
    await joinVoice(ana, serverId, channelId);
    await joinVoice(ben, serverId, channelId);
    await hearsThroughJanus(ana, ben.id);

    // Ben's page sends a tone on its publishing connection whatever its own state (as a modified
    // client would): what silences him below is Janus's moderation, not his page's own mute.
    await ben.page.evaluate(SEND_A_TONE_ANYWAY);
    await eventually(async () => expect(await level(ana, ben.id)).toBeGreaterThan(0.005), 15_000);

    // The owner server-mutes Ben: his audio stops reaching Ana.
    const benOptions = async () => {
      if (!(await options(ana.page, ben.username).isVisible())) await tile(ana.page, ben.username).getByRole("button", { name: `Options for ${ben.username}` }).click();
      return options(ana.page, ben.username);
    };
    await (await benOptions()).getByRole("button", { name: "Server mute" }).click();
    await eventually(async () => expect(await level(ana, ben.id)).toBeLessThan(0.001), 15_000);
    await suite.shot(ana.page, "voice-janus-3-server-muted", { phone: true });
    await Bun.sleep(1500);
    expect(await level(ana, ben.id)).toBeLessThan(0.001);
    // Lifted: the tone reaches Ana again.
    await (await benOptions()).getByRole("button", { name: "Remove server mute" }).click();
    await eventually(async () => expect(await level(ana, ben.id)).toBeGreaterThan(0.005), 15_000);

    // Kicked from the server: out of voice and out of the Janus room.
    const before = await roomSocketIds(ana, channelId);
    expect(await janusParticipants(channelId)).toHaveLength(2);
    const kicked = await suite.server.api("DELETE", `/api/v1/servers/${serverId}/members/${ben.id}`, { token: ana.token });
    expect(kicked.status).toBeLessThan(300);
    await eventually(async () => expect((await diagnostics(ben.page)).voice.status).toBe("idle"));
    const after = await roomSocketIds(ana, channelId);
    expect(after).toHaveLength(1);
    await eventually(async () => expect((await janusParticipants(channelId)).map((p) => p.id)).toEqual(after));
    expect(before).toContain(after[0]!);
  });
});

/** Replaces what the page's publishing connection sends with a loud tone, whatever the page's state. */
const SEND_A_TONE_ANYWAY = `(async () => {
  const pc = globalThis.peerConnections.find((pc) => pc.connectionState === "connected" && pc.getTransceivers().some((t) => t.direction === "sendonly"));
  const context = new AudioContext();
  const tone = context.createOscillator();
  const out = context.createMediaStreamDestination();
  tone.connect(out);
  tone.start();
  await pc.getTransceivers().find((t) => t.direction === "sendonly").sender.replaceTrack(out.stream.getAudioTracks()[0]);
})()`;

/** The socket ids of the voice room's people (`bot:voice-participants` on a socket of `person`'s). */
async function roomSocketIds(person: Person, channelId: string): Promise<string[]> {
  const socket = await suite.server.connect(person.token);
  try {
    const ack = await socket.emitWithAck("bot:voice-participants", { channelId });
    return ((ack.participants ?? []) as { socketId: string; isBot: boolean }[]).filter((p) => !p.isBot).map((p) => p.socketId);
  } finally {
    socket.close();
  }
}

describe("a Janus that dies", () => {
  let pair: WebSuite;
  beforeAll(async () => {
    pair = await startWebSuite({ media: true, janus: 2, initScript: RECORD_PEER_CONNECTIONS });
  });
  afterAll(() => pair.stop());
  afterEach(() => closePages(pair));

  test("its room's people join again by themselves, onto the other instance, and hear each other", async () => {
    const ana = await pair.person({ name: "ana_janus_lost" });
    const ben = await pair.person({ name: "ben_janus_lost" });
    const { serverId, channelId } = await voiceServer(pair, ana, [ben]);
    await joinVoice(ana, serverId, channelId);
    await joinVoice(ben, serverId, channelId);
    await hearsThroughJanus(ana, ben.id);
    await hearsThroughJanus(ben, ana.id);
    const holds = async (janus: (typeof pair.januses)[number]) =>
      (await new JanusAdmin(janus.adminUrl, janus.secret).videoRoom({ request: "exists", room: channelId }).catch(() => ({ exists: false }))).exists === true;
    const holder = (await holds(pair.januses[0]!)) ? pair.januses[0]! : pair.januses[1]!;
    const other = pair.januses.find((j) => j !== holder)!;
    expect(await holds(holder)).toBe(true);

    const made = (person: Person) => person.page.evaluate(`globalThis.peerConnections.length`) as Promise<number>;
    expect([await made(ana), await made(ben)]).toEqual([2, 2]);
    await holder.kill();
    await hearsThroughJanus(ana, ben.id);
    await hearsThroughJanus(ben, ana.id);
    expect(await holds(other)).toBe(true);
    // Each page made its two connections again, to the other instance; the old ones are closed.
    for (const person of [ana, ben]) {
      expect(await made(person)).toBe(4);
      expect((await peerStats(person.page)).filter((s) => s.state === "connected")).toHaveLength(2);
    }
    await pair.shot(ana.page, "voice-janus-4-rejoined", { phone: true });
  });
});
