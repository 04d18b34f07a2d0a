/** The voice room's pure rules in the web app (web/voice/room.ts): events applied to the room, who transmits. */
import { describe, expect, test } from "bun:test";
import { applyRoomEvent, listeningBots, meetingSections, transmitting } from "../../web/voice/room.ts";
import type { VoiceParticipant } from "../../web/voice/types.ts";

const person = (socketId: string, extra: Partial<VoiceParticipant> = {}): VoiceParticipant => ({
  socketId,
  userId: `u-${socketId}`,
  username: socketId,
  isBot: false,
  muted: false,
  deafened: false,
  video: false,
  serverMuted: false,
  serverDeafened: false,
  speaking: false,
  meetingRole: null,
  handRaised: false,
  listening: false,
  ...extra,
});

describe("applyRoomEvent", () => {
  const room = [person("a"), person("b")];

  test("joins append (replacing the same user's older socket), leaves remove", () => {
    expect(applyRoomEvent(room, { type: "voice:user-joined", payload: person("c") }).map((p) => p.socketId)).toEqual(["a", "b", "c"]);
    const again = applyRoomEvent(room, { type: "voice:user-joined", payload: person("a2", { userId: "u-a" }) });
    expect(again.map((p) => p.socketId)).toEqual(["b", "a2"]);
    expect(applyRoomEvent(room, { type: "voice:user-left", payload: { socketId: "a" } }).map((p) => p.socketId)).toEqual(["b"]);
  });

  test("state, speaking, meeting, moderation and listening updates patch the one participant", () => {
    const speaking = applyRoomEvent(room, { type: "voice:speaking", payload: { socketId: "a", speaking: true } });
    expect(speaking[0]!.speaking).toBe(true);
    expect(speaking[1]).toBe(room[1]!);
    // Muting (oneself, or by a moderator) also ends speaking.
    const muted = applyRoomEvent(speaking, { type: "voice:state-update", payload: { socketId: "a", userId: "u-a", muted: true, deafened: true, video: false } });
    expect(muted[0]).toMatchObject({ muted: true, deafened: true, speaking: false });
    const serverMuted = applyRoomEvent(speaking, { type: "voice:admin-mute-update", payload: { socketId: "a", serverMuted: true } });
    expect(serverMuted[0]).toMatchObject({ serverMuted: true, speaking: false });
    expect(applyRoomEvent(room, { type: "voice:admin-deafen-update", payload: { socketId: "b", serverDeafened: true } })[1]!.serverDeafened).toBe(true);
    const meeting = applyRoomEvent(room, { type: "voice:meeting-update", payload: { socketId: "b", userId: "u-b", meetingRole: "speaker", handRaised: false } });
    expect(meeting[1]).toMatchObject({ meetingRole: "speaker", handRaised: false });
    expect(applyRoomEvent(room, { type: "voice:listening", payload: { socketId: "b", listening: true } })[1]!.listening).toBe(true);
  });

  test("an event about someone not in the room changes nothing", () => {
    expect(applyRoomEvent(room, { type: "voice:speaking", payload: { socketId: "zz", speaking: true } })).toBe(room);
  });
});

describe("transmitting: when the microphone goes out", () => {
  const me = person("me");
  const base = { me, micLive: true, mode: "voice-activity" as const, voiceDetected: true, talkHeld: false };
  test.each([
    ["voice detected, unmuted", {}, true],
    ["no voice", { voiceDetected: false }, false],
    ["no microphone", { micLive: false }, false],
    ["muted", { me: { ...me, muted: true } }, false],
    ["server muted", { me: { ...me, serverMuted: true } }, false],
    ["a meeting's audience", { me: { ...me, meetingRole: "audience" as const } }, false],
    ["a meeting's speaker", { me: { ...me, meetingRole: "speaker" as const } }, true],
    ["push-to-talk, not held", { mode: "push-to-talk" as const }, false],
    ["push-to-talk, held, silent", { mode: "push-to-talk" as const, talkHeld: true, voiceDetected: false }, true],
    ["not in the room", { me: undefined }, false],
  ])("%s", (_name, change, expected) => {
    expect(transmitting({ ...base, ...change })).toBe(expected);
  });
});

test("listening bots and meeting sections", () => {
  const room = [person("a", { meetingRole: "speaker" }), person("b", { meetingRole: "audience", handRaised: true }), person("bot", { isBot: true, listening: true, meetingRole: "audience" })];
  expect(listeningBots(room).map((p) => p.socketId)).toEqual(["bot"]);
  expect(listeningBots([person("x", { listening: true })])).toEqual([]);
  const { speakers, audience } = meetingSections(room);
  expect(speakers.map((p) => p.socketId)).toEqual(["a"]);
  expect(audience.map((p) => p.socketId)).toEqual(["b", "bot"]);
});
