/**
 * Uploaded files in cluster mode (docs/operations.md, "Uploaded files"): with REDIS_URL the
 * default UPLOAD_STORAGE is the shared database, so a file uploaded through one node is served by
 * every node although each has its own DATA_DIR, and a file removed through one is gone on all.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PNG_1X1, fileForm } from "../helpers/images.ts";
import { register, serverWith, startNodes, type Nodes } from "./nodes.ts";

let cluster: Nodes;
beforeAll(async () => {
  cluster = await startNodes(3);
});
afterAll(() => cluster.stop());

async function send(url: string, path: string, token: string, method: string, body?: FormData) {
  const response = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}` }, body });
  return { status: response.status, body: (await response.json()) as any };
}

test("an attachment and an avatar uploaded through node 1 are served by nodes 2 and 3, byte for byte; removed through node 3, gone on all", async () => {
  const [n1, n2, n3] = cluster.nodes as [Nodes["nodes"][0], Nodes["nodes"][0], Nodes["nodes"][0]];
  const owner = await register(n1);
  const { channelId } = await serverWith(n1, owner, []);
  const form = new FormData();
  form.append("files", new File([PNG_1X1], "map.png", { type: "image/png" }));
  const sent = await send(n1.url, `/api/v1/messages/${channelId}/upload`, owner.token, "POST", form);
  expect(sent.status).toBe(201);
  const avatar = await send(n1.url, "/api/v1/users/me/avatar", owner.token, "POST", fileForm("avatar", PNG_1X1, "me.png"));
  expect(avatar.status).toBe(200);

  for (const path of [sent.body.attachments[0].filename, avatar.body.avatar]) {
    for (const node of [n2, n3, n1]) {
      const response = await fetch(node.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG_1X1);
    }
  }
  // Nothing was written to any node's disk.
  for (const node of cluster.nodes) expect(existsSync(join(cluster.dataDir, node.name, "uploads"))).toBe(false);

  expect((await send(n3.url, "/api/v1/users/me/avatar", owner.token, "DELETE")).status).toBe(200);
  for (const node of [n1, n2, n3]) expect((await fetch(node.url + avatar.body.avatar)).status).toBe(404);
});
