/**
 * The media path the Janus browser suites stand on, with the Janus API spoken by hand: a
 * relay-only Chromium page publishes its (fake) microphone to a Janus VideoRoom through the
 * namespace's coturn. The pair in use joins the page's relay candidate on HEARTH_MEDIA_IP to
 * Janus's host candidate on HEARTH_JANUS_IP; audio packets flow and Janus lists a publisher.
 * (It needs the namespace's veth ends to accept their own source addresses: scripts/test-media.ts.)
 *
 * Outside the namespace of `npm run test:media` (`npm test`) it is skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser } from "playwright-core";
import { turnCredential } from "../../src/domain/voice/ice-servers.ts";
import { startCoturn, type Coturn } from "../helpers/coturn.ts";
import { adminRequest, videoroomAdmin } from "../helpers/janus-api.ts";
import { startJanus, VIDEOROOM, type Janus } from "../helpers/janus.ts";
import { CHROMIUM, CHROMIUM_FLAGS, MEDIA_FLAGS } from "../web/browser/harness.ts";

const MEDIA_IP = process.env.HEARTH_MEDIA_IP;

/**
 * In the page: a Janus session and VideoRoom publisher handle over the WebSocket, a relay-only
 * peer connection that publishes the microphone (half-trickle: the offer carries every
 * candidate), then getStats once audio has flowed for a second. A string: the test's
 * TypeScript has no DOM types.
 */
const PUBLISH = `async ({ url, token, room, iceServers }) => {
  const socket = new WebSocket(url, "janus-protocol");
  await new Promise((open, fail) => ((socket.onopen = open), (socket.onerror = fail)));
  const waiting = new Map();
  socket.onmessage = (event) => {
    const reply = JSON.parse(event.data);
    if (reply.janus !== "ack") waiting.get(reply.transaction)?.(reply);
  };
  const request = (body) => new Promise((done) => {
    const transaction = crypto.randomUUID();
    waiting.set(transaction, done);
    socket.send(JSON.stringify({ ...body, token, transaction }));
  });
  const session = (await request({ janus: "create" })).data.id;
  const handle = (await request({ janus: "attach", session_id: session, plugin: "${VIDEOROOM}" })).data.id;
  const joined = await request({ janus: "message", session_id: session, handle_id: handle, body: { request: "join", ptype: "publisher", room, token } });
  const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy: "relay" });
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  for (const track of microphone.getTracks()) pc.addTrack(track, microphone);
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((done) => {
    const check = () => pc.iceGatheringState === "complete" && done();
    pc.onicegatheringstatechange = check;
    check();
  });
  const configured = await request({ janus: "message", session_id: session, handle_id: handle, body: { request: "publish", audio: true, video: false }, jsep: pc.localDescription.toJSON() });
  await pc.setRemoteDescription(configured.jsep);
  await new Promise((done) => {
    const check = () => ["connected", "failed"].includes(pc.connectionState) && done();
    pc.onconnectionstatechange = check;
    check();
  });
  await new Promise((done) => setTimeout(done, 1000));
  const byId = new Map();
  (await pc.getStats()).forEach((entry) => byId.set(entry.id, entry));
  const entries = [...byId.values()];
  const transport = entries.find((entry) => entry.type === "transport" && entry.selectedCandidatePairId);
  const pair = transport && byId.get(transport.selectedCandidatePairId);
  const end = (id) => { const c = byId.get(id); return c && { type: c.candidateType, address: c.address, port: c.port }; };
  return {
    joined: joined.plugindata.data.videoroom,
    configured: configured.plugindata.data.configured,
    state: pc.connectionState,
    local: pair && end(pair.localCandidateId),
    remote: pair && end(pair.remoteCandidateId),
    localTypes: [...new Set(entries.filter((entry) => entry.type === "local-candidate").map((entry) => entry.candidateType))],
    audioPacketsSent: entries.filter((entry) => entry.type === "outbound-rtp" && entry.kind === "audio").reduce((n, entry) => n + entry.packetsSent, 0),
  };
}`;

describe.skipIf(!MEDIA_IP)("Chromium and Janus in the media namespace (npm run test:media)", () => {
  let coturn: Coturn;
  let janus: Janus;
  let browser: Browser;
  let page: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    [coturn, janus] = await Promise.all([startCoturn(), startJanus()]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS, ...MEDIA_FLAGS] });
    // A page on 127.0.0.1, a secure context (getUserMedia is refused on about:blank).
    page = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<!doctype html><title>publisher</title>", { headers: { "content-type": "text/html" } }) });
  });
  afterAll(async () => {
    await browser?.close();
    page?.stop(true);
    await janus?.stop();
    await coturn?.stop();
  });

  test("a relay-only page publishes its microphone to a VideoRoom through coturn", async () => {
    const room = crypto.randomUUID();
    const token = crypto.randomUUID();
    await adminRequest(janus, { janus: "add_token", token, plugins: [VIDEOROOM] });
    await videoroomAdmin(janus, { request: "create", room, admin_key: janus.secret, audiocodec: "opus", secret: crypto.randomUUID(), is_private: true, allowed: [token], publishers: 100 });
    const userId = crypto.randomUUID();
    const iceServers = [{ urls: [coturn.url], ...turnCredential(coturn.secret, userId, Math.floor(Date.now() / 1000) + 600) }];

    const tab = await (await browser.newContext()).newPage();
    await tab.goto(`http://127.0.0.1:${page.port}/`);
    const published = await tab.evaluate(`(${PUBLISH})(${JSON.stringify({ url: janus.url, token, room, iceServers })})`);

    expect(published).toMatchObject({ joined: "joined", configured: "ok", state: "connected", localTypes: ["relay"] });
    const { local, remote, audioPacketsSent } = published as { local: { type: string; address: string }; remote: { type: string; address: string; port: number }; audioPacketsSent: number };
    expect(local).toMatchObject({ type: "relay", address: coturn.ip });
    expect(remote).toMatchObject({ type: "host", address: janus.ip });
    expect(remote.port).toBeGreaterThanOrEqual(janus.rtpPorts[0]);
    expect(remote.port).toBeLessThanOrEqual(janus.rtpPorts[1]);
    expect(audioPacketsSent).toBeGreaterThan(20);
    expect(coturn.log()).toMatch(new RegExp(`user <\\d+:${userId}>: incoming packet ALLOCATE processed, success`));
    expect(await videoroomAdmin(janus, { request: "listparticipants", room })).toMatchObject({ participants: [expect.objectContaining({ publisher: true })] });
  });
});
