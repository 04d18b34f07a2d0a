/**
 * Three Hearth nodes on one PostgreSQL and one Redis (npm run test:cluster): a send's nonce
 * holds across nodes (docs/messages.md, "Idempotent sends"). The same nonce sent to every node
 * at once, and again one after another, stores one message and emits one `message:new`.
 */
import { describe, expect, test } from "bun:test";
import { api, eventually, joinChannel, record, register, serverWith, useThreeNodes, type HearthNode } from "./nodes.ts";

let n1: HearthNode, n2: HearthNode, n3: HearthNode;
useThreeNodes((nodes) => ([n1, n2, n3] = nodes));

describe("idempotent sends across nodes", () => {
  test("the same nonce sent to three nodes at once, then again to each: one message, one message:new", async () => {
    const owner = await register(n1);
    const sender = await register(n2);
    const { channelId } = await serverWith(n1, owner, [sender]);
    const heard = record(await joinChannel(n3, owner, channelId), "message:new");
    const send = (node: HearthNode, nonce: string) =>
      api(node, "POST", `/api/v1/messages/${channelId}`, { token: sender.token, body: { content: "once", nonce, enforce_nonce: true } });

    for (let round = 0; round < 5; round++) {
      const nonce = `cluster-${process.pid}-${round}`;
      const answers = await Promise.all([n1, n2, n3, n1, n2, n3].map((node) => send(node, nonce)));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      for (const node of [n1, n2, n3]) expect((await send(node, nonce)).body.id).toBe(answers[0]!.body.id);
    }
    const page = await api(n3, "GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token });
    expect(page.body).toHaveLength(5);
    await eventually(() => heard.length >= 5, () => `5 message:new, got ${heard.length}`);
    // A marker after them: every message:new for the rounds has arrived before it.
    const marker = await api(n1, "POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "marker" } });
    await eventually(() => heard.some((m) => m.id === marker.body.id), "the marker's message:new");
    expect(heard.map((m) => m.id)).toEqual([...page.body.map((m: { id: string }) => m.id).reverse(), marker.body.id]);
  });
});
