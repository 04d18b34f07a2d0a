import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { community, createVoiceChannel } from "../helpers/community.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";

// Premium, as administrators set it (docs/admin.md#premium): the attachment limit and the soundboard.
let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.register();
  // Small limits, so the tiers are tested with small files.
  server.app.domain.messageUploads.limits = { standard: 1000, premium: 4000 };
});
afterAll(() => server.stop());

const setUser = (id: string, body: unknown) => server.api("PATCH", `/api/v1/admin/users/${id}`, { token: admin.token, body });
const setServer = (id: string, body: unknown) => server.api("PATCH", `/api/v1/admin/servers/${id}`, { token: admin.token, body });


function sized(size: number) {
  const form = new FormData();
  form.append("files", new File([new Uint8Array(size).fill(65)], "blob.dat"));
  return form;
}
const upload = (channelId: string, user: TestUser, size: number) =>
  server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: user.token, raw: sized(size) });

describe("premium attachment limit", () => {
  test("flipping premium through the admin route raises and lowers the caller's upload limit", async () => {
    const { member, channelId } = await community(server);
    expectError(await upload(channelId, member, 3000), 413, "Upload too large: the limit is 1000 bytes");
    expect((await setUser(member.id, { premium: true })).body.premium).toBe(true);
    expect((await upload(channelId, member, 3000)).status).toBe(201);
    expectError(await upload(channelId, member, 4001), 413, "Upload too large: the limit is 3.9 KB");
    await setUser(member.id, { premium: false });
    expectError(await upload(channelId, member, 3000), 413, "Upload too large: the limit is 1000 bytes");
  });

  test("verifying a server through the admin route gives every member there the larger limit", async () => {
    const { member, serverId, channelId } = await community(server);
    expect((await upload(channelId, member, 3000)).status).toBe(413);
    await setServer(serverId, { verified: true });
    expect((await upload(channelId, member, 3000)).status).toBe(201);
    await setServer(serverId, { verified: false });
    expect((await upload(channelId, member, 3000)).status).toBe(413);
  });

  test("the owner sees their premium flag on /users/me/info and at login", async () => {
    const user = await server.register();
    await setUser(user.id, { premium: true });
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body.premium).toBe(true);
    const login = await server.api("POST", "/api/v1/auth/login", { body: { login: user.username, password: user.password } });
    expect(login.body.user).toMatchObject({ premium: true, platform_admin: false });
  });
});

describe("premium soundboard", () => {
  const MP3 = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x00]);

  async function soundSetup() {
    const ctx = await community(server);
    const form = new FormData();
    form.append("sound", new File([MP3], "horn.mp3"));
    form.append("name", "Horn");
    const sound = await server.api("POST", `/api/v1/servers/${ctx.serverId}/soundboard`, { token: ctx.owner.token, raw: form });
    if (sound.status !== 201) throw new Error(`sound upload: ${sound.status} ${JSON.stringify(sound.body)}`);
    return { ...ctx, soundId: sound.body.id as string, voiceId: await createVoiceChannel(server, ctx.owner, ctx.serverId) };
  }
  const catalog = (user: TestUser) => server.api("GET", "/api/v1/premium/soundboard/catalog", { token: user.token });
  const play = (user: TestUser, soundId: string) =>
    server.api("POST", "/api/v1/premium/soundboard/play", { token: user.token, body: { sound_id: soundId } });

  test("the catalog opens and closes with the premium flag", async () => {
    const { member, soundId } = await soundSetup();
    expectError(await catalog(member), 403, "Soundboard catalog is a premium feature");
    await setUser(member.id, { premium: true });
    const open = await catalog(member);
    expect(open.status).toBe(200);
    expect(open.body.map((s: any) => s.id)).toEqual([soundId]);
    await setUser(member.id, { premium: false });
    expectError(await catalog(member), 403, "Soundboard catalog is a premium feature");
  });

  test("play opens and closes with the premium flag", async () => {
    const { member, soundId, voiceId } = await soundSetup();
    const socket = await server.connect(member.token);
    expect(await socket.timeout(3000).emitWithAck("voice:join", { channelId: voiceId })).toMatchObject({ ok: true });
    expectError(await play(member, soundId), 403, "Playing soundboard sounds is a premium feature");
    await setUser(member.id, { premium: true });
    const played = await play(member, soundId);
    expect(played.status).toBe(200);
    expect(played.body).toEqual({ played: true, channelId: voiceId });
    await setUser(member.id, { premium: false });
    expectError(await play(member, soundId), 403, "Playing soundboard sounds is a premium feature");
  });
});
