/**
 * Issue 17, voice point 5 in the browser: meetings (audience and speakers, raising a hand,
 * promoting and demoting), voice moderation (server mute and deafen, move, disconnect, offered
 * only with the bits) and the soundboard.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { createVoiceChannel } from "../../helpers/community.ts";
import { eventually, startWebSuite, type WebSuite } from "./harness.ts";
import { closePages, controls, diagnostics, joinVoice, options, room, tile, voiceServer } from "./voice-helpers.ts";

let suite: WebSuite;
beforeAll(async () => {
  suite = await startWebSuite({ media: true });
});
afterAll(() => suite.stop());
afterEach(() => closePages(suite));

const USE_SOUNDBOARD = 1 << 22;

/** A WAV file of `seconds` of a sine (16-bit mono, 48 kHz), something a browser can decode. */
function wav(hz: number, seconds: number): Uint8Array {
  const rate = 48000;
  const samples = Math.round(rate * seconds);
  const out = new DataView(new ArrayBuffer(44 + samples * 2));
  const text = (offset: number, s: string) => [...s].forEach((c, i) => out.setUint8(offset + i, c.charCodeAt(0)));
  text(0, "RIFF");
  out.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVEfmt ");
  out.setUint32(16, 16, true);
  out.setUint16(20, 1, true);
  out.setUint16(22, 1, true);
  out.setUint32(24, rate, true);
  out.setUint32(28, rate * 2, true);
  out.setUint16(32, 2, true);
  out.setUint16(34, 16, true);
  text(36, "data");
  out.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) out.setInt16(44 + i * 2, Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * 12000), true);
  return new Uint8Array(out.buffer);
}

test("a meeting: the audience raises a hand, a moderator invites them to speak and moves them back", async () => {
  const host = await suite.person({ name: "host_meet" });
  const guest = await suite.person({ name: "guest_meet" });
  const { serverId, channelId } = await voiceServer(suite, host, [guest], { is_meeting: true, name: "Town hall" });
  await joinVoice(host, serverId, channelId, "Town hall");
  await joinVoice(guest, serverId, channelId, "Town hall");
  const audienceTile = (page: typeof host.page, name: string) => tile(page, name, "Audience", "Town hall");
  const speakerTile = (page: typeof host.page, name: string) => tile(page, name, "Speakers", "Town hall");

  // Everyone joins in the audience, muted, and cannot unmute.
  await audienceTile(guest.page, `${guest.username} (you)`).waitFor();
  await audienceTile(guest.page, host.username).waitFor();
  const guestMute = controls(guest.page, "Town hall").getByRole("button", { name: "Mute" });
  expect(await guestMute.getAttribute("aria-pressed")).toBe("true");
  expect(await guestMute.isDisabled()).toBe(true);

  // The host (owner: MUTE_MEMBERS) makes themselves a speaker and unmutes.
  await audienceTile(host.page, `${host.username} (you)`).getByRole("button", { name: `Options for ${host.username}` }).click();
  await options(host.page, host.username, "Town hall").getByRole("button", { name: "Invite to speak" }).click();
  await speakerTile(host.page, `${host.username} (you)`).waitFor();
  await controls(host.page, "Town hall").getByRole("button", { name: "Mute" }).click();
  await eventually(async () => expect(await controls(host.page, "Town hall").getByRole("button", { name: "Mute" }).getAttribute("aria-pressed")).toBe("false"));
  await speakerTile(guest.page, host.username).waitFor();

  // The guest raises a hand; the host sees it.
  await controls(guest.page, "Town hall").getByRole("button", { name: "Raise hand" }).click();
  await audienceTile(host.page, guest.username).getByRole("img", { name: "Hand raised" }).waitFor();
  await room(host.page, "Town hall").getByText("1 hand raised").waitFor();
  await suite.shot(host.page, "meeting-1-hand-raised");
  // A plain member is offered no meeting or moderation actions on others.
  await speakerTile(guest.page, host.username).getByRole("button", { name: `Options for ${host.username}` }).click();
  const offered = options(guest.page, host.username, "Town hall");
  await offered.getByRole("slider", { name: `Volume of ${host.username}` }).waitFor();
  expect(await offered.getByRole("button").allTextContents()).toEqual(["×"]);

  // Invited to speak: the guest moves to the speakers, hand lowered, and may unmute.
  await audienceTile(host.page, guest.username).getByRole("button", { name: `Options for ${guest.username}` }).click();
  await options(host.page, guest.username, "Town hall").getByRole("button", { name: "Invite to speak" }).click();
  await speakerTile(guest.page, `${guest.username} (you)`).waitFor();
  expect(await speakerTile(guest.page, `${guest.username} (you)`).getByRole("img", { name: "Hand raised" }).count()).toBe(0);
  await eventually(async () => expect(await guestMute.isDisabled()).toBe(false));
  await guestMute.click();
  await speakerTile(host.page, guest.username).getByRole("img", { name: "Muted" }).waitFor({ state: "detached" });
  await suite.shot(host.page, "meeting-2-speakers");

  // Moved back to the audience: muted again.
  await speakerTile(host.page, guest.username).getByRole("button", { name: `Options for ${guest.username}` }).click();
  await options(host.page, guest.username, "Town hall").getByRole("button", { name: "Move to audience" }).click();
  await audienceTile(guest.page, `${guest.username} (you)`).getByRole("img", { name: "Muted" }).waitFor();
  await eventually(async () => expect(await guestMute.getAttribute("aria-pressed")).toBe("true"));
});

test("moderation: server mute and deafen, move to another channel, disconnect; refusals are shown", async () => {
  const mod = await suite.person({ name: "mod_voice" });
  const member = await suite.person({ name: "member_voice" });
  const { serverId, channelId } = await voiceServer(suite, mod, [member]);
  await createVoiceChannel(suite.server, mod, serverId, { name: "Quiet room" });
  await joinVoice(mod, serverId, channelId);
  await joinVoice(member, serverId, channelId);
  const memberTile = tile(mod.page, member.username);
  await memberTile.getByRole("button", { name: `Options for ${member.username}` }).click();
  const memberOptions = options(mod.page, member.username);

  await memberOptions.getByRole("button", { name: "Server mute" }).click();
  await tile(member.page, `${member.username} (you)`).getByRole("img", { name: "Server muted" }).waitFor();
  await eventually(async () => expect((await diagnostics(member.page)).voice.transmitting).toBe(false));
  await memberOptions.getByRole("button", { name: "Server deafen" }).click();
  await tile(member.page, `${member.username} (you)`).getByRole("img", { name: "Server deafened" }).waitFor();
  await suite.shot(mod.page, "moderation-1-muted-deafened");
  await memberOptions.getByRole("button", { name: "Remove server mute" }).click();
  await memberOptions.getByRole("button", { name: "Remove server deafen" }).click();
  await tile(member.page, `${member.username} (you)`).getByRole("img", { name: "Server muted" }).waitFor({ state: "detached" });

  // Move: the member lands in the other room and is told.
  await memberOptions.getByRole("combobox", { name: `Move ${member.username} to` }).selectOption({ label: "Quiet room" });
  await memberOptions.getByRole("button", { name: "Move", exact: true }).click();
  await room(member.page).getByRole("status").filter({ hasText: "A moderator moved you to Quiet room." }).waitFor();
  await member.page.getByRole("region", { name: "Voice connection" }).getByRole("link", { name: "Quiet room" }).waitFor();
  await memberTile.waitFor({ state: "detached" });
  await member.page.getByRole("region", { name: "Voice connection" }).getByRole("link", { name: "Quiet room" }).click();
  await tile(member.page, `${member.username} (you)`, "In voice", "Quiet room").waitFor();

  // Disconnect, from the room the member is in now.
  await mod.page.getByRole("navigation", { name: "Channels", exact: true }).getByRole("link", { name: "Quiet room" }).click();
  await room(mod.page, "Quiet room").getByRole("button", { name: "Join voice" }).click();
  const there = tile(mod.page, member.username, "In voice", "Quiet room");
  await there.getByRole("button", { name: `Options for ${member.username}` }).click();
  await options(mod.page, member.username, "Quiet room").getByRole("button", { name: "Disconnect" }).click();
  await room(member.page, "Quiet room").getByRole("status").filter({ hasText: "A moderator disconnected you from voice." }).waitFor();
  await room(member.page, "Quiet room").getByRole("button", { name: "Join voice" }).waitFor();
  expect(suite.server.app.domain.voice.rooms.ofUser(member.id)).toBeNull();
});

test("a moderator's action the server refuses shows its error", async () => {
  const owner = await suite.server.register();
  const mod = await suite.person({ name: "junior_mod" });
  const admin = await suite.person({ name: "senior_admin" });
  const { serverId, channelId } = await voiceServer(suite, owner, []);
  await suite.server.app.store.members.add(serverId, mod.id, "moderator");
  await suite.server.app.store.members.add(serverId, admin.id, "admin");
  await joinVoice(admin, serverId, channelId);
  await joinVoice(mod, serverId, channelId);
  // A moderator has MUTE_MEMBERS, but the admin ranks above: offered, refused by the server.
  const adminTile = tile(mod.page, admin.username);
  await adminTile.getByRole("button", { name: `Options for ${admin.username}` }).click();
  await options(mod.page, admin.username).getByRole("button", { name: "Server mute" }).click();
  await room(mod.page).getByRole("alert").filter({ hasText: "You cannot act on a member ranked at or above you" }).waitFor();
});

test("the soundboard: a premium member plays a sound for the room; where USE_SOUNDBOARD is missing it is not offered", async () => {
  const owner = await suite.person({ name: "dj_owner" });
  const member = await suite.person({ name: "listener" });
  const { serverId, channelId } = await voiceServer(suite, owner, [member]);
  await suite.server.app.store.users.setPremium(owner.id, true);
  const form = new FormData();
  form.append("sound", new File([wav(880, 0.6)], "air horn.wav"));
  form.append("icon", "📯");
  expect((await suite.server.api("POST", `/api/v1/servers/${serverId}/soundboard`, { token: owner.token, raw: form })).status).toBe(201);
  await owner.page.reload(); // the app asks /users/me/info again: premium now
  await eventually(async () => expect(await owner.page.evaluate(() => JSON.parse(localStorage.getItem("hearth.session")!).user.premium)).toBe(true));
  await joinVoice(owner, serverId, channelId);
  await joinVoice(member, serverId, channelId);

  await controls(owner.page).getByRole("button", { name: "Soundboard" }).click();
  const panel = room(owner.page).getByRole("region", { name: "Soundboard" });
  await panel.getByRole("button", { name: "Play air horn" }).click();
  for (const page of [owner.page, member.page]) {
    await room(page).getByRole("status").filter({ hasText: `${owner.username} played 📯 air horn` }).waitFor();
    await eventually(async () => expect((await diagnostics(page)).voice.audio.soundsPlayed).toBe(1));
  }
  await suite.shot(owner.page, "soundboard-1-played");

  // Not premium: the panel says so instead of offering sounds.
  await controls(member.page).getByRole("button", { name: "Soundboard" }).click();
  const notPremium = room(member.page).getByRole("region", { name: "Soundboard" });
  await notPremium.getByText("Playing sounds for the room is a Premium feature, and this account does not have Premium.").waitFor();
  await notPremium.getByText("the people who run this platform grant it to accounts").waitFor();
  await suite.shot(member.page, "soundboard-2-not-premium");

  // Without USE_SOUNDBOARD (taken from @everyone), there is no soundboard button.
  const everyone = (await suite.server.app.store.access.member(serverId, owner.id))!.everyone_id;
  const roles = await suite.server.api("GET", `/api/v1/roles/${serverId}`, { token: owner.token });
  const role = (roles.body as any[]).find((r) => r.id === everyone);
  const updated = await suite.server.api("PUT", `/api/v1/roles/${serverId}/${everyone}`, { token: owner.token, body: { permissions: role.permissions & ~USE_SOUNDBOARD } });
  expect(updated.status).toBe(200);
  await controls(member.page).getByRole("button", { name: "Soundboard" }).waitFor({ state: "detached" });
});
