import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PERMISSIONS } from "../../src/domain/access/permission-bits.ts";
import { sniffAudio } from "../../src/domain/voice/audio-files.ts";
import { addMember, auditLog, community, createVoiceChannel } from "../helpers/community.ts";
import { PNG_1X1 } from "../helpers/images.ts";
import { recordEvents, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";
import { letTimePass, quietWindow, until } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const MB = 1024 * 1024;
const SOUND_KEYS = [
  "created_at", "file_path", "icon", "id", "mime_type", "name", "original_name", "server_id", "size", "uploaded_by", "uploaded_by_username",
];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));
const MP3_ID3 = bytes("ID3", [4, 0, 0, 0, 0, 0, 0], [0xff, 0xfb, 0x90, 0x00]);
const MP3_FRAME = bytes([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]);
const OGG = bytes("OggS", [0, 2, 0, 0, 0, 0, 0, 0]);
const WAV = bytes("RIFF", [36, 0, 0, 0], "WAVEfmt ");
const WEBM = bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]);
const FLAC = bytes("fLaC", [0, 0, 0, 34]);
const M4A = bytes([0, 0, 0, 0x20], "ftypM4A ", [0, 0, 0, 0]);
/** A valid MP3 header followed by zeros: `size` bytes in all. */
const mp3OfSize = (size: number) => {
  const out = new Uint8Array(size);
  out.set(MP3_ID3);
  return out;
};

function form(file: Uint8Array | null, filename: string, fields: Record<string, string> = {}, field = "sound") {
  const data = new FormData();
  if (file) data.append(field, new File([file], filename));
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  return data;
}
const base = (serverId: string) => `/api/v1/servers/${serverId}/soundboard`;
const upload = (serverId: string, user: TestUser | null, body: FormData) => server.api("POST", base(serverId), { token: user?.token, raw: body });
const list = (serverId: string, user: TestUser | null) => server.api("GET", base(serverId), { token: user?.token });
const patchJson = (serverId: string, soundId: string, user: TestUser | null, body: unknown) =>
  server.api("PATCH", `${base(serverId)}/${soundId}`, { token: user?.token, body });
const patchForm = (serverId: string, soundId: string, user: TestUser | null, body: FormData) =>
  server.api("PATCH", `${base(serverId)}/${soundId}`, { token: user?.token, raw: body });
const remove = (serverId: string, soundId: string, user: TestUser | null) =>
  server.api("DELETE", `${base(serverId)}/${soundId}`, { token: user?.token });
const catalog = (user: TestUser | null) => server.api("GET", "/api/v1/premium/soundboard/catalog", { token: user?.token });
const play = (user: TestUser | null, body: unknown) => server.api("POST", "/api/v1/premium/soundboard/play", { token: user?.token, body });
const fileOnDisk = (urlPath: string) => join(server.dataDir, urlPath.replace(/^\//, ""));
const soundFiles = () => {
  try {
    return readdirSync(join(server.dataDir, "uploads", "sounds"));
  } catch {
    return [];
  }
};
const premium = (user: TestUser) => server.app.store.users.setPremium(user.id, true);

async function uploaded(serverId: string, owner: TestUser, fields: Record<string, string> = {}, file = MP3_ID3, filename = "airhorn.mp3") {
  const res = await upload(serverId, owner, form(file, filename, fields));
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, any>;
}

describe("audio sniffing", () => {
  test.each([
    [MP3_ID3, "mp3", "audio/mpeg"],
    [MP3_FRAME, "mp3", "audio/mpeg"],
    [bytes([0xff, 0xf1, 0x50, 0x80]), "aac", "audio/aac"],
    [OGG, "ogg", "audio/ogg"],
    [WAV, "wav", "audio/wav"],
    [WEBM, "webm", "audio/webm"],
    [FLAC, "flac", "audio/flac"],
    [M4A, "m4a", "audio/mp4"],
  ])("recognises %#", (input, ext, mime) => {
    expect(sniffAudio(input)).toEqual({ ext, mime } as any);
  });

  test.each([
    [PNG_1X1],
    [bytes([0xff, 0xd8, 0xff, 0xe0])], // JPEG
    [bytes("RIFF", [0, 0, 0, 0], "WEBP")],
    [bytes([0, 0, 0, 0x18], "ftypheic")],
    [bytes("hello world")],
    [new Uint8Array()],
  ])("refuses non-audio %#", (input) => {
    expect(sniffAudio(input)).toBeNull();
  });
});

describe("POST /api/v1/servers/:id/soundboard", () => {
  test("uploads (MANAGE_SERVER): 201 with the sound bare, name from the file stem, default icon 🎵, audited", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const res = await upload(serverId, owner, form(MP3_ID3, "air horn.mp3"));
    expect(res.status).toBe(201);
    const sound = res.body;
    expect(Object.keys(sound).sort()).toEqual(SOUND_KEYS);
    expect(sound).toMatchObject({
      server_id: serverId, name: "air horn", icon: "🎵", original_name: "air horn.mp3", mime_type: "audio/mpeg",
      size: MP3_ID3.byteLength, uploaded_by: owner.id, uploaded_by_username: owner.username,
    });
    expect(sound.file_path).toMatch(/^\/uploads\/sounds\/[0-9a-f-]{36}\.mp3$/);
    expect(typeof sound.created_at).toBe("number");
    expect(existsSync(fileOnDisk(sound.file_path))).toBe(true);
    const served = await fetch(server.url + sound.file_path);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(MP3_ID3);

    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_SOUNDBOARD_UPLOAD")!;
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "sound", target_id: sound.id, changes: { name: "air horn", icon: "🎵" } });
  });

  test("takes a name and an icon, and every audio type by its bytes", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const cases: [Uint8Array, string, string, string][] = [
      [MP3_FRAME, "a.bin", "mp3", "audio/mpeg"],
      [OGG, "b.mp3", "ogg", "audio/ogg"],
      [WAV, "c", "wav", "audio/wav"],
      [WEBM, "d.webm", "webm", "audio/webm"],
      [FLAC, "e.flac", "flac", "audio/flac"],
      [M4A, "f.m4a", "m4a", "audio/mp4"],
    ];
    for (const [file, filename, ext, mime] of cases) {
      const res = await upload(serverId, owner, form(file, filename, { name: `  Sound ${ext}  `, icon: "👨‍👩‍👧" }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: `Sound ${ext}`, icon: "👨‍👩‍👧", mime_type: mime });
      expect(res.body.file_path.endsWith(`.${ext}`)).toBe(true);
    }
    for (const icon of ["🇫🇷", "👍🏽", "1️⃣", "🔥"]) {
      expect((await upload(serverId, owner, form(OGG, "x.ogg", { icon }))).body.icon).toBe(icon);
    }
    // A 40-character name is the maximum; a blank one means "use the file name".
    expect((await upload(serverId, owner, form(OGG, "x.ogg", { name: "n".repeat(40) }))).status).toBe(201);
    expect((await upload(serverId, owner, form(OGG, "stem.ogg", { name: "  " }))).body.name).toBe("stem");
    // A long file stem is cut to 40 characters.
    expect((await upload(serverId, owner, form(OGG, `${"s".repeat(60)}.ogg`))).body.name).toBe("s".repeat(40));
  });

  test("refusals: 401, 403, 404, not audio, bad icons, 41-character name, no file; nothing is left on disk", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Sound Land" });
    const before = soundFiles().length;
    expect((await upload(serverId, null, form(MP3_ID3, "a.mp3"))).status).toBe(401);
    const denied = await upload(serverId, member, form(MP3_ID3, "a.mp3"));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: "Missing permission: MANAGE_SERVER" });
    expect((await upload(serverId, outsider, form(MP3_ID3, "a.mp3"))).status).toBe(403);
    expect((await upload(UNKNOWN, owner, form(MP3_ID3, "a.mp3"))).status).toBe(404);
    expect((await upload("not-a-uuid", owner, form(MP3_ID3, "a.mp3"))).status).toBe(404);

    const notAudio = await upload(serverId, owner, form(PNG_1X1, "sneaky.mp3"));
    expect(notAudio.status).toBe(400);
    expect(notAudio.body.error).toContain("sound must be an audio file");
    expect((await upload(serverId, owner, form(bytes("just text"), "a.wav"))).status).toBe(400);

    const custom = await upload(serverId, owner, form(MP3_ID3, "a.mp3", { icon: `<:party:${UNKNOWN}>` }));
    expect(custom.status).toBe(400);
    expect(custom.body.error).toStartWith("icon: custom emojis");
    expect((await upload(serverId, owner, form(MP3_ID3, "a.mp3", { icon: `<a:party:${UNKNOWN}>` }))).status).toBe(400);
    for (const icon of ["a", "🎵🎵", "hello", ":music:", "🎵 x"]) {
      const res = await upload(serverId, owner, form(MP3_ID3, "a.mp3", { icon }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "icon: must be a single Unicode emoji" });
    }

    const long = await upload(serverId, owner, form(MP3_ID3, "a.mp3", { name: "n".repeat(41) }));
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ error: "name: must be 1-40 characters" });
    // Control and bidi characters are stripped (test/http/robustness-names.test.ts): nothing visible is left.
    expect((await upload(serverId, owner, form(MP3_ID3, "a.mp3", { name: "\u0007\u202e" }))).body).toEqual({ error: "name: must contain visible characters" });

    expect((await upload(serverId, owner, form(MP3_ID3, "a.mp3", {}, "file"))).body).toEqual({ error: "sound: a file is required" });
    const json = await server.api("POST", base(serverId), { token: owner.token, body: { name: "x" } });
    expect(json.status).toBe(400);

    expect((await list(serverId, owner)).body).toEqual([]);
    expect(soundFiles().length).toBe(before);
  });

  test("413 past 8 MB: from content-length before reading, and for a file just over", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const before = soundFiles().length;
    const justOver = await upload(serverId, owner, form(mp3OfSize(8 * MB + 1), "big.mp3"));
    expect(justOver.status).toBe(413);
    expect(justOver.body.error).toContain("8 MB");
    const huge = await upload(serverId, owner, form(mp3OfSize(12 * MB), "huge.mp3"));
    expect(huge.status).toBe(413);
    expect(huge.body.error).toContain("8 MB");
    const max = await upload(serverId, owner, form(mp3OfSize(8 * MB), "max.mp3"));
    expect(max.status).toBe(201);
    expect(max.body.size).toBe(8 * MB);
    expect(soundFiles().length).toBe(before + 1);
  });

  test("a server holds at most 50 sounds; the 51st is refused and leaves no file", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    await Promise.all(Array.from({ length: 50 }, (_, i) => upload(serverId, owner, form(OGG, `s${i}.ogg`))));
    expect((await list(serverId, owner)).body).toHaveLength(50);
    const filesBefore = soundFiles().length;
    const res = await upload(serverId, owner, form(OGG, "one-more.ogg"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "A server can have at most 50 soundboard sounds" });
    expect(soundFiles().length).toBe(filesBefore);
  });
});

describe("GET /api/v1/servers/:id/soundboard", () => {
  test("members get a bare array, oldest first; 401, 403 for non-members, 404", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Sound Land" });
    const first = await uploaded(serverId, owner, { name: "first" });
    const second = await uploaded(serverId, owner, { name: "second", icon: "🔥" }, WAV, "b.wav");
    const res = await list(serverId, member);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((s: any) => s.id)).toEqual([first.id, second.id]);
    expect(res.body[1]).toEqual(second);
    expect(Object.keys(res.body[0]).sort()).toEqual(SOUND_KEYS);

    expect((await list(serverId, null)).status).toBe(401);
    const notMember = await list(serverId, outsider);
    expect(notMember.status).toBe(403);
    expect((await list(UNKNOWN, owner)).status).toBe(404);
    expect((await list("nope", owner)).status).toBe(404);
  });
});

describe("PATCH /api/v1/servers/:id/soundboard/:soundId", () => {
  test("JSON {name, icon}: updates and audits SERVER_SOUNDBOARD_UPDATE with old and new values", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const sound = await uploaded(serverId, owner);
    const res = await patchJson(serverId, sound.id, owner, { name: "Horn", icon: "📯" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...sound, name: "Horn", icon: "📯" });
    expect((await patchJson(serverId, sound.id, owner, { icon: "🔔" })).body).toMatchObject({ name: "Horn", icon: "🔔" });

    const entries = (await auditLog(server, serverId, owner)).filter((e) => e.action === "SERVER_SOUNDBOARD_UPDATE");
    expect(entries).toHaveLength(2);
    expect(entries.at(-1)).toMatchObject({
      actor_id: owner.id, target_type: "sound", target_id: sound.id,
      changes: { name: { old: "airhorn", new: "Horn" }, icon: { old: "🎵", new: "📯" } },
    });
  });

  test("multipart: a new file replaces the old one on disk; name and icon alone work too", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const sound = await uploaded(serverId, owner);
    const res = await patchForm(serverId, sound.id, owner, form(FLAC, "better.flac", { name: "Better" }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sound.id, name: "Better", icon: "🎵", mime_type: "audio/flac", original_name: "better.flac", size: FLAC.byteLength });
    expect(res.body.file_path).not.toBe(sound.file_path);
    expect(existsSync(fileOnDisk(sound.file_path))).toBe(false);
    expect(existsSync(fileOnDisk(res.body.file_path))).toBe(true);
    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_SOUNDBOARD_UPDATE")!;
    expect(entry.changes).toMatchObject({ name: { new: "Better" }, file_path: { old: sound.file_path, new: res.body.file_path } });

    const iconOnly = await patchForm(serverId, sound.id, owner, form(null, "", { icon: "🥁" }));
    expect(iconOnly.status).toBe(200);
    expect(iconOnly.body).toMatchObject({ name: "Better", icon: "🥁", file_path: res.body.file_path });
  });

  test("refusals: 401, 403, 404, bad values, over 8 MB, nothing to update; a refused file leaves nothing behind", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Sound Land" });
    const other = await community(server, { name: "Other" });
    const sound = await uploaded(serverId, owner);
    const foreign = await uploaded(other.serverId, other.owner);
    expect((await patchJson(serverId, sound.id, null, { name: "x" })).status).toBe(401);
    expect((await patchJson(serverId, sound.id, member, { name: "x" })).status).toBe(403);
    expect((await patchJson(serverId, sound.id, outsider, { name: "x" })).status).toBe(403);
    expect((await patchJson(UNKNOWN, sound.id, owner, { name: "x" })).status).toBe(404);
    expect((await patchJson(serverId, UNKNOWN, owner, { name: "x" })).status).toBe(404);
    expect((await patchJson(serverId, "not-a-uuid", owner, { name: "x" })).status).toBe(404);
    // Another server's sound is not this server's.
    expect((await patchJson(serverId, foreign.id, owner, { name: "x" })).status).toBe(404);

    expect((await patchJson(serverId, sound.id, owner, { name: "n".repeat(41) })).body).toEqual({ error: "name: must be 1-40 characters" });
    expect((await patchJson(serverId, sound.id, owner, { name: "" })).status).toBe(400);
    expect((await patchJson(serverId, sound.id, owner, { icon: "<:x:123>" })).status).toBe(400);
    expect((await patchJson(serverId, sound.id, owner, { icon: "ab" })).status).toBe(400);
    expect((await patchJson(serverId, sound.id, owner, { name: 5 })).body).toEqual({ error: "name: must be a string" });
    expect((await patchJson(serverId, sound.id, owner, {})).status).toBe(400);
    expect((await patchJson(serverId, sound.id, owner, [1])).status).toBe(400);

    const filesBefore = soundFiles().length;
    expect((await patchForm(serverId, sound.id, owner, form(PNG_1X1, "x.mp3"))).status).toBe(400);
    expect((await patchForm(serverId, sound.id, owner, form(OGG, "x.ogg", { icon: "<:x:1>" }))).status).toBe(400);
    expect((await patchForm(serverId, sound.id, owner, form(mp3OfSize(8 * MB + 1), "big.mp3"))).status).toBe(413);
    expect((await patchForm(serverId, sound.id, owner, form(mp3OfSize(10 * MB), "big.mp3"))).status).toBe(413);
    expect(soundFiles().length).toBe(filesBefore);
    expect((await list(serverId, owner)).body).toEqual([sound]);
  });
});

describe("DELETE /api/v1/servers/:id/soundboard/:soundId", () => {
  test("removes the sound and its file, answers {success: true}, audits SERVER_SOUNDBOARD_DELETE", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Sound Land" });
    const sound = await uploaded(serverId, owner);
    expect((await remove(serverId, sound.id, null)).status).toBe(401);
    expect((await remove(serverId, sound.id, member)).status).toBe(403);
    expect((await remove(serverId, sound.id, outsider)).status).toBe(403);
    expect((await remove(UNKNOWN, sound.id, owner)).status).toBe(404);
    expect((await remove(serverId, "bad", owner)).status).toBe(404);

    const res = await remove(serverId, sound.id, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(existsSync(fileOnDisk(sound.file_path))).toBe(false);
    expect((await list(serverId, owner)).body).toEqual([]);
    expect((await remove(serverId, sound.id, owner)).status).toBe(404);
    const entry = (await auditLog(server, serverId, owner)).find((e) => e.action === "SERVER_SOUNDBOARD_DELETE")!;
    expect(entry).toMatchObject({ actor_id: owner.id, target_type: "sound", target_id: sound.id, changes: { name: "airhorn", icon: "🎵" } });
  });

  test("deleting the server removes its sound files", async () => {
    const { owner, serverId } = await community(server, { name: "Sound Land" });
    const sound = await uploaded(serverId, owner);
    expect(existsSync(fileOnDisk(sound.file_path))).toBe(true);
    expect(await server.app.store.servers.files(serverId)).toContain(sound.file_path);
    const res = await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token });
    expect(res.status).toBe(200);
    await until(() => !existsSync(fileOnDisk(sound.file_path)), "the sound's file to be removed");
  });
});

describe("GET /api/v1/premium/soundboard/catalog", () => {
  test("premium only: sounds of the caller's servers where they hold USE_SOUNDBOARD, with file_url and server", async () => {
    const { owner, member, outsider, serverId } = await community(server, { name: "Alpha" });
    const other = await community(server, { name: "Beta" });
    const third = await community(server, { name: "Gamma" });
    await addMember(server, other.serverId, member);
    await addMember(server, third.serverId, member);
    const a = await uploaded(serverId, owner, { name: "a", icon: "🔥" });
    const b = await uploaded(other.serverId, other.owner, { name: "b" });
    await uploaded(third.serverId, third.owner, { name: "c" });
    // Gamma's @everyone loses USE_SOUNDBOARD: its sounds leave the member's catalog.
    const denied = await server.api("PUT", `/api/v1/roles/${third.serverId}/${third.everyone}`, {
      token: third.owner.token,
      body: { permissions: 16235520 & ~PERMISSIONS.USE_SOUNDBOARD },
    });
    expect(denied.status).toBe(200);

    expect((await catalog(null)).status).toBe(401);
    const notPremium = await catalog(member);
    expect(notPremium.status).toBe(403);
    expect(notPremium.body).toEqual({ error: "Soundboard catalog is a premium feature" });

    await premium(member);
    const res = await catalog(member);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: a.id, name: "a", icon: "🔥", builtin: false, file_url: a.file_path, server_id: serverId, server_name: "Alpha" },
      { id: b.id, name: "b", icon: "🎵", builtin: false, file_url: b.file_path, server_id: other.serverId, server_name: "Beta" },
    ]);
    await premium(outsider);
    expect((await catalog(outsider)).body).toEqual([]);
  });
});

describe("POST /api/v1/premium/soundboard/play", () => {
  async function voiceSetup() {
    const ctx = await community(server, { name: "Voice Land" });
    const voiceId = await createVoiceChannel(server, ctx.owner, ctx.serverId);
    const sound = await uploaded(ctx.serverId, ctx.owner, { name: "Drum", icon: "🥁" });
    const listener = await server.register();
    await addMember(server, ctx.serverId, listener);
    return { ...ctx, voiceId, sound, listener };
  }
  const joinVoice = async (user: TestUser, channelId: string) => {
    const socket = await server.connect(user.token);
    const ack = await socket.timeout(3000).emitWithAck("voice:join", { channelId });
    expect(ack).toMatchObject({ ok: true });
    return socket;
  };

  test("delivers voice:soundboard to the caller's voice room and nobody outside it; answers {played, channelId}", async () => {
    const { owner, member, serverId, voiceId, sound, listener } = await voiceSetup();
    await premium(member);
    const player = await joinVoice(member, voiceId);
    const inRoom = await joinVoice(listener, voiceId);
    // The owner is connected, in the server's room and the voice channel's text room, but not in the voice room.
    const outside = await server.connect(owner.token);
    await outside.timeout(3000).emitWithAck("server:join", serverId);
    await outside.timeout(3000).emitWithAck("channel:join", voiceId);
    const outsideSeen = recordEvents(outside, "voice:soundboard");

    const heard = waitForEvent(inRoom, "voice:soundboard");
    const playerHeard = waitForEvent(player, "voice:soundboard");
    const res = await play(member, { sound_id: sound.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ played: true, channelId: voiceId });
    const expected = {
      channelId: voiceId,
      sound: { id: sound.id, name: "Drum", icon: "🥁", file_url: sound.file_path },
      userId: member.id,
      username: member.username,
    };
    expect(await heard).toEqual(expected);
    expect(await playerHeard).toEqual(expected);
    await quietWindow(); // the outsider's socket: nothing later on it to wait for
    expect(outsideSeen).toEqual([]);
  });

  test("a sound of another of the caller's servers plays too (premium catalog rule)", async () => {
    const { member, voiceId, listener } = await voiceSetup();
    const other = await community(server, { name: "Elsewhere" });
    await addMember(server, other.serverId, member);
    const foreign = await uploaded(other.serverId, other.owner, { name: "Far" });
    await premium(member);
    await joinVoice(member, voiceId);
    const inRoom = await joinVoice(listener, voiceId);
    const heard = waitForEvent(inRoom, "voice:soundboard");
    expect((await play(member, { sound_id: foreign.id })).status).toBe(200);
    expect((await heard).sound).toMatchObject({ id: foreign.id, name: "Far" });
  });

  test("refusals: 401, 403 non-premium, 400 not in voice, 403 USE_SOUNDBOARD denied in the channel, 404 sound, 400 body", async () => {
    const { owner, member, outsider, voiceId, sound, everyone } = await voiceSetup();
    expect((await play(null, { sound_id: sound.id })).status).toBe(401);
    const notPremium = await play(member, { sound_id: sound.id });
    expect(notPremium.status).toBe(403);
    expect(notPremium.body.error).toContain("premium");

    await premium(member);
    const notInVoice = await play(member, { sound_id: sound.id });
    expect(notInVoice.status).toBe(400);
    expect(notInVoice.body).toEqual({ error: "Join a voice channel first" });

    await joinVoice(member, voiceId);
    expect((await play(member, { sound_id: UNKNOWN })).status).toBe(404);
    expect((await play(member, { sound_id: "not-a-uuid" })).status).toBe(404);
    expect((await play(member, {})).body).toEqual({ error: "sound_id: is required" });
    expect((await play(member, { sound_id: 7 })).status).toBe(400);

    // A sound of a server the caller is not in reads as missing.
    const other = await community(server, { name: "Private" });
    const foreign = await uploaded(other.serverId, other.owner);
    expect((await play(member, { sound_id: foreign.id })).status).toBe(404);

    // An @everyone override denying USE_SOUNDBOARD on the voice channel.
    const override = await server.api("PUT", `/api/v1/channels/${voiceId}/permissions/${everyone}`, {
      token: owner.token,
      body: { allow: 0, deny: PERMISSIONS.USE_SOUNDBOARD },
    });
    expect(override.status).toBe(200);
    const denied = await play(member, { sound_id: sound.id });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: "Missing permission: USE_SOUNDBOARD" });
    void outsider;
  });

  test("checks what speaking checks: SPEAK, CONNECT, server mute, timeout, a meeting's audience (issue 39, row 4); nothing is played", async () => {
    const { owner, member, serverId, voiceId, sound, everyone, listener } = await voiceSetup();
    await premium(member);
    const player = await joinVoice(member, voiceId);
    const inRoom = await joinVoice(listener, voiceId);
    const heard = recordEvents(inRoom, "voice:soundboard");
    const refused = async (status: number, error: string) => {
      const res = await play(member, { sound_id: sound.id });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error });
    };
    const overrides = `/api/v1/channels/${voiceId}/permissions/${everyone}`;

    // SPEAK denied on the channel: still in the room, but silent.
    expect((await server.api("PUT", overrides, { token: owner.token, body: { allow: 0, deny: PERMISSIONS.SPEAK } })).status).toBe(200);
    await refused(403, "Missing permission: SPEAK");
    expect((await server.api("DELETE", overrides, { token: owner.token })).status).toBe(200);

    // Server-muted by a moderator (the owner, from outside the room).
    const mod = await server.connect(owner.token);
    expect((await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: true })).ok).toBe(true);
    await refused(403, "You are server muted");
    expect((await mod.emitWithAck("voice:server-mute", { userId: member.id, muted: false })).ok).toBe(true);

    // A timeout written straight to the store (an API timeout also takes the member out of voice: below).
    await server.app.store.moderation.setTimeout(serverId, member.id, Math.floor(Date.now() / 1000) + 600);
    await refused(403, "You are timed out in this server");
    await server.app.store.moderation.setTimeout(serverId, member.id, null);
    expect((await play(member, { sound_id: sound.id })).status).toBe(200);
    expect((await server.api("POST", `/api/v1/servers/${serverId}/timeouts`, { token: owner.token, body: { targetUserId: member.id, duration: 600 } })).status).toBe(200);
    await refused(400, "Join a voice channel first");
    await server.api("DELETE", `/api/v1/servers/${serverId}/timeouts/${member.id}`, { token: owner.token });

    // CONNECT denied: the member is taken out of the room, so there is nowhere to play.
    await joinVoice(member, voiceId);
    expect((await server.api("PUT", overrides, { token: owner.token, body: { allow: 0, deny: PERMISSIONS.CONNECT } })).status).toBe(200);
    await refused(400, "Join a voice channel first");
    expect((await server.api("DELETE", overrides, { token: owner.token })).status).toBe(200);

    // An audience member of a meeting.
    const meetingId = await createVoiceChannel(server, owner, serverId, { name: "Town hall", is_meeting: true });
    await joinVoice(member, meetingId);
    await refused(403, "Audience members cannot speak in a meeting");

    await quietWindow(50);
    expect(heard.length).toBe(1); // the one play while nothing stood in the way
    for (const s of [player, inRoom, mod]) s.close();
  });

  test("a few plays per user: 3 within 6 s, then 429 with Retry-After; another user's are apart", async () => {
    const { member, voiceId, sound, listener } = await voiceSetup();
    await premium(member);
    await premium(listener);
    await joinVoice(member, voiceId);
    const inRoom = await joinVoice(listener, voiceId);
    const heard = recordEvents(inRoom, "voice:soundboard");
    for (let i = 0; i < 3; i++) expect((await play(member, { sound_id: sound.id })).status).toBe(200);
    const flood = await Promise.all(Array.from({ length: 20 }, () => play(member, { sound_id: sound.id })));
    for (const res of flood) {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: "You are playing sounds too fast, try again in a moment" });
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(6);
    }
    expect((await play(listener, { sound_id: sound.id })).status).toBe(200);
    // The listener's play comes last on this socket: the member's would all have arrived before it.
    await until(() => heard.some((e: { userId: string }) => e.userId === listener.id), "the listener's play");
    expect(heard.filter((e: { userId: string }) => e.userId === member.id).length).toBe(3);
    inRoom.close();
  });
});

describe("the play rate is configurable", () => {
  test("SOUNDBOARD_PLAYS_PER_WINDOW / SOUNDBOARD_PLAY_WINDOW_SECONDS: one play a second", async () => {
    const strict = await startServer({ soundboardPlayRate: { plays: 1, windowSeconds: 1 } });
    try {
      const owner = await strict.register();
      const serverId = (await strict.api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Strict" } })).body.id;
      const voiceId = (await strict.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Room", type: "voice" } })).body.id;
      const data = new FormData();
      data.append("sound", new File([MP3_ID3], "beep.mp3"));
      const sound = (await strict.api("POST", `/api/v1/servers/${serverId}/soundboard`, { token: owner.token, raw: data })).body;
      await strict.app.store.users.setPremium(owner.id, true);
      const socket = await strict.connect(owner.token);
      expect((await socket.emitWithAck("voice:join", { channelId: voiceId })).ok).toBe(true);
      const playOnce = () => strict.api("POST", "/api/v1/premium/soundboard/play", { token: owner.token, body: { sound_id: sound.id } });
      expect((await playOnce()).status).toBe(200);
      expect((await playOnce()).status).toBe(429);
      // The window is whole seconds (the setting's unit), so one second passes here.
      await letTimePass(1100, "the one-second play window ends");
      expect((await playOnce()).status).toBe(200);
      socket.close();
    } finally {
      await strict.stop();
    }
  });
});
