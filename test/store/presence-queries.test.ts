/**
 * The store's presence queries (docs/gateway.md, "Presence"), on both databases: which of a
 * user's servers are large, which ids are members, and which DM partners may see a presence.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createStore, type Store } from "../../src/store/store.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));
let database: TestDatabase;
let store: Store;
let counter = 0;

beforeAll(async () => {
  database = await freshDatabase();
  store = await createStore(database.location, KEY);
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

async function user(isBot = false): Promise<string> {
  const name = `u${++counter}`;
  const created = await store.users.create({ username: name, email: isBot ? null : `${name}@x.test`, passwordHash: isBot ? null : "h", isBot });
  if (!created.ok) throw new Error("setup");
  return created.user.id;
}

/** A server of `size` members, its owner among them. */
async function serverOf(size: number, ownerId: string, members: string[] = []): Promise<string> {
  const row = (await store.servers.create({ ownerId, name: "S", description: "", everyonePermissions: 0, primaryInviteCode: `c${++counter}` }, 1000))!;
  for (const id of members) await store.members.add(row.id, id);
  for (let i = 1 + members.length; i < size; i++) await store.members.add(row.id, await user());
  return row.id;
}

describe("MembersRepo.serverIdsBySize", () => {
  test("a server is large above the threshold, not at it", async () => {
    const me = await user();
    const atThreshold = await serverOf(5, me);
    const above = await serverOf(6, me);
    const alone = await serverOf(1, me);
    const sizes = await store.members.serverIdsBySize(me, 5);
    expect(sizes.small.sort()).toEqual([atThreshold, alone].sort());
    expect(sizes.large).toEqual([above]);
    expect(await store.members.serverIdsBySize(await user(), 5)).toEqual({ small: [], large: [] });
  });
});

describe("MembersRepo.membersAmong", () => {
  test("keeps the members, whoever else is asked about", async () => {
    const owner = await user();
    const member = await user();
    const stranger = await user();
    const serverId = await serverOf(2, owner, [member]);
    expect([...(await store.members.membersAmong(serverId, [member, stranger, owner, "not-an-id"]))].sort()).toEqual([owner, member].sort());
    expect(await store.members.membersAmong(serverId, [])).toEqual(new Set());
  });
});

describe("DmsRepo.presencePartnerIds", () => {
  test("DM and group DM partners who share a server; every partner of a bot", async () => {
    const me = await user();
    const sharing = await user();
    const stranger = await user();
    const groupmate = await user();
    await serverOf(3, me, [sharing, groupmate]);
    await store.dms.openDm(me, sharing);
    await store.dms.openDm(me, stranger);
    const group = await store.dms.createGroup(me, null, [groupmate, stranger], 100);
    expect(group).toBeTruthy();
    expect((await store.dms.presencePartnerIds(me)).sort()).toEqual([sharing, groupmate].sort());
    expect(await store.dms.presencePartnerIds(stranger)).toEqual([]);

    const bot = await user(true);
    await store.dms.openDm(bot, stranger);
    expect(await store.dms.presencePartnerIds(bot)).toEqual([stranger]);
  });
});
