/**
 * Three Hearth nodes on one PostgreSQL and one Redis (npm run test:cluster): a mark-read through
 * one node clears the badge on the reader's sockets on every node, and only theirs
 * (docs/read-states.md, "read-state:update").
 */
import { describe, expect, test } from "bun:test";
import { api, connect, eventually, record, register, serverWith, useThreeNodes, type HearthNode } from "./nodes.ts";
import { quietWindow } from "../helpers/wait.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

describe("read states across nodes", () => {
  test("read-state:update from node 1 reaches the reader's sockets on nodes 2 and 3, not another user's", async () => {
    const owner = await register(n1);
    const reader = await register(n2);
    const { channelId } = await serverWith(n1, owner, [reader]);
    const sent = await api(n1, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `hi <@${reader.id}>` } });
    expect(sent.status).toBe(201);
    const states = await api(n3, "GET", "/api/v1/users/me/read-states", { token: reader.token });
    expect(states.body).toEqual([{ channel_id: channelId, last_read_message_id: null, last_message_id: sent.body.id, mention_count: 1 }]);

    const onTwo = record(await connect(n2, reader.token), "read-state:update");
    const onThree = record(await connect(n3, reader.token), "read-state:update");
    const onOwner = record(await connect(n3, owner.token), "read-state:update");
    expect((await api(n1, "POST", `/api/v1/messages/${channelId}/read`, { token: reader.token, body: {} })).status).toBe(200);
    await eventually(() => onTwo.length === 1 && onThree.length === 1, "read-state:update on nodes 2 and 3");
    const expected = { channel_id: channelId, last_read_message_id: sent.body.id, mention_count: 0 };
    expect(onTwo).toEqual([expected]);
    expect(onThree).toEqual([expected]);
    await quietWindow(400);
    expect(onOwner).toEqual([]);
    expect(onTwo).toHaveLength(1);
    expect((await api(n2, "GET", "/api/v1/users/me/read-states", { token: reader.token })).body).toEqual([]);
  });
});
