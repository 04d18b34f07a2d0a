/**
 * Who is in each of a server's voice channels, for the channel list (docs/voice.md, "Who is in
 * each voice channel"): loaded with the channels (`GET /servers/:id/voice-states`), kept live by
 * `voice:channel-update` (the room's whole snapshot each time), dropped and asked again after a
 * reconnect that lost events.
 */
import { signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import type { VoiceChannelState } from "../lib/wire-types.ts";

export class VoiceOccupancy {
  /** By channel id; a room nobody is in has no entry. */
  readonly rooms = signal<ReadonlyMap<string, VoiceChannelState>>(new Map());
  /** Updates that arrive while a load is asked: newer than its answer, so they win over it. */
  private during: Map<string, VoiceChannelState> | null = null;
  /** Loads asked so far: only the latest one's answer is used. */
  private loads = 0;

  constructor(
    private readonly serverId: string,
    private readonly rest: RestClient,
  ) {}

  async reload(): Promise<void> {
    const load = ++this.loads;
    const during = new Map<string, VoiceChannelState>();
    this.during = during;
    let loaded: VoiceChannelState[];
    try {
      loaded = await this.rest.request("listVoiceStates", { params: { id: this.serverId } });
    } catch {
      // Who is in voice only decorates the channel list: the updates still fill it in.
      if (load === this.loads) this.during = null;
      return;
    }
    if (load !== this.loads) return;
    this.during = null;
    const rooms = new Map(loaded.map((room) => [room.channel_id, room]));
    for (const [id, room] of during) this.put(rooms, id, room);
    this.rooms.value = rooms;
  }

  /**
   * The gateway's first connection has joined its rooms: a load answered before then may have
   * missed an update that went to rooms the page was not in yet, so it is asked again.
   */
  subscribed(): void {
    if (this.loads > 0) void this.reload();
  }

  /** A room's snapshot from `voice:channel-update`. */
  apply(room: VoiceChannelState): void {
    this.during?.set(room.channel_id, room);
    const rooms = new Map(this.rooms.value);
    this.put(rooms, room.channel_id, room);
    this.rooms.value = rooms;
  }

  forget(channelId: string): void {
    if (!this.rooms.value.has(channelId)) return;
    const rooms = new Map(this.rooms.value);
    rooms.delete(channelId);
    this.rooms.value = rooms;
  }

  clear(): void {
    this.rooms.value = new Map();
  }

  private put(rooms: Map<string, VoiceChannelState>, channelId: string, room: VoiceChannelState): void {
    if (room.occupants.length === 0 && room.audience_count === 0) rooms.delete(channelId);
    else rooms.set(channelId, room);
  }
}
