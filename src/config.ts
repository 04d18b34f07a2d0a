import * as v from "valibot";
import { compileTrust, type TrustProxySetting } from "./http/forwarded.ts";
import type { TlsFiles } from "./http/listeners.ts";
import { join } from "node:path";
import { describeIssue } from "./domain/shared/validation.ts";
import { DEFAULT_CAPS, DEFAULT_LARGE_SERVER_MEMBERS, type ResourceCaps } from "./domain/shared/caps.ts";
import { DEFAULT_IMAGE_LIMITS, type ImageLimits } from "./domain/shared/image-dimensions.ts";
import { DEFAULT_ICE_SETTINGS, type IceSettings } from "./domain/voice/ice-servers.ts";
import { DEFAULT_MESH_CAPS, type MeshCaps } from "./domain/voice/mesh-caps.ts";
import type { JanusSettings } from "./media/janus-settings.ts";
import { DEFAULT_SOUNDBOARD_PLAY_RATE, type SoundboardPlayRate } from "./domain/voice/soundboard-play-rate.ts";
import { DEFAULT_EVENT_LIMITS, DEFAULT_USER_RATE_FACTOR, parseRateLimit, type EventLimits, type RateLimit } from "./gateway/event-limits.ts";
import { DEFAULT_REST_RATE_LIMITS, parseRestRateWindow, type RestRateLimits, type RestRateWindow } from "./http/rate-limit-families.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /**
   * `DATA_DIR_MIN_FREE_MB` in bytes: /readyz fails ("disk") while the file system under
   * `dataDir` has less free space than this (docs/operations.md, "Disk full or unwritable"); 0 turns the check off.
   */
  dataDirMinFreeBytes: number;
  /** Path of the SQLite file, or ":memory:" (tests). Defaults to `<dataDir>/hearth.db`. Unused with `databaseUrl`. */
  databaseFile: string;
  /**
   * A `postgres://` URL: Hearth keeps its data in that PostgreSQL database instead of SQLite
   * (docs/operations.md, "Choosing a database"). Pool size and TLS are URL parameters.
   */
  databaseUrl: string | undefined;
  /**
   * A `redis://` URL turns on cluster mode: several Hearth nodes sharing one PostgreSQL database
   * and this Redis serve one platform (docs/operations.md, "Running several nodes"). Needs `databaseUrl`.
   */
  redisUrl: string | undefined;
  /**
   * Cluster mode: the address other nodes reach this one at (voice rooms held here are relayed
   * through it; docs/audio.md, "Several nodes"). Defaults to http://127.0.0.1:<port>, right only
   * when every node runs on one machine.
   */
  clusterNodeUrl: string | undefined;
  /**
   * The origin clients reach this instance at, e.g. `https://chat.example.com`: discovery's
   * gateway URL and links are built on it, never on a request's Host header
   * (docs/operations.md, "Public URL"). Unset: `http://<host>:<port>` as listened on, right only
   * for a local instance.
   */
  publicUrl: string | undefined;
  /**
   * TLS_CERT_FILE and TLS_KEY_FILE: Hearth serves HTTPS and WSS itself with this certificate
   * and key, read again on SIGHUP (docs/operations.md, "TLS"); unset: plain HTTP.
   */
  tls: TlsFiles | undefined;
  /** TRUST_PROXY: the proxies whose forwarding headers are believed; none when unset (docs/operations.md, "Behind a reverse proxy"). */
  trustProxy: TrustProxySetting | undefined;
  /**
   * Where uploaded files' bytes live (docs/operations.md, "Uploaded files"): `disk`, files under
   * `<dataDir>/uploads` (one node, or a volume every node mounts), or `database`, rows of the
   * database every node shares. Defaults to `database` in cluster mode, else `disk`.
   */
  uploadStorage: "disk" | "database";
  /** When unset, a secret is generated once and kept in `<dataDir>/jwt-secret`. */
  jwtSecret: string | undefined;
  /** The key sealing stored secrets, 64 hex characters; when unset, generated once into `<dataDir>/secrets.key`. */
  secretsKey: string | undefined;
  logLevel: LogLevel;
  /** `json` (one object a line) or `text` (readable); default json, text when stdout is a terminal (docs/operations.md, "Logging"). */
  logFormat: "json" | "text";
  /** Register and login attempts per client address per minute (CONTRACT.md). */
  authRateLimitPerMinute: number;
  /** Failed logins (and password checks) per account from one client address per minute (docs/auth.md). */
  loginFailuresPerAccountPerMinute: number;
  /** The same, from all addresses together: the ceiling a many-address guesser meets (docs/auth.md). */
  loginFailuresPerAccountTotalPerMinute: number;
  /** The window of both failure budgets, in seconds (60: the budgets are "per minute"; docs/auth.md). */
  loginFailuresWindowSeconds: number;
  /** How long issued user tokens live, in the `jose` duration syntax ("30d"). */
  tokenLifetime: string;
  /**
   * Creating an application needs two-factor authentication (and the current code). The default
   * of the platform setting of that name; administrators change it at runtime (docs/admin.md).
   */
  requireTwoFactorForApplications: boolean;
  /** The optional external GIF provider (docs/gifs.md); null (off) unless GIF_PROVIDER_URL is set. */
  gifProvider: { url: string; key: string; timeoutMs: number } | null;
  /** How long the AI provider may stay silent (before answering, or between stream chunks) before the turn fails (docs/ai.md). */
  aiProviderTimeoutMs: number;
  /**
   * Web origins allowed to call the API and the gateway from a browser (CORS), e.g.
   * `https://chat.example.com`; `["*"]` for any; empty (the default): no CORS headers.
   */
  corsOrigins: string[];
  /** Client gateway events per socket by kind (docs/gateway.md, "Limits"); a user's sockets together get `gatewayUserRateFactor` times as much. */
  gatewayEventLimits: EventLimits;
  gatewayUserRateFactor: number;
  /** A socket with more refused events than this within about ten seconds is disconnected. */
  gatewayRefusalsBeforeDisconnect: number;
  /** Gateway connections per user (per node), connected or connecting. */
  gatewayMaxConnectionsPerUser: number;
  /** Gateway sessions per client address waiting for their Socket.IO connect (a valid token); past it a handshake is 429. */
  gatewayMaxPendingSessionsPerAddress: number;
  /** How long a gateway session may wait for its connect before it is closed. */
  gatewayHandshakeTimeoutMs: number;
  /** What may be queued for one gateway socket that does not read before it is disconnected. */
  gatewayMaxBufferedBytes: number;
  /**
   * The bearer token that lets a non-loopback caller read /metrics; unset: loopback only
   * (docs/operations.md, "Metrics").
   */
  metricsToken: string | undefined;
  /** How long a stopping node waits for requests in flight before closing them (docs/operations.md, "Draining"). */
  drainTimeoutMs: number;
  /** Broadcasts one node keeps for session resume (src/gateway/resumable-adapter.ts). */
  gatewayResumeBuffer: number;
  /** How many channels, roles, invites, ... one server, channel, message or user may hold (docs/operations.md, "Caps"). */
  caps: ResourceCaps;
  /** Servers with more members are large: presence only to sockets that ask (docs/gateway.md, "Presence"). */
  largeServerMembers: number;
  /** Rows per transaction of a background delete (docs/servers.md, "Deleting a server"). */
  deleteBatchRows: number;
  /** The largest declared dimensions of an uploaded image (docs/operations.md, "Caps"). */
  imageLimits: ImageLimits;
  /** Soundboard plays per user per window (docs/soundboard.md, "Playing"). */
  soundboardPlayRate: SoundboardPlayRate;
  /** TURN_URLS, TURN_SECRET, STUN_URLS, TURN_TTL_SECONDS, ICE_TRANSPORT_POLICY: the web app's ICE servers (docs/operations.md, "TURN and STUN"). */
  ice: IceSettings;
  /** VOICE_MESH_MAX_PUBLISHERS and VOICE_MESH_MAX_AUDIENCE: how big a peer-to-peer voice room grows (docs/voice.md, "Room sizes"). */
  meshCaps: MeshCaps;
  /**
   * JANUS_URL, JANUS_ADMIN_URL, JANUS_SECRET: people's audio in voice rooms goes through Janus's
   * VideoRoom (docs/voice.md, "Janus"); null: the peer-to-peer mesh, within `meshCaps`.
   */
  janus: JanusSettings | null;
  /**
   * REST requests per caller and route family per window (docs/operations.md, "Rate limits");
   * null: no REST rate limits (not settable from the environment; a bench compares both).
   */
  restRateLimits: RestRateLimits | null;
  /** argon2id cost. OWASP's minimum by default; not settable from the environment (tests lower it). */
  passwordHashing: { memoryCost: number; timeCost: number };
}

const integerFrom = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

/** `GATEWAY_RATE_<KIND>`: "<events per second>/<burst>". */
const rateFrom = (name: string) =>
  v.pipe(
    v.string(),
    v.transform(parseRateLimit),
    v.check((limit): limit is RateLimit => limit !== null, `${name} must look like 10/20 (events per second / burst)`),
  );

/** `REST_RATE_<FAMILY>`: "<requests>/<seconds>s". */
const restWindowFrom = (name: string) =>
  v.pipe(
    v.string(),
    v.transform(parseRestRateWindow),
    v.check((window): window is RestRateWindow => window !== null, `${name} must look like 100/10s (requests / window in seconds)`),
  );

/** A comma-separated list of ICE server URLs, each matching `pattern`. */
const iceUrls = (name: string, pattern: RegExp, example: string) =>
  v.pipe(
    v.string(),
    v.transform((value) => value.split(",").map((url) => url.trim()).filter(Boolean)),
    v.check((urls) => urls.length > 0 && urls.every((url) => pattern.test(url)), `${name} must be a comma-separated list of URLs like ${example}`),
  );

const EnvSchema = v.object({
  REST_RATE_SENDS: v.optional(restWindowFrom("REST_RATE_SENDS")),
  REST_RATE_USER_SENDS: v.optional(restWindowFrom("REST_RATE_USER_SENDS")),
  REST_RATE_MESSAGE_WRITES: v.optional(restWindowFrom("REST_RATE_MESSAGE_WRITES")),
  REST_RATE_REACTIONS: v.optional(restWindowFrom("REST_RATE_REACTIONS")),
  REST_RATE_READS: v.optional(restWindowFrom("REST_RATE_READS")),
  REST_RATE_WRITES: v.optional(restWindowFrom("REST_RATE_WRITES")),
  GATEWAY_RATE_TYPING: v.optional(rateFrom("GATEWAY_RATE_TYPING")),
  GATEWAY_RATE_ROOMS: v.optional(rateFrom("GATEWAY_RATE_ROOMS")),
  GATEWAY_RATE_PRESENCE: v.optional(rateFrom("GATEWAY_RATE_PRESENCE")),
  GATEWAY_RATE_SUBSCRIPTIONS: v.optional(rateFrom("GATEWAY_RATE_SUBSCRIPTIONS")),
  GATEWAY_RATE_VOICE: v.optional(rateFrom("GATEWAY_RATE_VOICE")),
  GATEWAY_RATE_SIGNAL: v.optional(rateFrom("GATEWAY_RATE_SIGNAL")),
  GATEWAY_RATE_MESSAGES: v.optional(rateFrom("GATEWAY_RATE_MESSAGES")),
  GATEWAY_RATE_AUDIO: v.optional(rateFrom("GATEWAY_RATE_AUDIO")),
  GATEWAY_USER_RATE_FACTOR: v.optional(integerFrom("GATEWAY_USER_RATE_FACTOR", 1, 1000), String(DEFAULT_USER_RATE_FACTOR)),
  GATEWAY_REFUSALS_BEFORE_DISCONNECT: v.optional(integerFrom("GATEWAY_REFUSALS_BEFORE_DISCONNECT", 1, 1_000_000), "50"),
  GATEWAY_MAX_CONNECTIONS_PER_USER: v.optional(integerFrom("GATEWAY_MAX_CONNECTIONS_PER_USER", 1, 100_000), "20"),
  GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS: v.optional(integerFrom("GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS", 1, 1_000_000), "50"),
  GATEWAY_HANDSHAKE_TIMEOUT_MS: v.optional(integerFrom("GATEWAY_HANDSHAKE_TIMEOUT_MS", 500, 120_000), "10000"),
  GATEWAY_MAX_BUFFERED_BYTES: v.optional(integerFrom("GATEWAY_MAX_BUFFERED_BYTES", 65_536, 1_073_741_824), String(4 * 1024 * 1024)),
  GATEWAY_RESUME_BUFFER: v.optional(integerFrom("GATEWAY_RESUME_BUFFER", 100, 10_000_000), "10000"),
  PORT: v.optional(integerFrom("PORT", 0, 65535), "3000"),
  HOST: v.optional(v.pipe(v.string(), v.minLength(1, "HOST must not be empty")), "0.0.0.0"),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1, "DATA_DIR must not be empty")), "./data"),
  DATA_DIR_MIN_FREE_MB: v.optional(integerFrom("DATA_DIR_MIN_FREE_MB", 0, 1_048_576), "64"),
  DATABASE_FILE: v.optional(v.string()),
  DATABASE_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^postgres(ql)?:\/\/\S+$/i, "DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/hearth"),
    ),
  ),
  REDIS_URL: v.optional(
    v.pipe(v.string(), v.regex(/^rediss?:\/\/\S+$/i, "REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0")),
  ),
  CLUSTER_NODE_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^https?:\/\/[^/\s?#]+$/i, "CLUSTER_NODE_URL must be this node's address for the other nodes, like http://10.0.0.11:3000"),
    ),
  ),
  TLS_CERT_FILE: v.optional(v.string()),
  TLS_KEY_FILE: v.optional(v.string()),
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.transform((value): TrustProxySetting | null => {
        const text = value.trim();
        if (/^\d+$/.test(text)) return Number(text) >= 1 && Number(text) <= 32 ? Number(text) : null;
        const ranges = text.split(",").map((part) => part.trim()).filter(Boolean);
        try {
          compileTrust(ranges);
        } catch {
          return null;
        }
        return ranges.length ? ranges : null;
      }),
      v.check(
        (setting): setting is TrustProxySetting => setting !== null,
        "TRUST_PROXY must be the number of proxies in front of Hearth (1 to 32) or a comma-separated list of their addresses and CIDR ranges (or loopback, linklocal, uniquelocal)",
      ),
    ),
  ),
  PUBLIC_URL: v.optional(
    v.pipe(
      v.string(),
      v.transform((value) => value.trim().replace(/\/+$/, "")),
      v.check(
        (url) => /^https?:\/\/[^/\s?#@]+$/i.test(url) && URL.canParse(url),
        "PUBLIC_URL must be the origin clients reach this instance at, like https://chat.example.com (no path)",
      ),
      // The canonical origin: a lowercase host, no default port.
      v.transform((url) => new URL(url).origin),
    ),
  ),
  UPLOAD_STORAGE: v.optional(v.picklist(["disk", "database"], "UPLOAD_STORAGE must be disk or database")),
  JWT_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, "JWT_SECRET must be at least 32 characters"))),
  SECRETS_KEY: v.optional(
    v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, "SECRETS_KEY must be 64 hexadecimal characters (32 bytes), e.g. from openssl rand -hex 32")),
  ),
  LOG_LEVEL: v.optional(v.picklist(["debug", "info", "warn", "error", "silent"], "LOG_LEVEL must be one of debug, info, warn, error, silent"), "info"),
  LOG_FORMAT: v.optional(v.picklist(["json", "text"], "LOG_FORMAT must be json or text")),
  AUTH_RATE_LIMIT_PER_MINUTE: v.optional(integerFrom("AUTH_RATE_LIMIT_PER_MINUTE", 1, 1_000_000), "30"),
  LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE: v.optional(integerFrom("LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE", 1, 1_000_000), "10"),
  LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE: v.optional(integerFrom("LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE", 1, 1_000_000), "100"),
  LOGIN_FAILURES_WINDOW_SECONDS: v.optional(integerFrom("LOGIN_FAILURES_WINDOW_SECONDS", 1, 86_400), "60"),
  REQUIRE_2FA_FOR_APPLICATIONS: v.optional(v.picklist(["true", "false", "1", "0"], "REQUIRE_2FA_FOR_APPLICATIONS must be true or false"), "false"),
  GIF_PROVIDER_URL: v.optional(v.pipe(v.string(), v.regex(/^https?:\/\/\S+$/i, "GIF_PROVIDER_URL must be an http(s) URL"))),
  GIF_PROVIDER_KEY: v.optional(v.string()),
  GIF_PROVIDER_TIMEOUT_MS: v.optional(integerFrom("GIF_PROVIDER_TIMEOUT_MS", 100, 60_000), "3000"),
  AI_PROVIDER_TIMEOUT_MS: v.optional(integerFrom("AI_PROVIDER_TIMEOUT_MS", 100, 600_000), "60000"),
  CORS_ORIGINS: v.optional(
    v.pipe(
      v.string(),
      v.transform((value) => value.split(",").map((origin) => origin.trim().replace(/\/+$/, "")).filter((origin) => origin !== "")),
      v.check(
        (origins) => origins.every((origin) => origin === "*" || /^https?:\/\/[^/\s?#]+$/i.test(origin)),
        "CORS_ORIGINS must be * or a comma-separated list of origins like https://chat.example.com",
      ),
    ),
  ),
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, "METRICS_TOKEN must be at least 16 characters"))),
  DRAIN_TIMEOUT_MS: v.optional(integerFrom("DRAIN_TIMEOUT_MS", 0, 600_000), "10000"),
  MAX_CHANNELS_PER_SERVER: v.optional(integerFrom("MAX_CHANNELS_PER_SERVER", 1, 100_000), String(DEFAULT_CAPS.channelsPerServer)),
  MAX_ROLES_PER_SERVER: v.optional(integerFrom("MAX_ROLES_PER_SERVER", 1, 100_000), String(DEFAULT_CAPS.rolesPerServer)),
  MAX_INVITES_PER_SERVER: v.optional(integerFrom("MAX_INVITES_PER_SERVER", 1, 1_000_000), String(DEFAULT_CAPS.invitesPerServer)),
  MAX_WEBHOOKS_PER_CHANNEL: v.optional(integerFrom("MAX_WEBHOOKS_PER_CHANNEL", 1, 10_000), String(DEFAULT_CAPS.webhooksPerChannel)),
  MAX_REACTIONS_PER_MESSAGE: v.optional(integerFrom("MAX_REACTIONS_PER_MESSAGE", 1, 1000), String(DEFAULT_CAPS.reactionsPerMessage)),
  MAX_SERVERS_PER_USER: v.optional(integerFrom("MAX_SERVERS_PER_USER", 1, 100_000), String(DEFAULT_CAPS.serversPerUser)),
  MAX_SERVERS_PER_BOT: v.optional(integerFrom("MAX_SERVERS_PER_BOT", 1, 10_000_000), String(DEFAULT_CAPS.serversPerBot)),
  MAX_APPLICATIONS_PER_USER: v.optional(integerFrom("MAX_APPLICATIONS_PER_USER", 1, 10_000), String(DEFAULT_CAPS.applicationsPerUser)),
  MAX_GROUP_DMS_PER_USER: v.optional(integerFrom("MAX_GROUP_DMS_PER_USER", 1, 100_000), String(DEFAULT_CAPS.groupDmsPerUser)),
  LARGE_SERVER_MEMBERS: v.optional(integerFrom("LARGE_SERVER_MEMBERS", 1, 10_000_000), String(DEFAULT_LARGE_SERVER_MEMBERS)),
  DELETE_BATCH_ROWS: v.optional(integerFrom("DELETE_BATCH_ROWS", 1, 100_000), "1000"),
  MAX_IMAGE_SIDE: v.optional(integerFrom("MAX_IMAGE_SIDE", 16, 1_000_000), String(DEFAULT_IMAGE_LIMITS.maxSide)),
  MAX_IMAGE_MEGAPIXELS: v.optional(integerFrom("MAX_IMAGE_MEGAPIXELS", 1, 100_000), String(DEFAULT_IMAGE_LIMITS.maxPixels / 1_000_000)),
  SOUNDBOARD_PLAYS_PER_WINDOW: v.optional(integerFrom("SOUNDBOARD_PLAYS_PER_WINDOW", 1, 10_000), String(DEFAULT_SOUNDBOARD_PLAY_RATE.plays)),
  SOUNDBOARD_PLAY_WINDOW_SECONDS: v.optional(integerFrom("SOUNDBOARD_PLAY_WINDOW_SECONDS", 1, 3600), String(DEFAULT_SOUNDBOARD_PLAY_RATE.windowSeconds)),
  TURN_URLS: v.optional(iceUrls("TURN_URLS", /^turns?:[^\s?,]+(\?transport=(udp|tcp))?$/i, "turn:turn.example.org:3478?transport=udp,turns:turn.example.org:443?transport=tcp")),
  TURN_SECRET: v.optional(v.pipe(v.string(), v.minLength(16, "TURN_SECRET must be at least 16 characters (coturn's static-auth-secret)"))),
  STUN_URLS: v.optional(iceUrls("STUN_URLS", /^stuns?:[^\s?,]+$/i, "stun:turn.example.org:3478")),
  TURN_TTL_SECONDS: v.optional(integerFrom("TURN_TTL_SECONDS", 60, 7 * 86_400), String(DEFAULT_ICE_SETTINGS.ttlSeconds)),
  ICE_TRANSPORT_POLICY: v.optional(v.picklist(["all", "relay"], "ICE_TRANSPORT_POLICY must be all or relay"), DEFAULT_ICE_SETTINGS.transportPolicy),
  JANUS_URL: v.optional(iceUrls("JANUS_URL", /^wss?:\/\/[^\s,]+$/i, "wss://janus.example.org/janus")),
  JANUS_ADMIN_URL: v.optional(iceUrls("JANUS_ADMIN_URL", /^https?:\/\/[^\s,]+$/i, "http://127.0.0.1:7088/admin")),
  JANUS_SECRET: v.optional(v.pipe(v.string(), v.minLength(16, "JANUS_SECRET must be at least 16 characters (Janus's admin_secret)"))),
  VOICE_MESH_MAX_PUBLISHERS: v.optional(integerFrom("VOICE_MESH_MAX_PUBLISHERS", 2, 1000), String(DEFAULT_MESH_CAPS.publishers)),
  VOICE_MESH_MAX_AUDIENCE: v.optional(integerFrom("VOICE_MESH_MAX_AUDIENCE", 1, 100_000), String(DEFAULT_MESH_CAPS.audience)),
  TOKEN_LIFETIME: v.optional(v.pipe(v.string(), v.regex(/^\d+[smhdw]$/, "TOKEN_LIFETIME must look like 30d, 12h or 90m")), "30d"),
});

export class ConfigError extends Error {}

/** Reads and validates the environment; a bad value names the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(
    Object.keys(EnvSchema.entries).flatMap((key) => (env[key] === undefined || env[key] === "" ? [] : [[key, env[key]]])),
  );
  const result = v.safeParse(EnvSchema, picked);
  if (!result.success) throw new ConfigError(`Invalid configuration: ${describeIssue(result.issues[0])}`);
  const e = result.output;
  // Nodes share the database: SQLite is one process's file (docs/operations.md, "Running several nodes").
  if (e.REDIS_URL && !e.DATABASE_URL) {
    throw new ConfigError("Invalid configuration: REDIS_URL (cluster mode) needs DATABASE_URL to name a PostgreSQL database shared by every node");
  }
  if ((e.TLS_CERT_FILE === undefined) !== (e.TLS_KEY_FILE === undefined)) {
    throw new ConfigError(
      `Invalid configuration: ${e.TLS_CERT_FILE === undefined ? "TLS_KEY_FILE is set without TLS_CERT_FILE" : "TLS_CERT_FILE is set without TLS_KEY_FILE"}: set both (the certificate and its private key, PEM files) to serve HTTPS, or neither`,
    );
  }
  if ((e.TURN_URLS === undefined) !== (e.TURN_SECRET === undefined)) {
    throw new ConfigError(
      `Invalid configuration: ${e.TURN_URLS === undefined ? "TURN_SECRET is set without TURN_URLS" : "TURN_URLS is set without TURN_SECRET"}: set both (the TURN servers and coturn's static-auth-secret), or neither`,
    );
  }
  const janusSet = [e.JANUS_URL, e.JANUS_ADMIN_URL, e.JANUS_SECRET].filter((value) => value !== undefined).length;
  if (janusSet !== 0 && janusSet !== 3) {
    throw new ConfigError(
      "Invalid configuration: JANUS_URL, JANUS_ADMIN_URL and JANUS_SECRET go together (the Janus API browsers reach, its Admin API, and its admin_secret): set all three, or none",
    );
  }
  if (e.JANUS_URL && e.JANUS_ADMIN_URL && e.JANUS_URL.length !== e.JANUS_ADMIN_URL.length) {
    throw new ConfigError(
      `Invalid configuration: JANUS_URL names ${e.JANUS_URL.length} Janus instances and JANUS_ADMIN_URL ${e.JANUS_ADMIN_URL.length}: one Admin API URL per instance, in the same order`,
    );
  }
  if (e.ICE_TRANSPORT_POLICY === "relay" && e.TURN_URLS === undefined) {
    throw new ConfigError("Invalid configuration: ICE_TRANSPORT_POLICY=relay needs TURN_URLS and TURN_SECRET: relay-only connections have nothing to relay through otherwise");
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    dataDirMinFreeBytes: e.DATA_DIR_MIN_FREE_MB * 1024 * 1024,
    databaseFile: e.DATABASE_FILE ?? join(e.DATA_DIR, "hearth.db"),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    clusterNodeUrl: e.CLUSTER_NODE_URL,
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY ?? undefined,
    tls: e.TLS_CERT_FILE !== undefined && e.TLS_KEY_FILE !== undefined ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : undefined,
    uploadStorage: e.UPLOAD_STORAGE ?? (e.REDIS_URL ? "database" : "disk"),
    jwtSecret: e.JWT_SECRET,
    secretsKey: e.SECRETS_KEY,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (process.stdout.isTTY ? "text" : "json"),
    authRateLimitPerMinute: e.AUTH_RATE_LIMIT_PER_MINUTE,
    loginFailuresPerAccountPerMinute: e.LOGIN_FAILURES_PER_ACCOUNT_PER_MINUTE,
    loginFailuresPerAccountTotalPerMinute: e.LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE,
    loginFailuresWindowSeconds: e.LOGIN_FAILURES_WINDOW_SECONDS,
    tokenLifetime: e.TOKEN_LIFETIME,
    requireTwoFactorForApplications: e.REQUIRE_2FA_FOR_APPLICATIONS === "true" || e.REQUIRE_2FA_FOR_APPLICATIONS === "1",
    aiProviderTimeoutMs: e.AI_PROVIDER_TIMEOUT_MS,
    gifProvider: e.GIF_PROVIDER_URL
      ? { url: e.GIF_PROVIDER_URL, key: e.GIF_PROVIDER_KEY ?? "", timeoutMs: e.GIF_PROVIDER_TIMEOUT_MS }
      : null,
    corsOrigins: e.CORS_ORIGINS ?? [],
    gatewayEventLimits: {
      typing: e.GATEWAY_RATE_TYPING ?? DEFAULT_EVENT_LIMITS.typing,
      rooms: e.GATEWAY_RATE_ROOMS ?? DEFAULT_EVENT_LIMITS.rooms,
      presence: e.GATEWAY_RATE_PRESENCE ?? DEFAULT_EVENT_LIMITS.presence,
      subscriptions: e.GATEWAY_RATE_SUBSCRIPTIONS ?? DEFAULT_EVENT_LIMITS.subscriptions,
      voice: e.GATEWAY_RATE_VOICE ?? DEFAULT_EVENT_LIMITS.voice,
      signal: e.GATEWAY_RATE_SIGNAL ?? DEFAULT_EVENT_LIMITS.signal,
      messages: e.GATEWAY_RATE_MESSAGES ?? DEFAULT_EVENT_LIMITS.messages,
      audio: e.GATEWAY_RATE_AUDIO ?? DEFAULT_EVENT_LIMITS.audio,
    },
    gatewayUserRateFactor: e.GATEWAY_USER_RATE_FACTOR,
    gatewayRefusalsBeforeDisconnect: e.GATEWAY_REFUSALS_BEFORE_DISCONNECT,
    gatewayMaxConnectionsPerUser: e.GATEWAY_MAX_CONNECTIONS_PER_USER,
    gatewayMaxPendingSessionsPerAddress: e.GATEWAY_MAX_PENDING_SESSIONS_PER_ADDRESS,
    gatewayHandshakeTimeoutMs: e.GATEWAY_HANDSHAKE_TIMEOUT_MS,
    gatewayMaxBufferedBytes: e.GATEWAY_MAX_BUFFERED_BYTES,
    metricsToken: e.METRICS_TOKEN,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    gatewayResumeBuffer: e.GATEWAY_RESUME_BUFFER,
    caps: {
      channelsPerServer: e.MAX_CHANNELS_PER_SERVER,
      rolesPerServer: e.MAX_ROLES_PER_SERVER,
      invitesPerServer: e.MAX_INVITES_PER_SERVER,
      webhooksPerChannel: e.MAX_WEBHOOKS_PER_CHANNEL,
      reactionsPerMessage: e.MAX_REACTIONS_PER_MESSAGE,
      serversPerUser: e.MAX_SERVERS_PER_USER,
      serversPerBot: e.MAX_SERVERS_PER_BOT,
      applicationsPerUser: e.MAX_APPLICATIONS_PER_USER,
      groupDmsPerUser: e.MAX_GROUP_DMS_PER_USER,
    },
    largeServerMembers: e.LARGE_SERVER_MEMBERS,
    deleteBatchRows: e.DELETE_BATCH_ROWS,
    imageLimits: { maxSide: e.MAX_IMAGE_SIDE, maxPixels: e.MAX_IMAGE_MEGAPIXELS * 1_000_000 },
    soundboardPlayRate: { plays: e.SOUNDBOARD_PLAYS_PER_WINDOW, windowSeconds: e.SOUNDBOARD_PLAY_WINDOW_SECONDS },
    ice: {
      turnUrls: e.TURN_URLS ?? [],
      turnSecret: e.TURN_SECRET,
      stunUrls: e.STUN_URLS ?? [],
      ttlSeconds: e.TURN_TTL_SECONDS,
      transportPolicy: e.ICE_TRANSPORT_POLICY,
    },
    meshCaps: { publishers: e.VOICE_MESH_MAX_PUBLISHERS, audience: e.VOICE_MESH_MAX_AUDIENCE },
    janus: e.JANUS_URL && e.JANUS_ADMIN_URL && e.JANUS_SECRET ? { urls: e.JANUS_URL, adminUrls: e.JANUS_ADMIN_URL, secret: e.JANUS_SECRET } : null,
    restRateLimits: {
      sends: e.REST_RATE_SENDS ?? DEFAULT_REST_RATE_LIMITS.sends,
      "user-sends": e.REST_RATE_USER_SENDS ?? DEFAULT_REST_RATE_LIMITS["user-sends"],
      "message-writes": e.REST_RATE_MESSAGE_WRITES ?? DEFAULT_REST_RATE_LIMITS["message-writes"],
      reactions: e.REST_RATE_REACTIONS ?? DEFAULT_REST_RATE_LIMITS.reactions,
      reads: e.REST_RATE_READS ?? DEFAULT_REST_RATE_LIMITS.reads,
      writes: e.REST_RATE_WRITES ?? DEFAULT_REST_RATE_LIMITS.writes,
    },
    passwordHashing: { memoryCost: 19456, timeCost: 2 },
  };
}
