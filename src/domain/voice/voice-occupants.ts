import type { Store } from "../../store/store.ts";
import type { Logger } from "../../log.ts";
import type { Access } from "../access/access.ts";
import type { Members } from "../community/members.ts";
import type { VoiceChannelState, VoiceOccupant } from "../shared/shapes.ts";
import type { Participant, VoiceRoomMembership } from "./voice-rooms.ts";
import type { VoiceStates } from "./voice-states.ts";

/**
 * At most one `voice:channel-update` per room in this window: speaking turns on and off several
 * times a second in a lively room, and each update goes to every connected member of the server.
 */
export const VOICE_UPDATE_INTERVAL_MS = 200;

/** A room's publishing: when it last went out, the trailing update waiting, what was sent. */
interface RoomUpdates {
  serverId: string;
  last: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** Updates of one room go out one after another, each reading the room when its turn comes. */
  chain: Promise<void>;
  sent: string | null;
}

/** What Voice tells of its rooms: something anyone who can see the channel sees has changed. */
export interface VoiceRoomChanges {
  changed(participant: Pick<Participant, "serverId" | "channelId">): void;
}

/**
 * Who is in each voice channel, for everyone who can see it (docs/voice.md, "Who is in each
 * voice channel"). The room's home, told of every change by Voice, publishes the room's whole
 * snapshot to the server's members who may view the channel (Members.publishAboutChannel) and
 * records it in VoiceStates, which `GET /api/v1/servers/:id/voice-states` reads on any node.
 * Updates are coalesced per room: the first change after a quiet window goes out at once, the
 * later ones within VOICE_UPDATE_INTERVAL_MS as one trailing update with the state at its end;
 * each reads the room when its turn comes, so the last state always goes out last.
 */
export class VoiceOccupants implements VoiceRoomChanges {
  private readonly updates = new Map<string, RoomUpdates>();
  /** Read once per participant: a speaking change must not cost a user read. */
  private readonly avatars = new WeakMap<Participant, Promise<string | null>>();

  constructor(
    private readonly rooms: VoiceRoomMembership,
    private readonly store: Store,
    private readonly access: Access,
    private readonly members: Pick<Members, "publishAboutChannel">,
    private readonly states: VoiceStates,
    private readonly log: Logger,
    private readonly intervalMs = VOICE_UPDATE_INTERVAL_MS,
  ) {}

  /**
   * The room changed: its update goes now, or at the end of the room's window. Voice does not
   * wait for it (in cluster mode the audience is read from every node), and a failure is logged.
   */
  changed({ serverId, channelId }: Pick<Participant, "serverId" | "channelId">): void {
    let room = this.updates.get(channelId);
    if (!room) this.updates.set(channelId, (room = { serverId, last: -Infinity, timer: null, chain: Promise.resolve(), sent: null }));
    if (room.timer) return;
    const wait = room.last + this.intervalMs - performance.now();
    if (wait <= 0) return this.flush(channelId, room);
    const waiting = room;
    waiting.timer = setTimeout(() => {
      waiting.timer = null;
      this.flush(channelId, waiting);
    }, wait);
  }

  /** The server's voice rooms with someone in them that the caller may view, in channel order. */
  async list(serverId: string, userId: string): Promise<VoiceChannelState[]> {
    const member = await this.access.member(serverId, userId);
    const [open, states] = await Promise.all([this.access.channelsOpenTo(member), this.states.ofServer(member.server.id)]);
    const byChannel = new Map(states.map((state) => [state.channel_id, state]));
    return open.flatMap((channelId) => byChannel.get(channelId) ?? []);
  }

  /**
   * Cluster mode: a dead node's rooms, gone with it (src/cluster/redis-voice-states.ts
   * `takeRoomsOf`): each is shown empty to those who can see it. A room someone joined again
   * since is written by its new home, which tells its own state.
   */
  async homeLost(nodeId: string): Promise<void> {
    for (const { serverId, channelId } of (await this.states.takeRoomsOf?.(nodeId)) ?? []) {
      const channel = await this.store.channels.findById(channelId);
      // Checked last: a new home that took the room over meanwhile has told (or will tell) its state.
      if (!channel || (await this.states.ofServer(serverId)).some((state) => state.channel_id === channelId)) continue;
      await this.members.publishAboutChannel(channel, "voice:channel-update", { server_id: serverId, channel_id: channelId, occupants: [], audience_count: 0 });
    }
  }

  private flush(channelId: string, room: RoomUpdates): void {
    room.last = performance.now();
    room.chain = room.chain
      .then(() => this.publish(channelId, room))
      .catch((error) => this.log.error("voice channel update failed", { channelId, error }));
  }

  private async publish(channelId: string, room: RoomUpdates): Promise<void> {
    const state = await this.snapshot(channelId);
    const json = JSON.stringify(state);
    const empty = state.occupants.length === 0 && state.audience_count === 0;
    // Nothing anyone sees changed (a hand raised, a bot listening): no update.
    if (json !== room.sent) {
      room.sent = json;
      if (empty) await this.states.remove(room.serverId, channelId);
      else await this.states.put(room.serverId, state);
      // A deleted channel's members were told by `channel:deleted`; there is nobody to screen for.
      const channel = await this.store.channels.findById(channelId);
      if (channel) await this.members.publishAboutChannel(channel, "voice:channel-update", { server_id: room.serverId, ...state });
    }
    if (empty && !room.timer && this.updates.get(channelId) === room) this.updates.delete(channelId);
  }

  /** The room now: everyone in join order, or a meeting's speakers and its audience counted. */
  private async snapshot(channelId: string): Promise<VoiceChannelState> {
    const inRoom = this.rooms.inChannel(channelId);
    const shown = inRoom.filter((p) => p.meetingRole !== "audience");
    const occupants = await Promise.all(shown.map((p) => this.occupant(p)));
    return { channel_id: channelId, occupants, audience_count: inRoom.length - shown.length };
  }

  private async occupant(p: Participant): Promise<VoiceOccupant> {
    const avatar = await this.avatarOf(p);
    return {
      user_id: p.userId,
      username: p.username,
      avatar,
      muted: p.muted,
      deafened: p.deafened,
      server_muted: p.serverMuted,
      server_deafened: p.serverDeafened,
      speaking: p.speaking,
      video: p.video,
      meeting_role: p.meetingRole,
    };
  }

  private avatarOf(p: Participant): Promise<string | null> {
    let avatar = this.avatars.get(p);
    if (!avatar) {
      avatar = this.store.users.findById(p.userId).then(
        (user) => user?.avatar ?? null,
        () => {
          this.avatars.delete(p);
          return null;
        },
      );
      this.avatars.set(p, avatar);
    }
    return avatar;
  }
}
