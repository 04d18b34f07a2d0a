import { describe, expect, test } from "bun:test";
import { VoiceRooms } from "../../src/audio/voice-rooms.ts";
import type { Participant } from "../../src/domain/voice/voice-rooms.ts";

const p = (socketId: string, userId: string, channelId: string): Participant => ({
  socketId, userId, username: userId, isBot: false, serverId: "s", channelId, muted: false, deafened: false, video: false,
  serverMuted: false, serverDeafened: false, speaking: false, meetingRole: null, handRaised: false, listening: false, joinedAt: 0,
});

describe("VoiceRooms", () => {
  test("join, look up, leave", () => {
    const rooms = new VoiceRooms();
    expect(rooms.join(p("a1", "alice", "c1")).previous).toBeNull();
    rooms.join(p("b1", "bob", "c1"));
    expect(rooms.inChannel("c1").map((x) => x.socketId)).toEqual(["a1", "b1"]);
    expect(rooms.ofUser("alice")?.socketId).toBe("a1");
    expect(rooms.leave("a1")?.userId).toBe("alice");
    expect(rooms.ofUser("alice")).toBeNull();
    expect(rooms.leave("a1")).toBeNull();
    expect(rooms.inChannel("c1").map((x) => x.socketId)).toEqual(["b1"]);
  });

  test("one voice channel per user: joining elsewhere, or from another device, replaces the first", () => {
    const rooms = new VoiceRooms();
    rooms.join(p("a1", "alice", "c1"));
    expect(rooms.join(p("a1", "alice", "c2")).previous?.channelId).toBe("c1");
    expect(rooms.inChannel("c1")).toEqual([]);
    expect(rooms.join(p("a2", "alice", "c2")).previous?.socketId).toBe("a1");
    expect(rooms.inChannel("c2").map((x) => x.socketId)).toEqual(["a2"]);
    expect(rooms.participant("a1")).toBeNull();
    expect(rooms.all()).toHaveLength(1);
  });

  test("update changes state only", () => {
    const rooms = new VoiceRooms();
    rooms.join(p("a1", "alice", "c1"));
    expect(rooms.update("a1", { muted: true, handRaised: true })?.muted).toBe(true);
    expect(rooms.participant("a1")?.handRaised).toBe(true);
    expect(rooms.update("zz", { muted: true })).toBeNull();
  });

  test("listeners: the listening participants of a channel, kept through updates, leaving and rejoining", () => {
    const rooms = new VoiceRooms();
    rooms.join(p("a1", "alice", "c1"));
    rooms.join(p("b1", "bot", "c1"));
    expect([...rooms.listeners("c1")]).toEqual([]);
    rooms.update("b1", { listening: true });
    expect([...rooms.listeners("c1")].map((x) => x.socketId)).toEqual(["b1"]);
    rooms.update("b1", { muted: true });
    expect(rooms.listeners("c1").size).toBe(1);
    rooms.update("b1", { listening: false });
    expect(rooms.listeners("c1").size).toBe(0);
    rooms.update("b1", { listening: true });
    // Leaving (or joining elsewhere, which leaves first) takes the listener out of its channel's set.
    rooms.join({ ...p("b2", "bot", "c2"), listening: false });
    expect(rooms.listeners("c1").size).toBe(0);
    expect(rooms.listeners("c2").size).toBe(0);
    rooms.update("b2", { listening: true });
    expect(rooms.leave("b2")?.listening).toBe(true);
    expect(rooms.listeners("c2").size).toBe(0);
  });
});
