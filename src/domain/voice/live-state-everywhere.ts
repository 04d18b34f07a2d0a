import type { LiveStateListener } from "../community/members.ts";
import type { DmListener } from "../dms/dms.ts";
import type { SharedState } from "../shared/shared-state.ts";
import type { Logger } from "../../log.ts";

/** Sent between nodes as JSON: the DM kinds keep their first names so nodes of two versions still agree. */
type Change =
  | { kind: "memberRemoved"; serverId: string; userId: string }
  | { kind: "accessChanged"; serverId: string; userIds?: string[] }
  | { kind: "channelDeleted"; channelId: string }
  | { kind: "conversationMemberLeft"; conversationId: string; userId: string; by: string }
  | { kind: "conversationDeleted"; conversationId: string; by: string }
  | { kind: "voiceJoined"; userId: string; socketId: string }
  | { kind: "userConnected"; userId: string; socketId: string };

/** What a node does with a device that connected to another: the calls held here ring on it (DmCalls.socketConnected). */
interface CallRings {
  socketConnected(userId: string, socketId: string): void;
}

/** What a node does with another node's voice join: leaves the user's room held here (one room per user). */
interface VoiceJoins {
  joinedElsewhere(userId: string, socketId: string): Promise<void>;
}

/**
 * Tells the other nodes that a user joined a voice room held here; each takes them out of the
 * room it holds (Voice.joinedElsewhere: one voice room per user over the whole cluster).
 */
export const signalVoiceJoined = (shared: SharedState) => (userId: string, socketId: string) =>
  shared.signal("live-state", JSON.stringify({ kind: "voiceJoined", userId, socketId } satisfies Change));

/**
 * Live state (voice rooms, DM calls) is held per node in cluster mode: a member removed, an
 * access change, a deleted channel, someone leaving a group DM, a deleted DM or a device that
 * connected (a call ringing for its user rings on it) is applied by this node and signalled to
 * the others, which apply it to the rooms and calls they hold (a kick through node 1 takes the
 * member out of a room on node 2). On one node the signal goes nowhere.
 */
export function onEveryNode(
  voice: LiveStateListener & VoiceJoins,
  calls: DmListener & CallRings,
  shared: SharedState,
  log: Logger,
): { voice: LiveStateListener; calls: DmListener & CallRings } {
  // Voice's changes are asynchronous, the calls' synchronous (their callers expect both so).
  const apply = (change: Change): Promise<void> | void => {
    switch (change.kind) {
      case "memberRemoved":
        return voice.memberRemoved(change.serverId, change.userId);
      case "accessChanged":
        return voice.accessChanged(change.serverId, change.userIds);
      case "channelDeleted":
        return voice.channelDeleted({ id: change.channelId });
      case "conversationMemberLeft":
        return calls.memberLeft(change.conversationId, change.userId, change.by);
      case "conversationDeleted":
        return calls.dmDeleted(change.conversationId, change.by);
      case "voiceJoined":
        return voice.joinedElsewhere(change.userId, change.socketId);
      case "userConnected":
        return calls.socketConnected(change.userId, change.socketId);
    }
  };
  shared.onSignal("live-state", (data) => {
    let change: Change;
    try {
      change = JSON.parse(data) as Change;
    } catch {
      return;
    }
    // Another node's change: nobody here waits for it, so a failure is logged here.
    void Promise.resolve()
      .then(() => apply(change))
      .catch((error) => log.error("live state change from another node failed", { kind: change.kind, error }));
  });
  const everywhere = (change: Change) => {
    shared.signal("live-state", JSON.stringify(change));
    return apply(change);
  };
  return {
    voice: {
      memberRemoved: async (serverId, userId) => everywhere({ kind: "memberRemoved", serverId, userId }),
      accessChanged: async (serverId, userIds) => everywhere({ kind: "accessChanged", serverId, userIds }),
      channelDeleted: async (channel) => everywhere({ kind: "channelDeleted", channelId: channel.id }),
    },
    calls: {
      memberLeft: (conversationId, userId, by) => void everywhere({ kind: "conversationMemberLeft", conversationId, userId, by }),
      dmDeleted: (conversationId, by) => void everywhere({ kind: "conversationDeleted", conversationId, by }),
      socketConnected: (userId, socketId) => void everywhere({ kind: "userConnected", userId, socketId }),
    },
  };
}
