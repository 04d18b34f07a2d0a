import type { Logger } from "../log.ts";
import type { Availability } from "../store/availability.ts";
import { persistSnapshot } from "./session-snapshots.ts";
import type { GatewayServer } from "./socket-types.ts";
import { publishAgain, takeUnrelayed } from "./stream-order.ts";

/**
 * After a Redis outage, in cluster mode (docs/gateway.md, "Resync"; docs/operations.md,
 * "Failure modes"). While Redis was out this node delivered its broadcasts to its own sockets
 * only and applied its room joins, leaves and disconnects to its own sockets only
 * (./stream-order.ts kept them). Once Redis answers again:
 *   1. the joins, leaves and disconnects are written to the stream again, in order, so the
 *      other nodes' sockets end up in the rooms they would be in;
 *   2. every socket, on any node, in a room a kept broadcast went to gets `session:resync`:
 *      it missed events and its client refetches what it shows (the web app and the SDK do),
 *      from `since`, when this node lost Redis: the socket may have got messages stored later
 *      than the ones it missed (those of its own node), so its last one is no place to start;
 *   3. when Redis itself restarted (its run id changed), what other nodes had written to the
 *      old stream and this node had not read yet is gone: this node's own sockets get
 *      `session:resync` too;
 *   4. the resumable sessions are written again (a restart without persistence lost them), so
 *      a client can still resume on another node.
 * The broadcasts that did reach the stream during the outage are read late, in order, by the
 * nodes whose readers lost Redis (counted in hearth_cluster_broadcasts_total{outcome="late"}).
 */

export const RESYNC_EVENT = "session:resync";
/** Why `session:resync` was sent; the only reason so far. */
export const RESYNC_REASON = "cluster_outage" as const;

/** Counted process-wide: sockets told to resync, by how (hearth_gateway_resyncs_total). */
export const resyncFigures = { rooms: 0, everyone: 0, restarted: 0 };

interface RedisLink {
  readonly availability: Availability;
  /** The Redis server's run id (INFO server): it changes when Redis restarts. */
  runId(): Promise<string>;
}

export async function installOutageRecovery(io: GatewayServer, redis: RedisLink, log: Logger): Promise<void> {
  const adapter = io.of("/").adapter;
  let runId = await redis.runId().catch(() => "");

  async function recover(lostAt: number): Promise<void> {
    const payload = { reason: RESYNC_REASON, since: Math.floor(lostAt / 1000) };
    const kept = takeUnrelayed(adapter);
    if (!kept) return;
    let replayed = 0;
    for (const operation of kept.operations) {
      try {
        await publishAgain(adapter, operation);
        replayed++;
      } catch {
        // Out again: the sockets concerned resync with the rest; their next connect puts them right.
        kept.everyone = true;
        break;
      }
    }
    if (kept.everyone) {
      io.emit(RESYNC_EVENT, payload);
      resyncFigures.everyone++;
    } else if (kept.rooms.size > 0) {
      io.to([...kept.rooms]).emit(RESYNC_EVENT, payload);
      resyncFigures.rooms++;
    }
    const now = await redis.runId().catch(() => runId);
    const restarted = runId !== "" && now !== runId;
    runId = now;
    if (restarted && !kept.everyone) {
      io.local.emit(RESYNC_EVENT, payload);
      resyncFigures.restarted++;
    }
    for (const socket of io.of("/").sockets.values()) persistSnapshot(io, socket);
    log.info("gateway after the redis outage", { replayedOperations: replayed, resyncRooms: kept.everyone ? "all" : kept.rooms.size, redisRestarted: restarted });
  }

  redis.availability.onChange((available, downForMs) => {
    if (available) recover(Date.now() - downForMs).catch((error: Error) => log.warn("gateway recovery after the redis outage failed", { error: error.message }));
  });
}
