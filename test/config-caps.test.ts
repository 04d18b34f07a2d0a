import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { DEFAULT_CAPS, DEFAULT_LARGE_SERVER_MEMBERS } from "../src/domain/shared/caps.ts";
import { DEFAULT_IMAGE_LIMITS } from "../src/domain/shared/image-dimensions.ts";

describe("caps and image limits from the environment (docs/operations.md, Caps)", () => {
  test("the defaults", () => {
    const config = loadConfig({});
    expect(config.caps).toEqual(DEFAULT_CAPS);
    expect(config.caps).toMatchObject({ channelsPerServer: 500, rolesPerServer: 250, invitesPerServer: 1000, webhooksPerChannel: 15 });
    expect(config.caps).toMatchObject({ reactionsPerMessage: 20, serversPerUser: 200, applicationsPerUser: 25, groupDmsPerUser: 100 });
    expect(config.imageLimits).toEqual(DEFAULT_IMAGE_LIMITS);
    expect(config.imageLimits).toEqual({ maxSide: 8192, maxPixels: 40_000_000 });
  });

  test.each([
    ["MAX_CHANNELS_PER_SERVER", "channelsPerServer"],
    ["MAX_ROLES_PER_SERVER", "rolesPerServer"],
    ["MAX_INVITES_PER_SERVER", "invitesPerServer"],
    ["MAX_WEBHOOKS_PER_CHANNEL", "webhooksPerChannel"],
    ["MAX_REACTIONS_PER_MESSAGE", "reactionsPerMessage"],
    ["MAX_SERVERS_PER_USER", "serversPerUser"],
    ["MAX_SERVERS_PER_BOT", "serversPerBot"],
    ["MAX_APPLICATIONS_PER_USER", "applicationsPerUser"],
    ["MAX_GROUP_DMS_PER_USER", "groupDmsPerUser"],
  ] as const)("%s sets caps.%s; 0 or a non-number stops the start naming it", (name, key) => {
    expect(loadConfig({ [name]: "7" }).caps[key]).toBe(7);
    expect(() => loadConfig({ [name]: "0" })).toThrow(new ConfigError(`Invalid configuration: ${name}: ${name} must be at least 1`));
    expect(() => loadConfig({ [name]: "many" })).toThrow(ConfigError);
  });

  test("LARGE_SERVER_MEMBERS: 250 by default (Discord's large guild); a whole number of at least 1", () => {
    expect(DEFAULT_LARGE_SERVER_MEMBERS).toBe(250);
    expect(loadConfig({}).largeServerMembers).toBe(250);
    expect(loadConfig({ LARGE_SERVER_MEMBERS: "1000" }).largeServerMembers).toBe(1000);
    expect(() => loadConfig({ LARGE_SERVER_MEMBERS: "0" })).toThrow(new ConfigError("Invalid configuration: LARGE_SERVER_MEMBERS: LARGE_SERVER_MEMBERS must be at least 1"));
    expect(() => loadConfig({ LARGE_SERVER_MEMBERS: "big" })).toThrow(ConfigError);
  });

  test("MAX_IMAGE_SIDE and MAX_IMAGE_MEGAPIXELS", () => {
    expect(loadConfig({ MAX_IMAGE_SIDE: "4096", MAX_IMAGE_MEGAPIXELS: "16" }).imageLimits).toEqual({ maxSide: 4096, maxPixels: 16_000_000 });
    expect(() => loadConfig({ MAX_IMAGE_SIDE: "8" })).toThrow(/MAX_IMAGE_SIDE must be at least 16/);
    expect(() => loadConfig({ MAX_IMAGE_MEGAPIXELS: "0" })).toThrow(/MAX_IMAGE_MEGAPIXELS must be at least 1/);
  });
});
