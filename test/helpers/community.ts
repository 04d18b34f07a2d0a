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
