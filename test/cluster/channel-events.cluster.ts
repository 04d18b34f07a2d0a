/**
 * Channel events across three nodes (docs/gateway.md, "Channel events"): the node that makes a
 * change checks the users with a socket in the server room on every node, so a member on another
 * node who cannot view the channel gets none of its events and one who can gets each; a session
 * that was away resumes on another node with only the events it may see.
 */
import { describe, expect, test } from "bun:test";
import { api, connect, emitAck, eventually, record, register, serverWith, useThreeNodes, type ClientSocket, type ClusterUser, type HearthNode } from "./nodes.ts";
import { connectResumable, drop, reconnect } from "../helpers/resume.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

const VIEW_CHANNEL = 2048;

/** A server where `insider` holds a role that the category `categoryId` lets in, and @everyone is kept out of it. */
async function privateCategory(owner: ClusterUser, insider: ClusterUser, outsider: ClusterUser) {
  const { serverId } = await serverWith(n2, owner, [insider, outsider]);
  const as = (method: string, path: string, body?: unknown) => api(n2, method, path, { token: owner.token, body });
  const role = (await as("POST", `/api/v1/roles/${serverId}`, { name: "insiders", color: "#112233", permissions: 0 })).body.id as string;
  expect((await as("POST", `/api/v1/roles/${serverId}/assign`, { targetUserId: insider.id, roleId: role })).status).toBe(200);
  const categoryId = (await as("POST", `/api/v1/channels/${serverId}/categories`, { name: "staff" })).body.id as string;
  const everyone = ((await as("GET", `/api/v1/roles/${serverId}`)).body as { id: string; name: string }[]).find((r) => r.name === "@everyone")!.id;
  expect((await as("PUT", `/api/v1/channels/categories/${categoryId}/permissions/${everyone}`, { allow: 0, deny: VIEW_CHANNEL })).status).toBe(200);
  expect((await as("PUT", `/api/v1/channels/categories/${categoryId}/permissions/${role}`, { allow: VIEW_CHANNEL, deny: 0 })).status).toBe(200);
  return { serverId, categoryId, as };
}

describe("channel events across nodes", () => {
  test("a channel changed through node 2 reaches the member who may see it on node 1, not the one on node 3", async () => {
    const [owner, insider, outsider] = [await register(n2), await register(n1), await register(n3)];
    const { serverId, categoryId, as } = await privateCategory(owner, insider, outsider);
    const insiderSocket = await connect(n1, insider.token);
    const outsiderSocket = await connect(n3, outsider.token);
    for (const socket of [insiderSocket, outsiderSocket]) expect((await emitAck(socket, "server:join", serverId)).ok).toBe(true);
    const events = ["channel:created", "channel:updated", "channel:deleted"];
    const seen = (socket: ClientSocket) => Object.fromEntries(events.map((event) => [event, record<{ id: string }>(socket, event)]));
    const insiderSaw = seen(insiderSocket);
    const outsiderSaw = seen(outsiderSocket);

    const created = await as("POST", `/api/v1/channels/${serverId}`, { name: "plans", type: "text", category_id: categoryId });
    expect(created.status).toBe(201);
    const channelId = created.body.id as string;
    expect((await as("PUT", `/api/v1/channels/${channelId}`, { name: "secret-plans" })).status).toBe(200);
    expect((await as("DELETE", `/api/v1/channels/${channelId}`)).status).toBe(200);
    await eventually(() => insiderSaw["channel:deleted"]!.length === 1, "channel:deleted on node 1");
    expect(insiderSaw["channel:created"]!.map((c) => c.id)).toEqual([channelId]);
    expect(insiderSaw["channel:updated"]!.map((c) => c.id)).toEqual([channelId]);
    await quietWindow(400);
    for (const event of events) expect(outsiderSaw[event]!).toEqual([]);

    // A public channel reaches the outsider too, through the same path.
    const open = await as("POST", `/api/v1/channels/${serverId}`, { name: "lobby", type: "text" });
    await eventually(() => outsiderSaw["channel:created"]!.some((c) => c.id === open.body.id), "the public channel on node 3");
  }, 30_000);

  test("sessions away when a channel was made resume on another node with the events they may see", async () => {
    const [owner, insider, outsider] = [await register(n2), await register(n1), await register(n3)];
    const { serverId, categoryId, as } = await privateCategory(owner, insider, outsider);
    const insiderSocket = await connectResumable(n1.url, insider.token);
    const outsiderSocket = await connectResumable(n3.url, outsider.token);
    try {
      for (const socket of [insiderSocket, outsiderSocket]) expect((await emitAck(socket, "server:join", serverId)).ok).toBe(true);
      await drop(insiderSocket);
      await drop(outsiderSocket);
      const hidden = (await as("POST", `/api/v1/channels/${serverId}`, { name: "while-away", type: "text", category_id: categoryId })).body.id as string;
      const open = (await as("POST", `/api/v1/channels/${serverId}`, { name: "lobby-while-away", type: "text" })).body.id as string;
      const insiderGot = record<{ id: string }>(insiderSocket, "channel:created");
      const outsiderGot = record<{ id: string }>(outsiderSocket, "channel:created");
      await reconnect(insiderSocket, n3.url);
      await reconnect(outsiderSocket, n1.url);
      expect(insiderSocket.recovered).toBe(true);
      expect(outsiderSocket.recovered).toBe(true);
      await eventually(() => insiderGot.length === 2 && outsiderGot.length === 1, () => `insider ${insiderGot.length}, outsider ${outsiderGot.length}`);
      expect(insiderGot.map((c) => c.id)).toEqual([hidden, open]);
      expect(outsiderGot.map((c) => c.id)).toEqual([open]);
      await quietWindow(400);
      expect(outsiderGot.map((c) => c.id)).toEqual([open]);
    } finally {
      insiderSocket.close();
      outsiderSocket.close();
    }
  }, 30_000);
});
