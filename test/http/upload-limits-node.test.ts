/**
 * An upload or JSON body over its limit reaches a NODE client as the 413 `{error}`, not as a
 * broken pipe (issue 14, point 5). Node's fetch (undici) fails the whole request with `EPIPE` /
 * `other side closed` when the server closes while the body is still being sent, so these
 * tests run a real `node` process (test/helpers/node-post.mjs) rather than Bun's fetch. Past
 * the drain bound (limit + 64 MiB) the 413 comes at once with `Connection: close`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { DRAIN_PAST_LIMIT_BYTES } from "../../src/http/body.ts";
import { createServer } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

const MB = 1024 * 1024;
const SCRIPT = join(import.meta.dir, "../helpers/node-post.mjs");

let server: TestServer;
let owner: TestUser;
let serverId: string;
let channelId: string;

beforeAll(async () => {
  server = await startServer();
  owner = await server.register();
  serverId = await createServer(server, owner);
  channelId = (await server.app.store.channels.listByServer(serverId))[0]!.id;
});
afterAll(() => server.stop());

interface NodeAnswer {
  status?: number;
  connection?: string | null;
  body?: string;
  after?: number;
  error?: string;
  cause?: string;
}

/** Posts with Node's fetch from a `node` child process; what it saw. */
async function nodePost(path: string, request: { kind: "multipart" | "json" | "json-chunked"; size: number; field?: string; type?: string }): Promise<NodeAnswer> {
  const proc = Bun.spawn(["node", SCRIPT, JSON.stringify({ url: server.url + path, token: owner.token, ...request })], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`node exited ${code}: ${err}`);
  return JSON.parse(out.trim()) as NodeAnswer;
}

/** What the 413 must look like to the Node client: the status, the JSON error, and a working connection after. */
function expect413(answer: NodeAnswer, error: string): void {
  expect(answer).toEqual({ status: 413, connection: null, body: JSON.stringify({ error }), after: 200 });
}

describe("an upload over its limit, sent by Node's fetch", () => {
  test("a 9 MB sound to the soundboard (8 MB) is the 413, and nothing is stored", async () => {
    const answer = await nodePost(`/api/v1/servers/${serverId}/soundboard`, { kind: "multipart", size: 9 * MB, field: "sound", type: "audio/mpeg" });
    expect413(answer, "Upload too large: the limit is 8 MB");
    expect((await server.api("GET", `/api/v1/servers/${serverId}/soundboard`, { token: owner.token })).body).toEqual([]);
  }, 30_000);

  test("a 3 MB avatar (2 MB) is the 413, and the avatar is unchanged", async () => {
    const answer = await nodePost("/api/v1/users/me/avatar", { kind: "multipart", size: 3 * MB, field: "avatar", type: "image/png" });
    expect413(answer, "Upload too large: the limit is 2 MB");
    expect((await server.api("GET", "/api/v1/users/me/info", { token: owner.token })).body.avatar).toBeNull();
  }, 30_000);

  test("a 30 MB message attachment (25 MB) is the 413, and no message is stored", async () => {
    const answer = await nodePost(`/api/v1/messages/${channelId}/upload`, { kind: "multipart", size: 30 * MB, field: "files" });
    expect413(answer, "Upload too large: the limit is 25 MB");
    expect((await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token })).body).toEqual([]);
  }, 30_000);
});

describe("a JSON body over the 1 MiB cap, sent by Node's fetch", () => {
  test("with a Content-Length (8 MB) it is the 413", async () => {
    expect413(await nodePost("/api/v1/servers", { kind: "json", size: 8 * MB }), "Request body too large: the limit is 1 MB");
  }, 30_000);

  test("chunked, without a Content-Length (8 MB), it is the 413", async () => {
    expect413(await nodePost("/api/v1/servers", { kind: "json-chunked", size: 8 * MB }), "Request body too large: the limit is 1 MB");
  }, 30_000);
});

/** Sends only the head of a POST claiming `length` bytes; the answer's head, and whether the server closed. */
function claim(path: string, length: number): Promise<{ head: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(server.app.port, "127.0.0.1", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"name": "`,
      );
    });
    let data = "";
    let head = "";
    socket.setEncoding("utf8");
    const timer = setTimeout(() => {
      socket.destroy();
      if (head) resolve({ head, closed: false });
      else reject(new Error(`no answer to the claim: ${data}`));
    }, 1500);
    socket.on("data", (chunk) => {
      data += chunk;
      const end = data.indexOf("\r\n\r\n");
      if (end >= 0) head = data.slice(0, end);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (head) resolve({ head, closed: true });
      else reject(new Error(`closed without an answer: ${data}`));
    });
    socket.on("error", () => undefined);
  });
}

describe("the drain bound (the limit + 64 MiB)", () => {
  test("a claim within it is answered 413 at once and the connection stays open for the rest of the body", async () => {
    const { head, closed } = await claim("/api/v1/servers", 8 * MB);
    expect(head).toStartWith("HTTP/1.1 413");
    expect(head.toLowerCase()).not.toContain("connection: close");
    expect(closed).toBe(false);
  });

  test("a claim past it is answered 413 at once with Connection: close, and the server closes", async () => {
    const { head, closed } = await claim("/api/v1/servers", MB + DRAIN_PAST_LIMIT_BYTES + 1);
    expect(head).toStartWith("HTTP/1.1 413");
    expect(head.toLowerCase()).toContain("connection: close");
    expect(closed).toBe(true);
  });
});
