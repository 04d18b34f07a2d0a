import type { TestServer, TestUser } from "./server.ts";

/** Creates a server owned by `owner` and returns its id. */
export async function createServer(server: TestServer, owner: TestUser, name = "Test Server"): Promise<string> {
  const res = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name } });
  if (res.status !== 201) throw new Error(`create server failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Makes `user` a plain member, straight through the store (join routes have their own tests). */
export async function addMember(server: TestServer, serverId: string, user: TestUser, role: "member" | "moderator" | "admin" = "member") {
  await server.app.store.members.add(serverId, user.id, role);
}

/** The server's audit entries, newest first. */
export async function auditEntries(server: TestServer, serverId: string) {
  return (await server.app.store.audit.page(serverId, Number.MAX_SAFE_INTEGER, 100)).rows;
}

/**
 * A fresh server owned by a new user, with a second user as a plain member and a third who is
 * not in it; `channelId` is its `general` text channel, `everyone` its @everyone role.
 */
export async function community(server: TestServer) {
  const owner = await server.register();
  const member = await server.register();
  const outsider = await server.register();
  const serverId = await createServer(server, owner);
  await addMember(server, serverId, member);
  const [general] = await server.app.store.channels.listByServer(serverId);
  const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
  return { owner, member, outsider, serverId, channelId: general!.id, everyone };
}
