/**
 * Check-then-write store methods stay atomic under concurrency. PostgreSQL: two stores on one
 * database, as two nodes sharing it, serialized by the methods' advisory locks
 * (Transaction.lock). SQLite: one store, as Hearth has one process per database file (a second
 * connection in this process would wait for the file's write lock synchronously, blocking the
 * event loop that the first one's open transaction needs); its transactions run one at a time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createStore, type Store } from "../../src/store/store.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "../helpers/database.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
let database: TestDatabase;
let a: Store;
let b: Store;
/** Each call alternates between the two stores. */
const both = <T>(n: number, call: (store: Store, i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 ? b : a, i)));

let ownerId = "";
let serverId = "";
let channelId = "";
beforeAll(async () => {
  database = await freshDatabase({ file: true });
  a = await createStore(database.location, KEY);
  b = onPostgres ? await createStore(database.location, KEY) : a;
  const owner = await a.users.create({ username: "owner", email: "owner@x.test", passwordHash: "h", isBot: false });
  if (!owner.ok) throw new Error("setup");
  ownerId = owner.user.id;
  const server = (await a.servers.create({ ownerId, name: "S", description: "", everyonePermissions: 0, primaryInviteCode: "primary" }, 200))!;
  serverId = server.id;
  channelId = (await a.channels.listByServer(serverId))[0]!.id;
});
afterAll(async () => {
  await a.close();
  if (b !== a) await b.close();
  await database.drop();
});

const users = (n: number, prefix: string) =>
  both(n, async (store, i) => {
    const created = await store.users.create({ username: `${prefix}${i}`, email: `${prefix}${i}@x.test`, passwordHash: "h", isBot: false });
    if (!created.ok) throw new Error("setup");
    return created.user.id;
  });

describe("check-then-write under concurrency", () => {
  test("the emoji cap: 60 uploads at once to a server that allows 50 store exactly 50", async () => {
    const emoji = (i: number) => ({ serverId, name: `e${i}`, filePath: `/uploads/emojis/${i}.png`, originalName: "e.png", mimeType: "image/png", size: 10, uploadedBy: ownerId });
    const results = await both(60, (store, i) => store.emojis.create(emoji(i), 50));
    expect(results.filter((r) => r !== null)).toHaveLength(50);
    expect(await a.emojis.list(serverId)).toHaveLength(50);
  });

  test("an invite's max_uses: 12 redeems at once of a 3-use invite admit exactly 3", async () => {
    const invite = (await a.invites.create({ serverId, code: "three-uses", maxUses: 3, expiresAt: null, createdBy: ownerId }, 1000))!;
    const joiners = await users(12, "joiner");
    const results = await both(12, (store, i) => store.invites.redeem("three-uses", joiners[i]!));
    expect(results.filter((r) => r.result === "joinable")).toHaveLength(3);
    expect(results.filter((r) => r.result === "used_up")).toHaveLength(9);
    expect((await a.invites.findById(invite.id))?.uses).toBe(3);
    expect(await a.invites.uses(invite.id)).toHaveLength(3);
  });

  test("reaction toggles: 11 at once by one user end added, counted once, ordered by first use", async () => {
    const message = await a.messages.insert({ channelId, serverId, userId: ownerId, content: "react", embeds: "[]", replyTo: null });
    const outcomes = await both(11, (store) => store.reactions.toggle(message.id, "🚀", ownerId, true, 20));
    expect(outcomes.filter((o) => o.action === "added")).toHaveLength(6);
    expect(outcomes.filter((o) => o.action === "removed")).toHaveLength(5);
    expect(await a.reactions.list(message.id)).toHaveLength(1);
    // Types keep the order of their first use even within one millisecond, whichever store wrote them.
    const emojis = ["🅰", "🅱", "🆎", "🆑", "🆒", "🆓"];
    for (const [i, e] of emojis.entries()) await (i % 2 ? b : a).reactions.toggle(message.id, e, ownerId, true, 20);
    expect((await b.reactions.list(message.id)).map((r) => r.emoji)).toEqual(["🚀", ...emojis]);
  });

  test("pins: 8 at once into a channel that holds 5 pin exactly 5", async () => {
    const messages = await Promise.all(
      Array.from({ length: 8 }, (_, i) => a.messages.insert({ channelId, serverId, userId: ownerId, content: `pin ${i}`, embeds: "[]", replyTo: null })),
    );
    const outcomes = await both(8, (store, i) => store.pins.pin(channelId, messages[i]!.id, ownerId, 5));
    expect(outcomes.filter((o) => o === "pinned")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "full")).toHaveLength(3);
    expect(await a.pins.list(channelId)).toHaveLength(5);
  });

  test("a group's member cap: 10 adds at once to a group of 2 that holds 5 add exactly 3", async () => {
    const people = await users(10, "member");
    const group = await a.dms.createGroup(ownerId, "G", [people[0]!], 100);
    if ("full" in group) throw new Error("setup");
    const outcomes = await both(9, (store, i) => store.dms.addMember(group.id, people[i + 1]!, 5, 100));
    expect(outcomes.filter((o) => o === "added")).toHaveLength(3);
    expect(await a.dms.memberIds(group.id)).toHaveLength(5);
  });

  test("the last administrator: withdrawing two admins at once leaves one", async () => {
    const [first, second] = await users(2, "admin");
    await a.platform.setAdmin(first!, true);
    await a.platform.setAdmin(second!, true);
    await a.platform.setAdmin(ownerId, false);
    const outcomes = await Promise.all([a.platform.setAdmin(first!, false), b.platform.setAdmin(second!, false)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.reason === "last_admin")).toHaveLength(1);
  });

  test("resource caps (src/domain/shared/caps.ts): creates at once with room for 5 store exactly 5, from both stores", async () => {
    // Channels and categories together, in a server of their own.
    const server = (await a.servers.create({ ownerId, name: "Caps", description: "", everyonePermissions: 0, primaryInviteCode: "caps" }, 200))!;
    const channel = (i: number) => ({ serverId: server.id, name: `c${i}`, type: "text" as const, categoryId: null, topic: null, slowmode: 0, nsfw: false, isMeeting: false, chatEnabled: false });
    const made = await both(40, (store, i) => (i % 4 ? store.channels.create(channel(i), 6) : store.channels.createCategory(server.id, `k${i}`, 6)));
    expect(made.filter((row) => row !== null)).toHaveLength(5); // with #general: 6
    // Servers a user belongs to: 40 joins with room for 5.
    const [joiner] = await users(1, "joiner-cap");
    const servers = await both(40, (store, i) => store.servers.create({ ownerId, name: `S${i}`, description: "", everyonePermissions: 0, primaryInviteCode: `cap${i}` }, 1000));
    const joins = await both(40, (store, i) => store.members.add(servers[i]!.id, joiner!, "member", 5));
    expect(joins.filter((row) => row !== null && row !== "full")).toHaveLength(5);
    expect(joins.filter((row) => row === "full")).toHaveLength(35);
    expect(await a.members.serverIdsOf(joiner!)).toHaveLength(5);
    // Distinct reactions on one message.
    const message = await a.messages.insert({ channelId, serverId, userId: ownerId, content: "caps", embeds: "[]", replyTo: null });
    const reacted = await both(12, (store, i) => store.reactions.toggle(message.id, String.fromCodePoint(0x1f600 + i), ownerId, true, 5));
    expect(reacted.filter((o) => o.action === "added")).toHaveLength(5);
    expect(reacted.filter((o) => o.action === "full")).toHaveLength(7);
    // Group DMs of a user: creations at once, each also locking its other members (in one order), with room for 2.
    const people = await users(12, "grouped");
    const groups = await both(10, (store, i) => store.dms.createGroup(people[i]!, null, [people[11]!, people[10]!], 2));
    expect(groups.filter((g) => !("full" in g))).toHaveLength(2);
    expect(groups.filter((g) => "full" in g && g.full === people[10] || "full" in g && g.full === people[11])).toHaveLength(8);
    expect(await a.dms.listForUser(people[10]!, "group")).toHaveLength(2);
  });

  test("role positions stay dense when roles are created at once", async () => {
    await both(10, (store, i) => store.roles.create({ serverId, name: `r${i}`, color: "#000000", permissions: 0, hoist: false }, 250));
    const positions = (await a.roles.list(serverId)).map((r) => r.position).sort((x, y) => x - y);
    expect(positions).toEqual(Array.from({ length: 11 }, (_, i) => i));
  });
});
