import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Server as IoServer } from "socket.io";
import { listenStats } from "../audio/listen-relay.ts";
import type { NativeAudioRelay } from "../audio/native-relay.ts";
import type { NativeFanout } from "../gateway/native-fanout.ts";
import type { Database } from "../store/database.ts";
import { PostgresDatabase } from "../store/postgres/postgres-database.ts";
import type { WriteBatch } from "../store/write-batch.ts";
import type { Availability } from "../store/availability.ts";
import type { DiskSpace } from "./disk-space.ts";
import { broadcastFigures } from "../gateway/stream-order.ts";
import { resyncFigures } from "../gateway/outage-recovery.ts";
import { RequestFigures } from "./request-figures.ts";

/**
 * The node's figures in the Prometheus text format, through prom-client (docs/operations.md,
 * "Metrics" lists every name). One registry per app (a test process runs several); the figures
 * other modules already count (native fan-out, the audio relays) are read when scraped, in
 * `collect()`, so the hot paths carry no extra work. Served by src/http/routes/ops.ts.
 */

/** The route label of a request no route matched: unknown paths share one label. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** Redis and cluster adapter errors, process-wide (like the listen relay's counters). */
const clusterErrors = { redis: 0, adapter: 0 };

/**
 * Counts one error of the Redis client ("redis": an `error` event, a failed command) or of the
 * Socket.IO cluster adapter ("adapter"); shown as hearth_cluster_errors_total{source}. Without
 * Redis nothing calls it and both stay 0.
 */
export function countClusterError(source: keyof typeof clusterErrors): void {
  clusterErrors[source]++;
}

interface MetricsSources {
  io: IoServer;
  fanout: NativeFanout;
  audioRelay: NativeAudioRelay;
  writes: Pick<WriteBatch, "pending" | "onCommit">;
  db: Database;
  /** Free space under DATA_DIR (src/ops/disk-space.ts). */
  disk: DiskSpace;
  /** Whether the node is draining (src/ops/readiness.ts). */
  draining: () => boolean;
  /** Cluster mode: whether Redis answers (src/cluster/redis-client.ts). */
  redis?: Availability;
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A counter whose value is another module's running total, read at scrape time. */
function mirroredCounter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[], read: () => [Partial<Record<L, string>>, number][]) {
  return new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

export class Metrics {
  readonly registry = new Registry();
  /** Off: requests are not observed (the bench compares both in one run). */
  httpEnabled = true;
  private readonly requests = new RequestFigures(SECONDS_BUCKETS);

  constructor(sources: MetricsSources) {
    const registry = this.registry;
    collectDefaultMetrics({ register: registry });
    // prom-client reads it from /proc's VmData, which under Bun counts address space JSC and its
    // allocator reserve but never use (gigabytes for a 100 MB process): a wrong figure, so none.
    // The heap is nodejs_heap_size_used_bytes (JSC's, through process.memoryUsage()); memory in
    // use is process_resident_memory_bytes.
    registry.removeSingleMetric("process_heap_bytes");

    this.requests.register(registry, { requests: "hearth_http_requests_total", duration: "hearth_http_request_duration_seconds" }, {
      requests: "HTTP requests answered, by method, route pattern and status (the gateway's /socket.io/ excluded)",
      duration: "Time from a request's arrival to its answer, by method and route pattern",
    });

    const { io, fanout, audioRelay, writes, db } = sources;
    new Gauge({
      name: "hearth_gateway_connections",
      help: "Gateway sockets connected now, by transport (websocket, polling)",
      labelNames: ["transport"],
      registers: [registry],
      collect() {
        let websocket = 0;
        let polling = 0;
        for (const socket of io.of("/").sockets.values()) {
          if ((socket.conn?.transport as { name?: string } | undefined)?.name === "websocket") websocket++;
          else polling++;
        }
        this.set({ transport: "websocket" }, websocket);
        this.set({ transport: "polling" }, polling);
      },
    });
    const opened = new Counter({ name: "hearth_gateway_connections_opened_total", help: "Gateway sockets accepted since start", registers: [registry] });
    io.on("connection", () => opened.inc());

    mirroredCounter(
      registry,
      "hearth_gateway_broadcasts_total",
      "Gateway event broadcasts, by delivery path: native_publish (one Bun publish to a room), native_per_receiver (encoded once, sent to each websocket receiver), socketio_polling (the Socket.IO emit to long-polling members)",
      ["path"],
      () => [
        [{ path: "native_publish" }, fanout.stats.published],
        [{ path: "native_per_receiver" }, fanout.stats.sentPerReceiver],
        [{ path: "socketio_polling" }, fanout.stats.emittedToPolling],
      ],
    );
    mirroredCounter(
      registry,
      "hearth_audio_frames_relayed_total",
      "Audio frames relayed: relay=room counts frames published natively to a voice room (path=native) or emitted to its long-polling members (path=polling); relay=listen counts frames sent to each listening bot (process-wide)",
      ["relay", "path"],
      () => [
        [{ relay: "room", path: "native" }, audioRelay.stats.published],
        [{ relay: "room", path: "polling" }, audioRelay.stats.emittedToPolling],
        [{ relay: "listen", path: "native" }, listenStats.delivered],
        [{ relay: "listen", path: "polling" }, listenStats.emittedToPolling],
      ],
    );
    mirroredCounter(
      registry,
      "hearth_audio_frames_dropped_total",
      "Audio frame deliveries skipped because the receiver was stalled (relay=room: per stalled member per frame; relay=listen: per listening bot, process-wide)",
      ["relay"],
      () => [
        [{ relay: "room" }, audioRelay.stats.dropped],
        [{ relay: "listen" }, listenStats.dropped],
      ],
    );

    const batchSize = new Histogram({
      name: "hearth_write_batch_size",
      help: "Writes committed together in one group-commit transaction (message sends)",
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    });
    const commitSeconds = new Histogram({
      name: "hearth_write_batch_commit_seconds",
      help: "Time one group-commit transaction took, from BEGIN to COMMIT",
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    });
    writes.onCommit = (items, seconds) => {
      batchSize.observe(items);
      commitSeconds.observe(seconds);
    };
    new Gauge({
      name: "hearth_write_batch_pending",
      help: "Writes waiting for their group-commit transaction",
      registers: [registry],
      collect() {
        this.set(writes.pending);
      },
    });

    const postgres = db instanceof PostgresDatabase ? db : null;
    new Gauge({
      name: "hearth_db_info",
      help: "The database backend (always 1)",
      labelNames: ["backend"],
      registers: [registry],
    }).set({ backend: db.dialect.name }, 1);
    new Gauge({
      name: "hearth_db_pool_max_connections",
      help: "Connections the database pool may open (PostgreSQL: the URL's max, plus the writer's reserved one; SQLite: 1)",
      registers: [registry],
      collect() {
        this.set(postgres ? postgres.poolMax + 1 : 1);
      },
    });
    if (postgres) {
      const pool = postgres;
      mirroredCounter(registry, "hearth_db_unavailable_errors_total", "PostgreSQL: operations that failed because the database could not be reached (answered 503)", [], () => [[{}, pool.availability.errors]]);
      new Gauge({
        name: "hearth_db_available",
        help: "PostgreSQL: 1 while the last operation reached the database, 0 during an outage",
        registers: [registry],
        collect() {
          this.set(pool.availability.downSince === null ? 1 : 0);
        },
      });
      new Gauge({
        name: "hearth_db_pool_in_use_connections",
        help: "PostgreSQL: pool connections held by a statement or transaction now (operations in flight, at most the pool's max), and the writer's reserved one (1 while a group commit runs)",
        labelNames: ["connection"],
        registers: [registry],
        collect() {
          this.set({ connection: "pool" }, Math.min(pool.inFlight.pool, pool.poolMax));
          this.set({ connection: "writer" }, pool.inFlight.writer);
        },
      });
      new Gauge({
        name: "hearth_db_pool_waiting_operations",
        help: "PostgreSQL: statements and transactions waiting for a pool connection now (in flight beyond the pool's max)",
        registers: [registry],
        collect() {
          this.set(Math.max(0, pool.inFlight.pool - pool.poolMax));
        },
      });
    }

    mirroredCounter(
      registry,
      "hearth_storage_full_errors_total",
      "Writes refused because the disk was full or the data folder (or PostgreSQL's disk) not writable (answered 507)",
      [],
      () => [[{}, db.storage.errors]],
    );
    new Gauge({
      name: "hearth_storage_writable",
      help: "1 while writes are stored, 0 from a write refused for want of storage until one to the same place (the database, the uploaded files) succeeds again",
      registers: [registry],
      collect() {
        this.set(db.storage.failing ? 0 : 1);
      },
    });
    const disk = sources.disk;
    new Gauge({
      name: "hearth_data_dir_free_bytes",
      help: "Bytes free for the server on the file system under DATA_DIR (/readyz fails below DATA_DIR_MIN_FREE_MB)",
      registers: [registry],
      async collect() {
        // A folder that cannot be measured (gone, unreadable) is left out rather than failing the scrape.
        const free = await disk.free().catch(() => null);
        if (free === null) this.reset();
        else this.set(free);
      },
    });

    mirroredCounter(registry, "hearth_cluster_errors_total", "Errors of the Redis client (source=redis) and of the cluster adapter (source=adapter), process-wide", ["source"], () => [
      [{ source: "redis" }, clusterErrors.redis],
      [{ source: "adapter" }, clusterErrors.adapter],
    ]);
    const redis = sources.redis;
    if (redis) {
      new Gauge({
        name: "hearth_redis_available",
        help: "Cluster mode: 1 while Redis answers, 0 while this node serves its own sockets alone (degraded)",
        registers: [registry],
        collect() {
          this.set(redis.downSince === null ? 1 : 0);
        },
      });
      mirroredCounter(
        registry,
        "hearth_cluster_broadcasts_total",
        "Cluster mode: broadcasts that reached this node's sockets only because Redis was out (outcome=dropped; their rooms were told session:resync), and broadcasts read from the stream over a second late (outcome=late), process-wide",
        ["outcome"],
        () => [
          [{ outcome: "dropped" }, broadcastFigures.dropped],
          [{ outcome: "late" }, broadcastFigures.late],
        ],
      );
      mirroredCounter(
        registry,
        "hearth_gateway_resyncs_total",
        "Cluster mode: session:resync sent after a Redis outage, to the rooms that missed events (scope=rooms), to every socket (scope=everyone) or to this node's sockets after Redis restarted (scope=restarted), process-wide",
        ["scope"],
        () => [
          [{ scope: "rooms" }, resyncFigures.rooms],
          [{ scope: "everyone" }, resyncFigures.everyone],
          [{ scope: "restarted" }, resyncFigures.restarted],
        ],
      );
    }
    new Gauge({
      name: "hearth_draining",
      help: "1 while this node is draining (being stopped), else 0",
      registers: [registry],
      collect() {
        this.set(sources.draining() ? 1 : 0);
      },
    });
  }

  /** One answered HTTP request: `route` is the route's pattern, or UNMATCHED_ROUTE. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    if (!this.httpEnabled) return;
    // A made-up method must not add labels: the client chooses it.
    if (!KNOWN_METHODS.has(method)) method = "OTHER";
    this.requests.observe(method, route, status, seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
