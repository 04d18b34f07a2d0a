import { join } from "node:path";
import { withCors } from "./http/cors.ts";
import { Elysia } from "elysia";
import type { Server } from "bun";
import { clientAddress, forwardedBaseUrl, trustProxies } from "./http/client-address.ts";
import { compileTrust } from "./http/forwarded.ts";
import { Listeners, readTlsPair, type TlsPair } from "./http/listeners.ts";
import type { Config } from "./config.ts";
import { createDomain, type Domain } from "./domain/domain.ts";
import { LIMITS } from "./domain/shared/limits.ts";
import { attachGateway, createSocketServer, GATEWAY_MAX_PACKET_BYTES, type SocketServerOptions } from "./gateway/gateway.ts";
import { whenPublished } from "./gateway/stream-order.ts";
import type { GatewayServer } from "./gateway/socket-types.ts";
import { EventLimiter } from "./gateway/event-limiter.ts";
import { guardedGatewayHandler } from "./gateway/polling-guard.ts";
import { PendingSessions } from "./gateway/pending-sessions.ts";
import { websocketBackpressure } from "./gateway/slow-consumers.ts";
import { SocketIoEventBus } from "./gateway/socket-bus.ts";
import { homeKeys, VoiceRelay } from "./gateway/voice-proxy.ts";
import { VoiceRooms } from "./audio/voice-rooms.ts";
import { authPlugin } from "./http/auth.ts";
import { jwtCodec } from "./http/jwt-codec.ts";
import { RestRateLimiter } from "./http/rest-rate-limits.ts";
import { publishedRestLimits } from "./http/rate-limit-families.ts";
import { localSharedState } from "./domain/shared/shared-state.ts";
import { requestLifecycle } from "./http/request-lifecycle.ts";
import { parseJsonBounded, readBodyCapped } from "./http/body.ts";
import { authRoutes } from "./http/routes/auth.ts";
import { discoveryRoutes } from "./http/routes/discovery.ts";
import { uploadRoutes } from "./http/routes/uploads.ts";
import { userRoutes } from "./http/routes/users.ts";
import { notificationOverrideRoutes } from "./http/routes/notification-overrides.ts";
import { serverRoutes } from "./http/routes/servers.ts";
import { emojiFileRoutes, emojiRoutes } from "./http/routes/emojis.ts";
import { messageRoutes } from "./http/routes/messages.ts";
import { applicationRoutes } from "./http/routes/applications.ts";
import { botRestRoutes } from "./http/routes/bot-rest.ts";
import { botInviteRoutes } from "./http/routes/bot-invites.ts";
import { messageUploadRoutes } from "./http/routes/message-uploads.ts";
import { reactionRoutes } from "./http/routes/reactions.ts";
import { pinRoutes } from "./http/routes/pins.ts";
import { channelRoutes } from "./http/routes/channels.ts";
import { inviteLookupRoutes, inviteRoutes } from "./http/routes/invites.ts";
import { moderationRoutes } from "./http/routes/moderation.ts";
import { roleRoutes } from "./http/routes/roles.ts";
import { friendRoutes } from "./http/routes/friends.ts";
import { dmRoutes } from "./http/routes/dms.ts";
import { groupDmRoutes } from "./http/routes/group-dms.ts";
import { commandRoutes } from "./http/routes/commands.ts";
import { channelWebhookRoutes, webhookRoutes } from "./http/routes/webhooks.ts";
import { voiceRoutes } from "./http/routes/voice.ts";
import { premiumSoundboardRoutes, soundboardRoutes } from "./http/routes/soundboard.ts";
import { adminPlugin } from "./http/admin-auth.ts";
import { adminRoutes } from "./http/routes/admin.ts";
import { reportRoutes } from "./http/routes/reports.ts";
import { gifRoutes } from "./http/routes/gifs.ts";
import { aiFileRoutes, aiRoutes } from "./http/routes/ai.ts";
import { adminAiRoutes } from "./http/routes/admin-ai.ts";
import { webRoutes } from "./http/web.ts";
import { referenceRoutes } from "./http/routes/reference.ts";
import { sdkRoutes } from "./http/routes/sdk.ts";
import { sdkTarballs } from "./ops/sdk-tarball.ts";
import { opsRoutes } from "./http/routes/ops.ts";
import { countClusterError, Metrics } from "./ops/metrics.ts";
import { installOutageRecovery } from "./gateway/outage-recovery.ts";
import { Readiness } from "./ops/readiness.ts";
import { drainingResponse, waitForRequestsInFlight } from "./ops/drain.ts";
import { referenceDocuments } from "./reference/documents.ts";
import type { RegisteredRoute } from "./reference/openapi.ts";
import { createLogger, type Logger } from "./log.ts";
import type { ClusterNode } from "./cluster/cluster.ts";
import { DiskSpace } from "./ops/disk-space.ts";
import { sweepPartialUploads } from "./domain/shared/upload-sweep.ts";
import { openConfiguredStore, resolveJwtSecret, secureDataDir } from "./secret.ts";
import type { Store } from "./store/store.ts";
import { PostgresDatabase } from "./store/postgres/postgres-database.ts";

export interface App {
  /** Where it listens, e.g. http://127.0.0.1:3000 (the bound host; https:// with TLS_CERT_FILE). */
  url: string;
  port: number;
  /** The Bun server accepting connections (a TLS reload replaces it: src/http/listeners.ts). */
  readonly server: Server<unknown>;
  domain: Domain;
  store: Store;
  io: GatewayServer;
  /** Every route the HTTP app registered, as Elysia lists them (the API reference is built from them). */
  routes: readonly { method: string; path: string }[];
  /** What /readyz checks; cluster mode adds its Redis client here (`readiness.addDegradable("redis", ...)`). */
  readiness: Readiness;
  /** The figures /metrics serves. */
  metrics: Metrics;
  /**
   * Drains, then stops (docs/operations.md, "Draining"): /readyz answers 503, new requests and
   * gateway connections are refused, gateway clients are told to reconnect elsewhere, requests
   * in flight finish (for DRAIN_TIMEOUT_MS at most), then the write batch is flushed and the
   * database closed.
   */
  stop(): Promise<void>;
  /**
   * SIGHUP: TLS_CERT_FILE and TLS_KEY_FILE are read again and new connections get the new pair
   * (docs/operations.md, "TLS"); a pair that cannot be used is logged and the current one kept.
   * Without TLS, or while stopping, there is nothing to reload (logged).
   */
  reloadTls(): void;
}

export interface AppOptions {
  logger?: Logger;
  /** The Socket.IO adapter (tests and benches of several nodes pass the Redis streams adapter); default: one node's. */
  socketAdapter?: SocketServerOptions["adapter"];
  /** The checkout whose sdk/ GET /sdk/... packs (src/ops/sdk-tarball.ts); default: this one (a test passes a copy it edits). */
  sdkCheckout?: string;
}

/** Cluster mode: a partial upload younger than this may be another node's, being written now. */
const PARTIAL_UPLOAD_GRACE_MS = 60_000;

/** How long a stop waits for the closed sockets' presence and voice updates. */
const SHUTDOWN_DRAIN_MS = 2000;

/** Builds store -> domain -> HTTP + gateway, and listens on one port. No singletons. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = options.logger ?? createLogger(config.logLevel, config.logFormat === "text");
  // Read first: a certificate that cannot be used stops the start before anything is opened (TlsFileError).
  const firstTls = config.tls && readTlsPair(config.tls);
  if (firstTls) logTlsPair(log, "tls loaded", firstTls);
  const dataDirWarning = secureDataDir(config.dataDir);
  if (dataDirWarning) log.warn(dataDirWarning);
  const store = await openConfiguredStore(config);
  // Files of uploads an earlier run was cut off in (docs/operations.md, "Disk full or unwritable").
  const swept = await sweepPartialUploads(join(config.dataDir, "uploads"), config.redisUrl ? PARTIAL_UPLOAD_GRACE_MS : 0).catch((error: Error) => {
    log.warn("sweeping partial uploads failed", { error: error.message });
    return 0;
  });
  if (swept > 0) log.info("removed partial uploads left by an earlier run", { files: swept });
  // One warning when PostgreSQL goes out of reach and one when it answers again (requests get 503).
  if (store.db instanceof PostgresDatabase) {
    store.db.availability.onChange((available, downForMs) => {
      if (available) log.warn("database reachable again", { down_ms: downForMs });
      else log.warn("database unavailable: answering 503 until it is back");
    });
  }
  // One warning when writes start failing for want of storage and one when they are stored again (requests get 507).
  store.db.storage.state.onChange((available, downForMs) => {
    if (available) log.warn("storage writable again", { down_ms: downForMs });
    else log.warn("insufficient storage: answering 507 to writes until space is freed", { problem: store.db.storage.problem, place: store.db.storage.place, data_dir: config.dataDir });
  });
  // Cluster mode (REDIS_URL): one node of many (docs/operations.md, "Running several nodes").
  let cluster: ClusterNode | null = null;
  try {
    // Loaded only in cluster mode: one node never loads the Redis client.
    cluster = config.redisUrl ? await (await import("./cluster/cluster.ts")).joinCluster(config.redisUrl, log, () => countClusterError("redis")) : null;
    // Statuses left "online" by a previous run are reset, unless other nodes serve those users now.
    if (!cluster || !(await cluster.shared.othersAlive())) await store.users.markEveryoneOffline();
  } catch (error) {
    await cluster?.stop();
    await store.close();
    throw error;
  }

  const { io, engine, fanout, audioRelay } = createSocketServer({
    maxBufferedBytes: config.gatewayMaxBufferedBytes,
    resumeBuffer: config.gatewayResumeBuffer,
    handshakeTimeoutMs: config.gatewayHandshakeTimeoutMs,
    // Cluster mode: the Redis streams adapter; its local deliveries are native too (docs/gateway.md, "Delivery").
    adapter: cluster?.adapter ?? options.socketAdapter,
  });
  const bus = new SocketIoEventBus(io);
  const homes = cluster?.voiceHomes;
  // Cluster mode: each user's voice channel is shared, so any node can find the room's home.
  const shareVoiceUser = (write: Promise<void>) => write.catch((error: Error) => log.warn("voice membership update failed", { error: error.message }));
  const voiceRooms = new VoiceRooms(
    homes && {
      joined: (p) => void shareVoiceUser(homes.userJoined(p.userId, p.channelId)),
      left: (p) => void shareVoiceUser(homes.userLeft(p.userId, p.channelId)),
    },
  );
  const jwtSecret = resolveJwtSecret(config.jwtSecret, config.dataDir);
  // What the nodes share (Redis in cluster mode): the domain's limits and the REST rate limits count into it alike.
  const shared = cluster?.shared ?? localSharedState();
  const domain = createDomain({
    config,
    jwt: jwtCodec(jwtSecret),
    store,
    bus,
    voiceRooms,
    log,
    shared,
    voiceHomes: homes && {
      channelOf: async (userId) => {
        const room = await homes.userRoom(userId);
        // A room held here is answered by this node's own rooms.
        return room?.url ? room.channelId : null;
      },
      mayHold: async (channelId) => (await homes.claim(homeKeys.voice(channelId))) === null,
      // The relay is built below, before any socket can ask for a move.
      moveAcross: (socketId, channelId, handover) => voiceRelay!.moveAcross(socketId, channelId, handover),
    },
    callRecords: homes,
    voiceStates: cluster?.voiceStates,
  });
  // A node that died held calls nobody can end any more, and voice rooms: the node that sweeps it ends them (docs/dm-calls.md).
  if (cluster && homes)
    cluster.shared.onNodeLost((nodeId) => {
      homes
        .takeCallsOf(nodeId)
        .then((calls) => domain.dmCalls.homeLost(calls))
        .catch((error: Error) => log.warn("ending a dead node's DM calls failed", { node: nodeId, error: error.message }));
      // Its voice rooms went with it: the channel lists show them empty (docs/voice.md, "Several nodes").
      domain.voiceOccupants.homeLost(nodeId).catch((error: Error) => log.warn("clearing a dead node's voice rooms failed", { node: nodeId, error: error.message }));
    });
  const limiter = new EventLimiter({
    limits: config.gatewayEventLimits,
    userFactor: config.gatewayUserRateFactor,
    refusalsBeforeDisconnect: config.gatewayRefusalsBeforeDisconnect,
    maxConnectionsPerUser: config.gatewayMaxConnectionsPerUser,
  });
  // Cluster mode: each voice room and DM call lives on one node; clients elsewhere are relayed to it (docs/audio.md).
  const held = () => [
    ...new Set(voiceRooms.all().map((p) => homeKeys.voice(p.channelId))),
    ...domain.dmCalls.held().flatMap((call) => [homeKeys.call(call.callId), homeKeys.dmCall(call.dmId)]),
  ];
  const voiceRelay = cluster ? new VoiceRelay(cluster.voiceHomes, jwtSecret, log, held) : null;
  const gatewayAttached = attachGateway(io, domain, log, limiter, voiceRelay ? { relay: voiceRelay, secret: jwtSecret } : undefined);
  // Cluster mode: after a Redis outage, what did not cross the nodes is put right (docs/gateway.md, "Resync").
  if (cluster) await installOutageRecovery(io, { availability: cluster.redis, runId: cluster.runId }, log);
  // Sessions without a connect yet are capped per client address and close after GATEWAY_HANDSHAKE_TIMEOUT_MS.
  const pendingSessions = new PendingSessions(engine, io, config.gatewayMaxPendingSessionsPerAddress, Math.ceil(config.gatewayHandshakeTimeoutMs / 1000));
  const gateway = guardedGatewayHandler(engine, GATEWAY_MAX_PACKET_BYTES, pendingSessions);

  const readiness = new Readiness();
  const ping = store.db.prepare("SELECT 1 AS ok");
  readiness.add("database", () => store.db.get(ping));
  // Free space under DATA_DIR: not ready below DATA_DIR_MIN_FREE_MB (0: no check; the gauge is kept).
  const disk = new DiskSpace(config.dataDir, config.dataDirMinFreeBytes);
  if (config.dataDirMinFreeBytes > 0) readiness.add("disk", () => disk.check());
  if (cluster) {
    const redis = cluster.redis;
    readiness.addDegradable("redis", cluster.ping, () => redis.downSince !== null);
  }
  const metrics = new Metrics({ io, fanout, audioRelay, writes: store.writes, db: store.db, disk, draining: () => readiness.draining, redis: cluster?.redis });

  const published = whenPublished(io.of("/").adapter);
  const isRead = (request: Request) => request.method === "GET" || request.method === "HEAD";
  /** When each request was taken, and its client (read then: after the answer the socket may be gone). */
  const started = new WeakMap<Request, { at: number; client: string }>();
  const life = requestLifecycle(readiness, metrics, log);
  const restLimits = config.restRateLimits ? new RestRateLimiter(shared, config.restRateLimits) : undefined;
  const auth = authPlugin(domain.accounts, restLimits);
  /** Where clients reach this instance when PUBLIC_URL is unset and no trusted proxy says: the address listened on. */
  let listenedUrl = "";
  /** The absolute URLs the server builds start with this, never with an unvouched request's Host. */
  const publicUrl = (request: Request, server: Server<unknown> | null) =>
    config.publicUrl ?? forwardedBaseUrl(request, server) ?? listenedUrl;
  // CORS first, so preflights and every answer (errors and the gateway's polling included) carry it.
  const http = withCors(new Elysia(), config.corsOrigins)
    // The gateway comes first: no auth hooks or body parsing touch it; its POST bodies are
    // bounded before the engine reads them (src/gateway/polling-guard.ts).
    // While draining, no new gateway session starts; existing ones get their close packet.
    // Elysia's `server` is the accepting listener, not always the one the request came in on:
    // the engine gets all of them (src/http/listeners.ts).
    .all("/socket.io/", ({ request }) =>
      readiness.draining && !new URL(request.url).searchParams.has("sid") ? drainingResponse() : gateway(request, listeners.asServer()),
    )
    .onRequest(({ request, set, server }) => {
      const refused = life.refuse(request);
      if (refused) return refused;
      started.set(request, { at: performance.now(), client: clientAddress(request, server) });
      // A route's own Cache-Control wins: Elysia adds `set.headers` only where a Response has none.
      const cache = life.cacheControl(request.url);
      if (cache) set.headers["cache-control"] = cache;
    })
    // Bodies: multipart is left to the upload routes' own capped reader; anything else is
    // size-capped while it streams in, and JSON is depth-bounded before it is parsed.
    .onParse(async ({ request, contentType }) => {
      if (contentType.startsWith("multipart/form-data")) return {};
      const text = new TextDecoder().decode(await readBodyCapped(request, LIMITS.request.jsonBodyBytes));
      // No body at all reads as an empty object, so schemas name the missing fields.
      if (text.trim() === "") return {};
      return contentType.startsWith("application/json") ? parseJsonBounded(text) : text;
    })
    .onError(({ code, error, request, set }) => {
      const response = life.error(code, error, request);
      set.status = response.status; // for the request log
      return response;
    })
    // Cluster mode: a write is answered once the events it made are in the stream, so writes one
    // after the other through different nodes reach every socket in that order (src/gateway/stream-order.ts).
    // Reads make no events, so they do not wait for other requests' writes.
    .onAfterHandle(
      published
        ? [
            async ({ request }) => {
              if (!isRead(request)) await published();
            },
          ]
        : [],
    )
    .onAfterResponse((ctx) => {
      const { request } = ctx;
      const pattern = (ctx as { route?: string }).route;
      if (pattern === "/socket.io/") return;
      const response = (ctx as { response?: unknown }).response;
      const status = response instanceof Response ? response.status : Number(ctx.set.status ?? 200);
      const begun = started.get(request);
      life.record(request, pattern, status, begun === undefined ? undefined : performance.now() - begun.at, begun?.client ?? clientAddress(request, ctx.server));
    })
    .use(discoveryRoutes(domain, publicUrl, publishedRestLimits(config.restRateLimits)))
    .use(authRoutes(domain, auth))
    .use(userRoutes(domain, auth))
    .use(notificationOverrideRoutes(domain, auth))
    .use(serverRoutes(domain, auth))
    .use(emojiRoutes(domain, auth))
    .use(emojiFileRoutes(domain))
    .use(messageRoutes(domain, auth))
    .use(applicationRoutes(domain, auth))
    .use(commandRoutes(domain, auth))
    .use(botRestRoutes(domain, auth))
    .use(botInviteRoutes(domain, auth))
    .use(messageUploadRoutes(domain, auth))
    .use(reactionRoutes(domain, auth))
    .use(pinRoutes(domain, auth))
    .use(channelRoutes(domain, auth))
    .use(channelWebhookRoutes(domain, auth))
    .use(webhookRoutes(domain, auth))
    .use(voiceRoutes(config.ice, auth))
    .use(soundboardRoutes(domain, auth))
    .use(premiumSoundboardRoutes(domain, auth))
    .use(inviteRoutes(domain, auth))
    .use(inviteLookupRoutes(domain, auth))
    .use(moderationRoutes(domain, auth))
    .use(roleRoutes(domain, auth))
    .use(friendRoutes(domain, auth))
    .use(groupDmRoutes(domain, auth))
    .use(dmRoutes(domain, auth))
    .use(adminRoutes(domain, adminPlugin(domain)))
    .use(reportRoutes(domain, auth))
    .use(gifRoutes(domain, auth))
    .use(aiRoutes(domain, auth, "/api/v1/ai"))
    .use(aiRoutes(domain, auth, "/api/ai"))
    .use(adminAiRoutes(domain, adminPlugin(domain)))
    .use(aiFileRoutes(domain, auth))
    .use(uploadRoutes(domain))
    .use(opsRoutes(readiness, metrics, config.metricsToken))
    .use(sdkRoutes(sdkTarballs(config.dataDir, options.sdkCheckout), log))
    // The API reference, built from the routes above on first request (docs/reference.md).
    .use(referenceRoutes(referenceDocuments((): readonly RegisteredRoute[] => http.routes)))
    // Last: every other GET is a page of the web app.
    .use(webRoutes(log, { connect: domain.media?.urls ?? [] }));

  const { websocket, idleTimeout } = engine.handler();
  const trust = config.trustProxy === undefined ? undefined : compileTrust(config.trustProxy);
  // Every listener, the first and those a TLS reload starts, is made by Elysia's listen with the same options.
  const listen = (tls: TlsPair | undefined, port: number | undefined) => {
    const hooks = new Set(process.listeners("beforeExit"));
    http.listen({
      port: port ?? config.port,
      hostname: config.host,
      // Both the old and the new listener of a reload hold the port until the old one stops accepting.
      reusePort: true,
      ...(tls && { tls: { cert: tls.cert, key: tls.key } }),
      // A connection that does not read is closed once this much waits for it (src/gateway/slow-consumers.ts).
      websocket: { ...websocket, ...websocketBackpressure(config.gatewayMaxBufferedBytes) },
      idleTimeout,
      maxRequestBodySize: LIMITS.request.bodyBytes,
    });
    // Each listen adds a beforeExit hook stopping Elysia's current server: the first one's is enough.
    if (port !== undefined) for (const hook of process.listeners("beforeExit")) if (!hooks.has(hook)) process.off("beforeExit", hook);
    return http.server!;
  };
  const listeners = new Listeners(
    listen,
    (server) => {
      if (trust) trustProxies(server, trust);
    },
    firstTls,
  );
  if (trust) trustProxies(listeners.asServer(), trust);
  fanout.setServer(listeners.asServer());
  const scheme = firstTls ? "https" : "http";
  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  // Known once listening (port 0 picks one); no request is served before this line.
  listenedUrl = `${scheme}://${shownHost}:${listeners.port}`;
  // Joins the cluster's heartbeat once listening: the address is where other nodes relay voice to.
  await cluster?.shared.start(config.clusterNodeUrl ?? listenedUrl);
  // Background deletes queued before a restart resume (docs/servers.md, "Deleting a server").
  await domain.deletions.start();
  // Custom statuses due while the platform was down clear now; the next one arms this node's timer.
  await domain.customStatuses.start();
  domain.media?.start();

  let stopping: Promise<void> | null = null;
  return {
    url: listenedUrl,
    port: listeners.port,
    get server() {
      return listeners.server;
    },
    domain,
    store,
    io,
    routes: http.routes,
    readiness,
    metrics,
    stop() {
      stopping ??= (async () => {
        // Not ready from now on; new requests and gateway sessions are refused (above).
        readiness.startDraining();
        // AI replies still streaming would hold the drain below: stop them first (each is stored).
        await domain.ai.assistant.stop();
        // This node's voice links to other nodes' rooms close with it.
        voiceRelay?.stop();
        // Every gateway client's transport is closed: socket.io-client takes that for a lost
        // connection and reconnects on its own (through the load balancer, to another node).
        // A Socket.IO disconnect would not: the client reads it as "do not come back".
        engine.close();
        // Requests in flight finish, for DRAIN_TIMEOUT_MS at most; then every connection closes.
        await waitForRequestsInFlight(listeners.asServer(), config.drainTimeoutMs);
        domain.dmCalls.stop();
        // Any AI reply started meanwhile is stopped and stored before the database closes.
        await domain.ai.assistant.stop();
        await listeners.stop(true);
        // The closed sockets' presence and voice updates finish before Redis and the database close.
        await Promise.race([gatewayAttached.settled(), Bun.sleep(SHUTDOWN_DRAIN_MS)]);
        log.info("stop: connections closed");
        // A background delete ends after its current batch; the next start resumes it.
        await domain.deletions.stop();
        domain.customStatuses.stop();
        domain.media?.stop();
        // Leaves the cluster: this node's connections are withdrawn, its Redis connections closed.
        await cluster?.stop();
        log.info("stop: left the cluster");
        await store.close();
      })();
      return stopping;
    },
    reloadTls() {
      if (!config.tls) return log.info("SIGHUP: nothing to reload (TLS_CERT_FILE and TLS_KEY_FILE are unset)");
      if (stopping) return log.info("SIGHUP: stopping, the certificate is not reloaded");
      try {
        const pair = readTlsPair(config.tls);
        listeners.replace(pair);
        logTlsPair(log, "tls reloaded", pair);
      } catch (error) {
        log.error("tls reload failed: still serving the previous certificate", { error: (error as Error).message });
      }
    },
  };
}

/** The certificate now served, and a warning when it has expired already (clients will refuse it). */
function logTlsPair(log: Logger, message: string, pair: TlsPair): void {
  log.info(message, { subject: pair.subject, expires: pair.validTo.toISOString() });
  if (pair.validTo.getTime() < Date.now()) log.warn("the TLS certificate has expired", { subject: pair.subject, expired: pair.validTo.toISOString() });
}
