import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { DEFAULT_EVENT_LIMITS } from "../src/gateway/event-limits.ts";
import { DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, PERMISSIONS, permissionNames } from "../src/domain/access/permission-bits.ts";

describe("loadConfig", () => {
  test("defaults follow CONTRACT.md", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      dataDir: "./data",
      databaseFile: "data/hearth.db",
      jwtSecret: undefined,
      logLevel: "info",
      authRateLimitPerMinute: 30,
      tokenLifetime: "30d",
      corsOrigins: [],
    });
  });

  test("CORS_ORIGINS: a comma-separated list of origins (a trailing slash and blanks dropped), or *", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://chat.example.com/, http://localhost:5173 ," }).corsOrigins).toEqual([
      "https://chat.example.com",
      "http://localhost:5173",
    ]);
    expect(loadConfig({ CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
  });

  test("login failure budgets and the secrets key", () => {
    expect(loadConfig({})).toMatchObject({ loginFailuresPerAccountPerMinute: 10, loginFailuresPerAccountTotalPerMinute: 100, secretsKey: undefined });
    const key = "0123456789abcdef".repeat(4);
    expect(loadConfig({ SECRETS_KEY: key, LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE: "50" })).toMatchObject({
      secretsKey: key,
      loginFailuresPerAccountTotalPerMinute: 50,
    });
  });

  test("LOGIN_FAILURES_WINDOW_SECONDS: 60 by default, 1-86,400", () => {
    expect(loadConfig({}).loginFailuresWindowSeconds).toBe(60);
    expect(loadConfig({ LOGIN_FAILURES_WINDOW_SECONDS: "5" }).loginFailuresWindowSeconds).toBe(5);
    for (const bad of ["0", "86401", "1.5", "soon"]) expect(() => loadConfig({ LOGIN_FAILURES_WINDOW_SECONDS: bad })).toThrow(ConfigError);
  });

  test("gateway abuse limits: safe defaults, each settable (docs/operations.md)", () => {
    const config = loadConfig({});
    expect(config.gatewayEventLimits).toEqual(DEFAULT_EVENT_LIMITS);
    expect(config.gatewayEventLimits.audio).toEqual({ perSecond: 250, burst: 500 });
    expect(config).toMatchObject({
      gatewayUserRateFactor: 3,
      gatewayRefusalsBeforeDisconnect: 50,
      gatewayMaxConnectionsPerUser: 20,
      gatewayMaxBufferedBytes: 4 * 1024 * 1024,
      gatewayResumeBuffer: 10_000,
    });
    const set = loadConfig({
      GATEWAY_RATE_TYPING: "5/8",
      GATEWAY_RATE_ROOMS: "1/2",
      GATEWAY_RATE_PRESENCE: "0.5/1",
      GATEWAY_RATE_SUBSCRIPTIONS: "11/12",
      GATEWAY_RATE_VOICE: "3/4",
      GATEWAY_RATE_MESSAGES: "6/7",
      GATEWAY_RATE_SIGNAL: "9/10",
      GATEWAY_RATE_AUDIO: "4000/8000",
      GATEWAY_USER_RATE_FACTOR: "2",
      GATEWAY_REFUSALS_BEFORE_DISCONNECT: "7",
      GATEWAY_MAX_CONNECTIONS_PER_USER: "3",
      GATEWAY_MAX_BUFFERED_BYTES: "1048576",
      GATEWAY_RESUME_BUFFER: "5000",
    });
    expect(set.gatewayEventLimits).toEqual({
      typing: { perSecond: 5, burst: 8 },
      rooms: { perSecond: 1, burst: 2 },
      presence: { perSecond: 0.5, burst: 1 },
      subscriptions: { perSecond: 11, burst: 12 },
      voice: { perSecond: 3, burst: 4 },
      signal: { perSecond: 9, burst: 10 },
      messages: { perSecond: 6, burst: 7 },
      audio: { perSecond: 4000, burst: 8000 },
    });
    expect(set).toMatchObject({ gatewayUserRateFactor: 2, gatewayRefusalsBeforeDisconnect: 7, gatewayMaxConnectionsPerUser: 3, gatewayMaxBufferedBytes: 1048576, gatewayResumeBuffer: 5000 });
  });

  test("DATABASE_URL: unset is SQLite; a postgres:// or postgresql:// URL is PostgreSQL; anything else stops the start", () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    const url = "postgres://hearth:secret@db.example.com:5432/hearth?sslmode=verify-full&max=20";
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(loadConfig({ DATABASE_URL: "postgresql://db/hearth" }).databaseUrl).toBe("postgresql://db/hearth");
    for (const bad of ["mysql://db/hearth", "hearth.db", "postgres://"]) {
      expect(() => loadConfig({ DATABASE_URL: bad })).toThrow("DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/hearth");
    }
  });

  test("operations: METRICS_TOKEN unset by default, DRAIN_TIMEOUT_MS 10 s", () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: undefined, drainTimeoutMs: 10_000 });
    expect(loadConfig({ METRICS_TOKEN: "a-long-metrics-token", DRAIN_TIMEOUT_MS: "0" })).toMatchObject({ metricsToken: "a-long-metrics-token", drainTimeoutMs: 0 });
  });

  test("UPLOAD_STORAGE: disk on one node, database in cluster mode, either when named; anything else names the variable", () => {
    const database = "postgres://db/hearth";
    expect(loadConfig({}).uploadStorage).toBe("disk");
    expect(loadConfig({ DATABASE_URL: database }).uploadStorage).toBe("disk");
    expect(loadConfig({ DATABASE_URL: database, REDIS_URL: "redis://cache:6379" }).uploadStorage).toBe("database");
    expect(loadConfig({ DATABASE_URL: database, REDIS_URL: "redis://cache:6379", UPLOAD_STORAGE: "disk" }).uploadStorage).toBe("disk");
    expect(loadConfig({ UPLOAD_STORAGE: "database" }).uploadStorage).toBe("database");
    expect(() => loadConfig({ UPLOAD_STORAGE: "s3" })).toThrow("Invalid configuration: UPLOAD_STORAGE: UPLOAD_STORAGE must be disk or database");
  });

  test("REDIS_URL: unset is one node; a redis:// or rediss:// URL is cluster mode and needs DATABASE_URL; CLUSTER_NODE_URL is an origin", () => {
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(loadConfig({}).clusterNodeUrl).toBeUndefined();
    const database = "postgres://db/hearth";
    expect(loadConfig({ DATABASE_URL: database, REDIS_URL: "redis://:pw@cache:6379/2" }).redisUrl).toBe("redis://:pw@cache:6379/2");
    expect(loadConfig({ DATABASE_URL: database, REDIS_URL: "rediss://cache:6380" }).redisUrl).toBe("rediss://cache:6380");
    for (const bad of ["cache:6379", "http://cache", "redis://"]) {
      expect(() => loadConfig({ DATABASE_URL: database, REDIS_URL: bad })).toThrow("REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0");
    }
    // SQLite is one process's file: cluster mode without PostgreSQL stops the start, naming both.
    expect(() => loadConfig({ REDIS_URL: "redis://cache:6379" })).toThrow(
      "Invalid configuration: REDIS_URL (cluster mode) needs DATABASE_URL to name a PostgreSQL database shared by every node",
    );
    expect(loadConfig({ CLUSTER_NODE_URL: "http://10.0.0.11:3000" }).clusterNodeUrl).toBe("http://10.0.0.11:3000");
    for (const bad of ["10.0.0.11:3000", "http://10.0.0.11:3000/hearth"]) {
      expect(() => loadConfig({ CLUSTER_NODE_URL: bad })).toThrow("CLUSTER_NODE_URL must be this node's address for the other nodes");
    }
  });

  test("PUBLIC_URL: unset by default; an http(s) origin, normalised; a path, a query or user info stops the start", () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: "https://chat.example.com" }).publicUrl).toBe("https://chat.example.com");
    expect(loadConfig({ PUBLIC_URL: " HTTPS://Chat.Example.COM:443/ " }).publicUrl).toBe("https://chat.example.com");
    expect(loadConfig({ PUBLIC_URL: "http://10.0.0.5:3000" }).publicUrl).toBe("http://10.0.0.5:3000");
    for (const bad of ["chat.example.com", "ftp://chat.example.com", "https://chat.example.com/hearth", "https://chat.example.com?x=1", "https://user@chat.example.com", "https://", "https://a b"]) {
      expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow("Invalid configuration: PUBLIC_URL: PUBLIC_URL must be the origin clients reach this instance at");
    }
  });

  test("TRUST_PROXY: unset by default; a hop count or addresses and ranges; anything else stops the start", () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: " 10.0.0.0/8, 192.168.1.4 ,loopback" }).trustProxy).toEqual(["10.0.0.0/8", "192.168.1.4", "loopback"]);
    expect(loadConfig({ TRUST_PROXY: "fd00::/8" }).trustProxy).toEqual(["fd00::/8"]);
    for (const bad of ["0", "33", "yes", "10.0.0.0/99", " , "]) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow("Invalid configuration: TRUST_PROXY: TRUST_PROXY must be the number of proxies");
    }
  });

  test("TLS_CERT_FILE and TLS_KEY_FILE: both or neither", () => {
    expect(loadConfig({}).tls).toBeUndefined();
    expect(loadConfig({ TLS_CERT_FILE: "/etc/hearth/fullchain.pem", TLS_KEY_FILE: "/etc/hearth/privkey.pem" }).tls).toEqual({
      certFile: "/etc/hearth/fullchain.pem",
      keyFile: "/etc/hearth/privkey.pem",
    });
    expect(() => loadConfig({ TLS_CERT_FILE: "/etc/hearth/fullchain.pem" })).toThrow(
      "Invalid configuration: TLS_CERT_FILE is set without TLS_KEY_FILE: set both (the certificate and its private key, PEM files) to serve HTTPS, or neither",
    );
    expect(() => loadConfig({ TLS_KEY_FILE: "/etc/hearth/privkey.pem", TLS_CERT_FILE: "" })).toThrow("Invalid configuration: TLS_KEY_FILE is set without TLS_CERT_FILE");
  });

  test("TURN_URLS, TURN_SECRET, STUN_URLS, TURN_TTL_SECONDS, ICE_TRANSPORT_POLICY: none by default; TURN needs both; bad URLs name the variable", () => {
    expect(loadConfig({}).ice).toEqual({ turnUrls: [], turnSecret: undefined, stunUrls: [], ttlSeconds: 86_400, transportPolicy: "all" });
    const secret = "a-coturn-static-auth-secret";
    expect(
      loadConfig({
        TURN_URLS: "turn:turn.example.org:3478?transport=udp, turns:turn.example.org:443?transport=tcp",
        TURN_SECRET: secret,
        STUN_URLS: "stun:turn.example.org:3478",
        TURN_TTL_SECONDS: "3600",
        ICE_TRANSPORT_POLICY: "relay",
      }).ice,
    ).toEqual({
      turnUrls: ["turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:443?transport=tcp"],
      turnSecret: secret,
      stunUrls: ["stun:turn.example.org:3478"],
      ttlSeconds: 3600,
      transportPolicy: "relay",
    });
    expect(loadConfig({ STUN_URLS: "stun:stun.example.org:3478" }).ice.turnUrls).toEqual([]);
    expect(() => loadConfig({ TURN_URLS: "turn:turn.example.org:3478" })).toThrow("Invalid configuration: TURN_URLS is set without TURN_SECRET: set both");
    expect(() => loadConfig({ TURN_SECRET: secret })).toThrow("Invalid configuration: TURN_SECRET is set without TURN_URLS");
    for (const bad of ["https://turn.example.org", "turn:turn.example.org?transport=sctp", "stun:turn.example.org", " , "]) {
      expect(() => loadConfig({ TURN_URLS: bad, TURN_SECRET: secret })).toThrow("Invalid configuration: TURN_URLS: TURN_URLS must be a comma-separated list of URLs like turn:");
    }
    expect(() => loadConfig({ STUN_URLS: "turn:turn.example.org" })).toThrow("STUN_URLS must be a comma-separated list of URLs like stun:");
    expect(() => loadConfig({ TURN_URLS: "turn:a:3478", TURN_SECRET: "short" })).toThrow("TURN_SECRET must be at least 16 characters");
    expect(() => loadConfig({ TURN_TTL_SECONDS: "10" })).toThrow("TURN_TTL_SECONDS");
    expect(() => loadConfig({ ICE_TRANSPORT_POLICY: "none" })).toThrow("ICE_TRANSPORT_POLICY must be all or relay");
    expect(() => loadConfig({ ICE_TRANSPORT_POLICY: "relay" })).toThrow("Invalid configuration: ICE_TRANSPORT_POLICY=relay needs TURN_URLS and TURN_SECRET");
  });

  test("JANUS_URL, JANUS_ADMIN_URL, JANUS_SECRET: none by default (the mesh); all three together, one admin URL per instance", () => {
    expect(loadConfig({}).janus).toBeNull();
    const secret = "janus-admin-secret-0123456789";
    expect(
      loadConfig({ JANUS_URL: "wss://j1.example.org/janus, wss://j2.example.org/janus", JANUS_ADMIN_URL: "http://10.0.0.7:7088/admin,http://10.0.0.8:7088/admin", JANUS_SECRET: secret }).janus,
    ).toEqual({ urls: ["wss://j1.example.org/janus", "wss://j2.example.org/janus"], adminUrls: ["http://10.0.0.7:7088/admin", "http://10.0.0.8:7088/admin"], secret });
    expect(() => loadConfig({ JANUS_URL: "wss://j1.example.org/janus" })).toThrow("Invalid configuration: JANUS_URL, JANUS_ADMIN_URL and JANUS_SECRET go together");
    expect(() => loadConfig({ JANUS_URL: "wss://j1.example.org/janus", JANUS_SECRET: secret })).toThrow("go together");
    expect(() => loadConfig({ JANUS_URL: "wss://a/janus,wss://b/janus", JANUS_ADMIN_URL: "http://a:7088/admin", JANUS_SECRET: secret })).toThrow(
      "Invalid configuration: JANUS_URL names 2 Janus instances and JANUS_ADMIN_URL 1",
    );
    expect(() => loadConfig({ JANUS_URL: "https://a/janus", JANUS_ADMIN_URL: "http://a:7088/admin", JANUS_SECRET: secret })).toThrow("JANUS_URL must be a comma-separated list of URLs like wss://");
    expect(() => loadConfig({ JANUS_URL: "wss://a/janus", JANUS_ADMIN_URL: "ws://a:7188", JANUS_SECRET: secret })).toThrow("JANUS_ADMIN_URL must be a comma-separated list of URLs like http://");
    expect(() => loadConfig({ JANUS_URL: "wss://a/janus", JANUS_ADMIN_URL: "http://a:7088/admin", JANUS_SECRET: "short" })).toThrow("JANUS_SECRET must be at least 16 characters");
  });

  test("VOICE_MESH_MAX_PUBLISHERS 8 and VOICE_MESH_MAX_AUDIENCE 16 by default, each settable", () => {
    expect(loadConfig({}).meshCaps).toEqual({ publishers: 8, audience: 16 });
    expect(loadConfig({ VOICE_MESH_MAX_PUBLISHERS: "4", VOICE_MESH_MAX_AUDIENCE: "40" }).meshCaps).toEqual({ publishers: 4, audience: 40 });
    expect(() => loadConfig({ VOICE_MESH_MAX_PUBLISHERS: "1" })).toThrow("VOICE_MESH_MAX_PUBLISHERS");
    expect(() => loadConfig({ VOICE_MESH_MAX_AUDIENCE: "0" })).toThrow("VOICE_MESH_MAX_AUDIENCE");
  });

  test("reads the environment", () => {
    const config = loadConfig({ PORT: "8080", HOST: "127.0.0.1", DATA_DIR: "/srv/hearth", AUTH_RATE_LIMIT_PER_MINUTE: "5", LOG_LEVEL: "warn", LOG_FORMAT: "text" });
    expect(config).toMatchObject({ port: 8080, host: "127.0.0.1", dataDir: "/srv/hearth", databaseFile: "/srv/hearth/hearth.db", authRateLimitPerMinute: 5, logLevel: "warn", logFormat: "text" });
  });

  test.each([
    [{ PORT: "abc" }, "PORT must be a whole number"],
    [{ PORT: "70000" }, "PORT must be at most 65535"],
    [{ JWT_SECRET: "short" }, "JWT_SECRET must be at least 32 characters"],
    [{ SECRETS_KEY: "ab".repeat(31) }, "SECRETS_KEY must be 64 hexadecimal characters (32 bytes), e.g. from openssl rand -hex 32"],
    [{ SECRETS_KEY: "zz".repeat(32) }, "SECRETS_KEY must be 64 hexadecimal characters"],
    [{ LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE: "0" }, "LOGIN_FAILURES_PER_ACCOUNT_TOTAL_PER_MINUTE must be at least 1"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL must be one of debug, info, warn, error, silent"],
    [{ LOG_FORMAT: "xml" }, "LOG_FORMAT must be json or text"],
    [{ AUTH_RATE_LIMIT_PER_MINUTE: "0" }, "AUTH_RATE_LIMIT_PER_MINUTE must be at least 1"],
    [{ TOKEN_LIFETIME: "forever" }, "TOKEN_LIFETIME must look like 30d, 12h or 90m"],
    [{ CORS_ORIGINS: "chat.example.com" }, "CORS_ORIGINS must be * or a comma-separated list of origins like https://chat.example.com"],
    [{ CORS_ORIGINS: "https://chat.example.com/app" }, "CORS_ORIGINS must be * or a comma-separated list"],
    [{ GATEWAY_RATE_TYPING: "10" }, "GATEWAY_RATE_TYPING must look like 10/20 (events per second / burst)"],
    [{ GATEWAY_RATE_AUDIO: "0/10" }, "GATEWAY_RATE_AUDIO must look like 10/20"],
    [{ GATEWAY_MAX_CONNECTIONS_PER_USER: "0" }, "GATEWAY_MAX_CONNECTIONS_PER_USER must be at least 1"],
    [{ GATEWAY_MAX_BUFFERED_BYTES: "1000" }, "GATEWAY_MAX_BUFFERED_BYTES must be at least 65536"],
    [{ GATEWAY_RESUME_BUFFER: "99" }, "GATEWAY_RESUME_BUFFER must be at least 100"],
    [{ GATEWAY_USER_RATE_FACTOR: "x" }, "GATEWAY_USER_RATE_FACTOR must be a whole number"],
    [{ GATEWAY_REFUSALS_BEFORE_DISCONNECT: "0" }, "GATEWAY_REFUSALS_BEFORE_DISCONNECT must be at least 1"],
    [{ METRICS_TOKEN: "short" }, "METRICS_TOKEN must be at least 16 characters"],
    [{ DRAIN_TIMEOUT_MS: "700000" }, "DRAIN_TIMEOUT_MS must be at most 600000"],
    [{ DRAIN_TIMEOUT_MS: "soon" }, "DRAIN_TIMEOUT_MS must be a whole number"],
  ])("refuses %j naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("permission bits", () => {
  test("the contract's defaults", () => {
    expect(DEFAULT_BOT_PERMISSIONS).toBe(8895488);
    expect(permissionNames(DEFAULT_BOT_PERMISSIONS)).toEqual([
      "ADD_REACTIONS", "VIEW_CHANNEL", "SEND_MESSAGES", "CONNECT", "SPEAK", "ATTACH_FILES", "EMBED_LINKS", "READ_MESSAGE_HISTORY", "USE_APPLICATION_COMMANDS",
    ]);
    expect(DEFAULT_EVERYONE_PERMISSIONS).toBe(16235520);
    expect(PERMISSIONS.KICK_MEMBERS | PERMISSIONS.BAN_MEMBERS | PERMISSIONS.MUTE_MEMBERS).toBe(76);
  });
});
