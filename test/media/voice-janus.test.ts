/**
 * Issue 47, point 2 on the gateway (docs/voice.md, "Janus"): with a Janus configured, a person
 * joining a voice room gets `voice:media` (a token of their own for the channel's Janus room);
 * the room is made on the first join and destroyed with the last leave; Janus lets a session in
 * with that token and the room's allow list holds it, until the person leaves or is kicked; a
 * bot gets no grant (its audio goes through Hearth's relay); meetings and rooms have no mesh
 * caps; a Janus that does not answer refuses the join with a clear error and takes the person out.
 *
 * Needs the media namespace's Janus (npm run test:media); outside it (`npm test`): skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JanusAdmin } from "../../src/media/janus-admin.ts";
import { MEDIA_SERVER_UNAVAILABLE } from "../../src/domain/voice/voice.ts";
import { addBot } from "../helpers/bots.ts";
import { addMember, createServer, createVoiceChannel } from "../helpers/community.ts";
import { opensSession } from "../helpers/janus-api.ts";
import { startJanus, type Janus } from "../helpers/janus.ts";
import { recordEvents, startServer, waitForEvent, type ClientSocket, type TestServer, type TestUser } from "../helpers/server.ts";
import { quietWindow, until } from "../helpers/wait.ts";

const inNamespace = Boolean(process.env.HEARTH_MEDIA_IP);

/** Whether Janus lets a session in with `token`. */
const sessionWith = (janus: Janus, token: string) => opensSession(janus.url, token);

describe.skipIf(!inNamespace)("voice rooms through Janus (the gateway's side)", () => {
  let janus: Janus;
  let server: TestServer;
  let admin: JanusAdmin;
  let owner: TestUser;
  let member: TestUser;
  let serverId: string;
  beforeAll(async () => {
    janus = await startJanus();
    server = await startServer({ janus: { urls: [janus.url], adminUrls: [janus.adminUrl], secret: janus.secret }, meshCaps: { publishers: 2, audience: 1 } });
    admin = new JanusAdmin(janus.adminUrl, janus.secret);
    [owner, member] = [await server.register(), await server.register()];
    serverId = await createServer(server, owner);
    await addMember(server, serverId, member);
  });
  afterAll(async () => {
    await server?.stop();
    await janus?.stop();
  });

  const exists = async (room: string) => (await admin.videoRoom({ request: "exists", room })).exists;

  async function join(user: TestUser, channelId: string): Promise<{ socket: ClientSocket; grant: any }> {
    const socket = await server.connect(user.token);
    const grant = waitForEvent(socket, "voice:media");
    const ack = await socket.emitWithAck("voice:join", { channelId });
    expect(ack.ok).toBe(true);
    return { socket, grant: await grant };
  }

  test("a join gets a grant of its own; Janus lets its token in; leaving revokes it and the last leave ends the room", async () => {
    const channelId = await createVoiceChannel(server, owner, serverId);
    expect(await exists(channelId)).toBe(false);
    const a = await join(owner, channelId);
    expect(a.grant).toEqual({ channelId, server: "janus", url: janus.url, room: channelId, token: expect.any(String), id: a.socket.id });
    expect(a.grant.token.length).toBeGreaterThanOrEqual(32);
    expect(await exists(channelId)).toBe(true);
    const b = await join(member, channelId);
    expect(b.grant.token).not.toBe(a.grant.token);
    expect(b.grant.id).toBe(b.socket.id);
    expect(await sessionWith(janus, a.grant.token)).toBe(true);
    expect(await sessionWith(janus, b.grant.token)).toBe(true);
    expect(await sessionWith(janus, "a-token-nobody-was-given")).toBe(false);

    expect(await b.socket.emitWithAck("voice:leave")).toMatchObject({ ok: true });
    await until(async () => !(await sessionWith(janus, b.grant.token)), "the token revoked");
    expect(await sessionWith(janus, a.grant.token)).toBe(true);
    expect(await exists(channelId)).toBe(true);
    a.socket.close();
    // A lost connection is a leave too.
    await until(async () => (await exists(channelId)) === false, "the room destroyed");
    expect(await sessionWith(janus, a.grant.token)).toBe(false);
    b.socket.close();
  });

  test("a refused join gets no grant: a text channel (400), a server the user is not in (404)", async () => {
    const channelId = await createVoiceChannel(server, owner, serverId);
    const stranger = await server.register();
    const strangerSocket = await server.connect(stranger.token);
    const memberSocket = await server.connect(member.token);
    const grants = [recordEvents(strangerSocket, "voice:media"), recordEvents(memberSocket, "voice:media")];
    const text = (await server.api("GET", `/api/v1/channels/${serverId}`, { token: owner.token })).body.channels.find((c: { type: string }) => c.type === "text").id;
    expect(await memberSocket.emitWithAck("voice:join", { channelId: text })).toEqual({ ok: false, error: "Not a voice channel" });
    expect(await strangerSocket.emitWithAck("voice:join", { channelId })).toMatchObject({ ok: false });
    await quietWindow(200);
    expect(grants).toEqual([[], []]);
    expect(await exists(channelId)).toBe(false);
    strangerSocket.close();
    memberSocket.close();
  });

  test("joining the same room again (the page lost its media connection) gets a new token and revokes the old", async () => {
    const channelId = await createVoiceChannel(server, owner, serverId);
    const first = await join(owner, channelId);
    const again = waitForEvent(first.socket, "voice:media");
    expect((await first.socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
    const second = await again;
    expect(second.token).not.toBe(first.grant.token);
    expect(await sessionWith(janus, second.token)).toBe(true);
    expect(await sessionWith(janus, first.grant.token)).toBe(false);
    first.socket.close();
  });

  test("a bot gets no grant; the mesh caps do not apply (VOICE_MESH_MAX_PUBLISHERS=2 here)", async () => {
    const channelId = await createVoiceChannel(server, owner, serverId);
    const bot = await addBot(server, owner, serverId, "Janus Tuner");
    const botSocket = await server.connect(bot.token);
    let botGrants = 0;
    botSocket.on("voice:media", () => botGrants++);
    expect((await botSocket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
    const people = [owner, member, await server.register(), await server.register()];
    for (const person of people.slice(2)) await addMember(server, serverId, person);
    const joined = [];
    for (const person of people) joined.push(await join(person, channelId));
    expect(new Set(joined.map((j) => j.grant.token)).size).toBe(4);
    expect(botGrants).toBe(0);
    for (const j of joined) j.socket.close();
    botSocket.close();
  });

  test("a member kicked from the server loses their token; a moderator's server mute is answered as before", async () => {
    const channelId = await createVoiceChannel(server, owner, serverId);
    const kicked = await server.register();
    await addMember(server, serverId, kicked);
    const a = await join(owner, channelId);
    const k = await join(kicked, channelId);
    expect(await a.socket.emitWithAck("voice:server-mute", { userId: kicked.id, muted: true })).toMatchObject({ ok: true, serverMuted: true });
    const out = waitForEvent(k.socket, "voice:force-disconnect");
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}/members/${kicked.id}`, { token: owner.token })).status).toBeLessThan(300);
    await out;
    await until(async () => !(await sessionWith(janus, k.grant.token)), "the token revoked");
    a.socket.close();
    k.socket.close();
  });

  test("a Janus that does not answer: the join is refused with a clear error and the person is not left in the room", async () => {
    const deadServer = await startServer({ janus: { urls: ["ws://127.0.0.1:9"], adminUrls: ["http://127.0.0.1:9/admin"], secret: "a-secret-of-sixteen-chars" } });
    try {
      const user = await deadServer.register();
      const id = await createServer(deadServer, user);
      const channelId = await createVoiceChannel(deadServer, user, id);
      const socket = await deadServer.connect(user.token);
      expect(await socket.emitWithAck("voice:join", { channelId })).toEqual({ ok: false, error: MEDIA_SERVER_UNAVAILABLE });
      expect((await socket.emitWithAck("bot:voice-participants", { channelId })).participants).toEqual([]);
      socket.close();
    } finally {
      await deadServer.stop();
    }
  });
});

describe.skipIf(!inNamespace)("two Janus instances (JANUS_URL a list)", () => {
  let januses: Janus[];
  let server: TestServer;
  beforeAll(async () => {
    const secret = `janus-test-secret-${crypto.randomUUID()}`;
    januses = [await startJanus({ secret }), await startJanus({ secret })];
    server = await startServer({ janus: { urls: januses.map((j) => j.url), adminUrls: januses.map((j) => j.adminUrl), secret } });
  });
  afterAll(async () => {
    await server?.stop();
    for (const janus of januses ?? []) await janus.stop();
  });

  const roomOn = async (janus: Janus, room: string) => (await new JanusAdmin(janus.adminUrl, janus.secret).videoRoom({ request: "exists", room })).exists;

  test("rooms spread over the instances; one that dies takes its rooms' people to joining again, onto the other", async () => {
    const owner = await server.register();
    const serverId = await createServer(server, owner);
    // Rendezvous hashing places each channel's room on one instance, by its id: rooms are made
    // until both hold some (six random ids all land on one instance 1 time in 32, forty 1 in 5.10^11).
    const socket = await server.connect(owner.token);
    const channels: string[] = [];
    const placed: Record<string, string> = {};
    while (new Set(Object.values(placed)).size < 2 && channels.length < 40) {
      const channelId = await createVoiceChannel(server, owner, serverId, { name: `Room ${channels.length}` });
      channels.push(channelId);
      const grant = waitForEvent(socket, "voice:media");
      expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
      placed[channelId] = (await grant).url;
      const holder = januses.find((j) => j.url === placed[channelId])!;
      expect(await roomOn(holder, channelId)).toBe(true);
      expect(await roomOn(januses.find((j) => j !== holder)!, channelId)).toBe(false);
    }
    expect(new Set(Object.values(placed)).size).toBe(2);

    // In the last room; its Janus dies; the page joins again (as the web app does when its Janus connection closes).
    const channelId = channels.at(-1)!;
    const dead = januses.find((j) => j.url === placed[channelId])!;
    const alive = januses.find((j) => j !== dead)!;
    await dead.kill();
    const again = waitForEvent(socket, "voice:media");
    expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);
    const grant = await again;
    expect(grant.url).toBe(alive.url);
    expect(await roomOn(alive, channelId)).toBe(true);
    expect(await sessionWith(alive, grant.token)).toBe(true);
    socket.close();
  });
});
