import type { VoiceChannelState } from "../shared/shapes.ts";

/**
 * The last snapshot of each voice room with someone in it, by server, for
 * `GET /api/v1/servers/:id/voice-states` on any node (docs/voice.md, "Who is in each voice
 * channel"). Written only by the room's home (the node holding it); on one node it is this
 * process's memory, in cluster mode Redis (src/cluster/redis-voice-states.ts), where a snapshot
 * counts only while the node that wrote it is alive.
 */
export interface VoiceStates {
  /** The room's snapshot now (it has someone in it). */
  put(serverId: string, state: VoiceChannelState): Promise<void>;
  /** The room emptied: its snapshot goes (only the one this node wrote). */
  remove(serverId: string, channelId: string): Promise<void>;
  /** The server's rooms with someone in them, as their homes last wrote them. */
  ofServer(serverId: string): Promise<VoiceChannelState[]>;
  /** Cluster mode: removes the snapshots a dead node wrote, once; answers their rooms. */
  takeRoomsOf?(nodeId: string): Promise<{ serverId: string; channelId: string }[]>;
}

/** One node: it holds every room, so its memory is the whole answer. */
export function localVoiceStates(): VoiceStates {
  const byServer = new Map<string, Map<string, VoiceChannelState>>();
  return {
    async put(serverId, state) {
      let rooms = byServer.get(serverId);
      if (!rooms) byServer.set(serverId, (rooms = new Map()));
      rooms.set(state.channel_id, state);
    },
    async remove(serverId, channelId) {
      const rooms = byServer.get(serverId);
      if (rooms?.delete(channelId) && rooms.size === 0) byServer.delete(serverId);
    },
    async ofServer(serverId) {
      return [...(byServer.get(serverId)?.values() ?? [])];
    },
  };
}
