import type { LiveStateListener } from "../community/members.ts";
import type { SharedState } from "../shared/shared-state.ts";

type Change =
  | { kind: "memberRemoved"; serverId: string; userId: string }
  | { kind: "accessChanged"; serverId: string; userIds?: string[] }
  | { kind: "channelDeleted"; channelId: string };

/**
 * Live state (voice rooms) is held per node in cluster mode: a member removed, an access change
 * or a deleted channel is applied by this node and signalled to the others, which apply it to
 * the voice rooms they hold (a kick through node 1 takes the member out of a room on node 2).
 * On one node the signal goes nowhere.
 */
export function onEveryNode(listener: LiveStateListener, shared: SharedState): LiveStateListener {
  const apply = (change: Change) => {
    switch (change.kind) {
      case "memberRemoved":
        return listener.memberRemoved(change.serverId, change.userId);
      case "accessChanged":
        return listener.accessChanged(change.serverId, change.userIds);
      case "channelDeleted":
        return listener.channelDeleted({ id: change.channelId });
    }
  };
  shared.onSignal("live-state", (data) => {
    let change: Change;
    try {
      change = JSON.parse(data) as Change;
    } catch {
      return;
    }
    void Promise.resolve(apply(change)).catch(() => {});
  });
  const everywhere = (change: Change) => {
    shared.signal("live-state", JSON.stringify(change));
    return apply(change);
  };
  return {
    memberRemoved: (serverId, userId) => everywhere({ kind: "memberRemoved", serverId, userId }),
    accessChanged: (serverId, userIds) => everywhere({ kind: "accessChanged", serverId, userIds }),
    channelDeleted: (channel) => everywhere({ kind: "channelDeleted", channelId: channel.id }),
  };
}
