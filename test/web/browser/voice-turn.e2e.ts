/**
 * Issue 47, TURN in the browser: every peer connection of the page is relay-only
 * (ICE_TRANSPORT_POLICY=relay) through a real coturn on the media namespace's veth address
 * (test/helpers/coturn.ts, started by the media suites' harness under `npm run test:media`;
 * every WebRTC browser suite runs so) with the credentials of
 * GET /api/v1/voice/ice-servers. Two people in a voice room, and two in a DM
 * call, hear each other while getStats shows relay candidates only; coturn logs the
 * allocations of both users; an expired credential (and one signed with another secret) gets
 * no relay candidate.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { turnCredential } from "../../../src/domain/voice/ice-servers.ts";
import { addMember, createServer } from "../../helpers/community.ts";
import type { Coturn } from "../../helpers/coturn.ts";
import { eventually, startWebSuite, type Person, type WebSuite } from "./harness.ts";
import { peerStats, RECORD_PEER_CONNECTIONS } from "./peer-stats.ts";
import { closePages, diagnostics, joinVoice, tile, voiceServer } from "./voice-helpers.ts";

/** The types of candidates a relay-only connection gathers with this TURN server and credential, and the ICE error codes. */
const gather = (page: Page, server: { urls: string[]; username: string; credential: string }): Promise<{ types: string[]; errors: number[] }> =>
  page.evaluate(`(async (server) => {
    const pc = new RTCPeerConnection({ iceServers: [server], iceTransportPolicy: "relay" });
    const types = [];
    const errors = [];
    pc.onicecandidate = (event) => event.candidate && types.push(event.candidate.type);
    pc.onicecandidateerror = (event) => errors.push(event.errorCode);
    pc.createDataChannel("probe");
    await pc.setLocalDescription();
    await new Promise((done) => {
      const check = () => pc.iceGatheringState === "complete" && done();
      pc.onicegatheringstatechange = check;
      check();
      setTimeout(done, 10000);
    });
    pc.close();
    return { types, errors };
  })(${JSON.stringify(server)})`);

describe("voice through TURN (coturn, relay only)", () => {
  let coturn: Coturn;
  let suite: WebSuite;
  beforeAll(async () => {
    // A media suite brings its coturn and makes the page relay only (./harness.ts).
    suite = await startWebSuite({ media: true, initScript: RECORD_PEER_CONNECTIONS });
    coturn = suite.coturn!;
  });
  afterAll(() => suite.stop());
  afterEach(() => closePages(suite));

  /** Each page's connection is up through coturn's relays only, and the other's voice is heard. */
  async function heardThroughTurn(people: [Person, Person], speaker: (other: Person) => string, peers: (d: any) => Record<string, string>) {
    for (const [person, other] of [people, [people[1], people[0]]] as const) {
      await eventually(async () => {
        const d = await diagnostics(person.page);
        expect(Object.values(peers(d))).toEqual(["connected"]);
        expect(d.voice.audio.speakers[speaker(other)]?.level).toBeGreaterThan(0.005);
      }, 20_000);
      const stats = (await peerStats(person.page)).filter((s) => s.state === "connected");
      expect(stats).toHaveLength(1);
      const s = stats[0]!;
      expect(s.policy).toBe("relay");
      expect(s.urls).toEqual([coturn.url]);
      expect(s.local.length).toBeGreaterThan(0);
      expect(new Set(s.local)).toEqual(new Set(["relay"]));
      // The pair in use: this page's relay, and the other's relay address on coturn.
      expect(s.selected?.local).toBe("relay");
      expect(s.selected?.remoteAddress).toBe(coturn.ip);
      expect(s.selected!.remotePort!).toBeGreaterThanOrEqual(coturn.relayPorts[0]);
      expect(s.selected!.remotePort!).toBeLessThanOrEqual(coturn.relayPorts[1]);
    }
    // coturn took the credentials Hearth made for each of them (`<expiry>:<user id>`).
    for (const person of people) expect(coturn.log()).toMatch(new RegExp(`user <\\d+:${person.id}>: incoming packet ALLOCATE processed, success`));
  }

  test("two people in a voice room hear each other through TURN; only relay candidates are used", async () => {
    const ana = await suite.person({ name: "ana_turn" });
    const ben = await suite.person({ name: "ben_turn" });
    const { serverId, channelId } = await voiceServer(suite, ana, [ben]);
    await joinVoice(ana, serverId, channelId);
    await joinVoice(ben, serverId, channelId);
    await tile(ana.page, ben.username).waitFor();
    await heardThroughTurn([ana, ben], (other) => other.id, (d) => d.voice.peers);
    await suite.shot(ana.page, "voice-turn-1-room", { phone: true });
  });

  test("a DM call goes through TURN too", async () => {
    const callerUser = await suite.server.register();
    const calleeUser = await suite.server.register();
    const serverId = await createServer(suite.server, callerUser, "Callers");
    await addMember(suite.server, serverId, calleeUser);
    const dm = await suite.server.api("POST", `/api/v1/dm/channels/${calleeUser.id}`, { token: callerUser.token });
    expect(dm.status).toBeLessThan(300);
    const caller = await suite.person({ user: callerUser, path: `/channels/@me/${dm.body.id}` });
    const callee = await suite.person({ user: calleeUser, path: "/channels/@me" });
    await caller.page.getByRole("button", { name: "Start a call" }).click();
    const ringing = callee.page.getByRole("alertdialog", { name: "Incoming call" });
    await ringing.getByRole("button", { name: "Answer" }).click();
    await heardThroughTurn([caller, callee], (other) => `call:${other.id}`, (d) => d.call.peers);
    await suite.shot(callee.page, "voice-turn-2-call", { phone: true });
    // On a phone the call's bar is in the closed drawer: its opener says the call is on.
    await callee.page.setViewportSize({ width: 390, height: 844 });
    const opener = callee.page.getByRole("button", { name: "Open navigation", exact: true });
    await eventually(async () => expect(await opener.getAttribute("aria-description")).toBe("In a call"));
    await callee.page.setViewportSize({ width: 1280, height: 800 });
  });

  test("coturn refuses an expired credential and one signed with another secret; a fresh one relays", async () => {
    const person = await suite.person();
    const answer = await suite.server.api("GET", "/api/v1/voice/ice-servers", { token: person.token });
    const [turn] = answer.body.ice_servers;
    // One relay candidate per local interface: the media namespace has two (its veth pair's ends).
    const fresh = await gather(person.page, turn);
    expect(fresh.types.length).toBeGreaterThan(0);
    expect(new Set(fresh.types)).toEqual(new Set(["relay"]));

    const now = Math.floor(Date.now() / 1000);
    const expired = await gather(person.page, { urls: turn.urls, ...turnCredential(coturn.secret, person.id, now - 60) });
    expect(expired.types).toEqual([]);
    expect(expired.errors).toContain(401);
    const forged = await gather(person.page, { urls: turn.urls, ...turnCredential("another-secret-entirely", person.id, now + 600) });
    expect(forged.types).toEqual([]);
    expect(forged.errors).toContain(401);
  });
});
