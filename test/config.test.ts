import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";
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

  test("reads the environment", () => {
    const config = loadConfig({ PORT: "8080", HOST: "127.0.0.1", DATA_DIR: "/srv/hearth", AUTH_RATE_LIMIT_PER_MINUTE: "5", LOG_LEVEL: "warn" });
    expect(config).toMatchObject({ port: 8080, host: "127.0.0.1", dataDir: "/srv/hearth", databaseFile: "/srv/hearth/hearth.db", authRateLimitPerMinute: 5, logLevel: "warn" });
  });

  test.each([
    [{ PORT: "abc" }, "PORT must be a whole number"],
    [{ PORT: "70000" }, "PORT must be at most 65535"],
    [{ JWT_SECRET: "short" }, "JWT_SECRET must be at least 32 characters"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL must be one of debug, info, warn, error, silent"],
    [{ AUTH_RATE_LIMIT_PER_MINUTE: "0" }, "AUTH_RATE_LIMIT_PER_MINUTE must be at least 1"],
    [{ TOKEN_LIFETIME: "forever" }, "TOKEN_LIFETIME must look like 30d, 12h or 90m"],
    [{ CORS_ORIGINS: "chat.example.com" }, "CORS_ORIGINS must be * or a comma-separated list of origins like https://chat.example.com"],
    [{ CORS_ORIGINS: "https://chat.example.com/app" }, "CORS_ORIGINS must be * or a comma-separated list"],
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
