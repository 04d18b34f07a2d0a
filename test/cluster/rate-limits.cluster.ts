/**
 * Two Hearth nodes on one PostgreSQL and one Redis (npm run test:cluster): a REST rate-limit
 * bucket is one bucket over every node (docs/operations.md, "Rate limits"): requests through
 * either node count into it, both answer the same X-RateLimit headers, and past it both refuse.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { register, serverWith, startNodes, type HearthNode, type Nodes } from "./nodes.ts";

// Small windows, so a bucket is spent in a few requests spread over the nodes.
const SENDS = 6;
const READS = 10;

let cluster: Nodes;
let n1: HearthNode, n2: HearthNode;
beforeAll(async () => {
  cluster = await startNodes(2, { REST_RATE_SENDS: `${SENDS}/60s`, REST_RATE_READS: `${READS}/60s` });
  [n1, n2] = cluster.nodes as [HearthNode, HearthNode];
});
afterAll(() => cluster.stop());

async function call(node: HearthNode, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(node.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const header = (name: string) => response.headers.get(name);
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, remaining: header("x-ratelimit-remaining"), reset: Number(header("x-ratelimit-reset")), bucket: header("x-ratelimit-bucket"), retryAfter: header("retry-after") };
}

describe("REST rate limits across nodes", () => {
  test("sends to one channel through two nodes spend one bucket: the same remaining count and reset, then 429 on both", async () => {
    const owner = await register(n1);
    const { channelId } = await serverWith(n1, owner, []);
    const answers = [];
    for (let i = 0; i < SENDS; i++) answers.push(await call(i % 2 ? n2 : n1, "POST", `/api/v1/messages/${channelId}`, owner.token, { content: `m${i}` }));
    expect(answers.map((a) => a.status)).toEqual(Array(SENDS).fill(201));
    expect(answers.map((a) => a.remaining)).toEqual(Array.from({ length: SENDS }, (_, i) => String(SENDS - 1 - i)));
    expect(new Set(answers.map((a) => a.bucket))).toEqual(new Set(["messages.send"]));
    // One window, kept in Redis: both nodes name the same end (to the clock's millisecond or so).
    expect(Math.max(...answers.map((a) => a.reset)) - Math.min(...answers.map((a) => a.reset))).toBeLessThan(1);
    for (const node of [n1, n2]) {
      const refused = await call(node, "POST", `/api/v1/messages/${channelId}`, owner.token, { content: "one too many" });
      expect(refused.status).toBe(429);
      expect(Object.keys(refused.body)).toEqual(["error"]);
      expect(refused.remaining).toBe("0");
      expect(Number(refused.retryAfter)).toBeGreaterThan(50);
    }
  });

  test("reads through either node count into the caller's one reads bucket; another user's is their own", async () => {
    const [reader, other] = [await register(n1), await register(n2)];
    const statuses = [];
    for (let i = 0; i < READS + 2; i++) statuses.push((await call(i % 2 ? n1 : n2, "GET", "/api/v1/users/me/info", reader.token)).status);
    expect(statuses).toEqual([...Array(READS).fill(200), 429, 429]);
    expect((await call(n1, "GET", "/api/v1/users/me/info", other.token)).status).toBe(200);
  });
});
