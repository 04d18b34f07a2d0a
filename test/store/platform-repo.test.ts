import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { Admins } from "../../src/domain/admin/admins.ts";
import { defineSetting, PlatformSettings } from "../../src/domain/admin/platform-settings.ts";
import { createStore, type Store } from "../../src/store/store.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

/** The secrets key of these throw-away databases. */
const KEY = crypto.getRandomValues(new Uint8Array(32));

let database: TestDatabase | null = null;
let store: Store | null = null;
const open = async () => {
  database = await freshDatabase({ file: true });
  store = await createStore(database.location, KEY);
  return store;
};
afterEach(async () => {
  await store?.close();
  await database?.drop();
  store = null;
  database = null;
});

const human = (username: string) =>
  store!.users.create({ username, email: `${username}@example.test`, passwordHash: "x", isBot: false });

describe("platform administrators", () => {
  test("the first human account is an administrator; later ones and bots are not", async () => {
    await open();
    const bot = await store!.users.create({ username: "early-bot", email: null, passwordHash: null, isBot: true });
    const first = await human("first");
    const second = await human("second");
    if (!bot.ok || !first.ok || !second.ok) throw new Error("setup");
    const admins = new Admins(store!);
    expect([bot.user.platform_admin, first.user.platform_admin, second.user.platform_admin]).toEqual([0, 1, 0]);
    expect(admins.isAdmin(first.user)).toBe(true);
    expect(() => admins.requireAdmin(second.user)).toThrow("Platform administrators only (MANAGE_SETTINGS)");
    expect(await store!.platform.setAdmin(second.user.id, true)).toMatchObject({ ok: true, user: { platform_admin: 1 } });
    expect(await store!.platform.setAdmin(bot.user.id, true)).toEqual({ ok: false, reason: "not_found" });
  });

  test("the last active administrator cannot be withdrawn", async () => {
    await open();
    const first = await human("first");
    const second = await human("second");
    if (!first.ok || !second.ok) throw new Error("setup");
    expect(await store!.platform.setAdmin(first.user.id, false)).toEqual({ ok: false, reason: "last_admin" });
    await store!.platform.setAdmin(second.user.id, true);
    expect(await store!.platform.setAdmin(first.user.id, false)).toMatchObject({ ok: true, user: { platform_admin: 0 } });
    expect(await store!.platform.setAdmin(second.user.id, false)).toEqual({ ok: false, reason: "last_admin" });
    // Withdrawing from someone who is not an administrator is always fine.
    expect(await store!.platform.setAdmin(first.user.id, false)).toMatchObject({ ok: true });
  });

  test("the platform log pages newest first by id", async () => {
    await open();
    const first = await human("first");
    if (!first.ok) throw new Error("setup");
    const admins = new Admins(store!);
    for (const n of [1, 2, 3]) await admins.record(first.user, "TEST", { type: "user", id: first.user.id }, { n });
    await admins.record(null, "CLI", null);
    const page = await admins.logPage(null, 3);
    expect(page.hasMore).toBe(true);
    expect(page.entries.map((e) => e.action)).toEqual(["CLI", "TEST", "TEST"]);
    expect(page.entries[0]!.actor).toBeNull();
    expect(page.entries[1]).toMatchObject({ actor: { id: first.user.id, username: "first" }, changes: { n: 3 } });
    const rest = await admins.logPage(page.entries[2]!.id, 3);
    expect(rest).toMatchObject({ hasMore: false, entries: [{ changes: { n: 1 } }] });
  });
});

describe("platform settings", () => {
  const open_ = defineSetting("registration_open", v.boolean(), true);

  test("default until set, then the stored value, also after a restart", async () => {
    const s = await open();
    const settings = new PlatformSettings(s);
    expect(await settings.get(open_)).toBe(true);
    await settings.set(open_, false, null);
    expect(await settings.get(open_)).toBe(false);
    await s.close();
    store = await createStore(database!.location, KEY);
    expect(await new PlatformSettings(store!).get(open_)).toBe(false);
  });

  test("a stored value that no longer passes the schema reads as the default", async () => {
    await open();
    await store!.platform.putSetting("registration_open", JSON.stringify("nope"), null);
    expect(await new PlatformSettings(store!).get(open_)).toBe(true);
  });
});
