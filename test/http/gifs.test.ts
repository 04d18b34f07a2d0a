import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import type { Logger } from "../../src/log.ts";
import { createBot } from "../helpers/bots.ts";
import { addMember, createServer } from "../helpers/community.ts";
import { GIF_1X1, PNG_1X1 } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { letTimePass, until } from "../helpers/wait.ts";

// GET /api/v1/gifs/search (docs/gifs.md): server GIFs and stickers, and the optional provider.
const KEY = "sekret-provider-key-0123456789";
const GIF_KEYS = [
  "created_at", "id", "kind", "mime_type", "name", "server_id", "server_name", "size", "uploaded_by", "uploaded_by_username", "url",
];

/** A stand-in for the external provider: what it answers is set per test. */
type Mode = "ok" | "slow" | "error" | "malformed" | "not-json" | "redirect" | "garbage-entries";
let mode: Mode = "ok";
const seen: URL[] = [];
let provider: Server<unknown>;

const providerAnswer = (): Response | Promise<Response> => {
  switch (mode) {
    case "ok":
      return Response.json({
        results: [
          { id: "p1", title: "Party", url: "https://media.example/p1.gif", preview_url: "https://media.example/p1-small.gif", width: 320, height: 240 },
          { id: 2, url: "https://media.example/p2.gif" },
        ],
      });
    case "garbage-entries":
      return Response.json({ results: [null, { id: "x" }, { id: "y", url: "javascript:alert(1)" }, { id: "z", url: "https://media.example/z.gif", width: -3 }] });
    case "slow":
      return letTimePass(2000, "a provider slower than Hearth's timeout").then(() => Response.json({ results: [] }));
    case "error":
      return new Response(`{"error": "bad key ${KEY}"}`, { status: 500 });
    case "malformed":
      return Response.json({ data: [] });
    case "not-json":
      return new Response("<html>oops</html>", { headers: { "content-type": "text/html" } });
    case "redirect":
      return new Response(null, { status: 302, headers: { location: "https://elsewhere.example/steal" } });
  }
};

const logged: string[] = [];
const capture: Logger = {
  debug: (m, f) => logged.push(JSON.stringify([m, f])),
  info: (m, f) => logged.push(JSON.stringify([m, f])),
  warn: (m, f) => logged.push(JSON.stringify([m, f])),
  error: (m, f) => logged.push(JSON.stringify([m, f])),
};

let server: TestServer;
let plain: TestServer;
beforeAll(async () => {
  provider = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      seen.push(new URL(request.url));
      return providerAnswer();
    },
  });
  server = await startServer(
    { gifProvider: { url: `http://127.0.0.1:${provider.port}/v2/`, key: KEY, timeoutMs: 300 }, logLevel: "debug" },
    { logger: capture },
  );
  plain = await startServer();
});
afterAll(async () => {
  await server.stop();
  await plain.stop();
  provider.stop(true);
});

const search = (target: TestServer, user: { token: string } | null, query = "") =>
  target.api("GET", `/api/v1/gifs/search${query}`, { token: user?.token ?? null });

async function uploadGif(target: TestServer, serverId: string, owner: TestUser, name: string, kind: "gif" | "sticker" = "gif") {
  const form = new FormData();
  form.append("file", new File([kind === "gif" ? GIF_1X1 : PNG_1X1], `${name}.${kind === "gif" ? "gif" : "png"}`));
  form.append("name", name);
  form.append("kind", kind);
  const res = await target.api("POST", `/api/v1/servers/${serverId}/gifs`, { token: owner.token, raw: form });
  if (res.status !== 201) throw new Error(`gif upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, any>;
}

/** Two servers with GIFs and a sticker; `member` is in the first only. */
async function setup(target: TestServer) {
  const owner = await target.register();
  const member = await target.register();
  const first = await createServer(target, owner, "Party Place");
  const second = await createServer(target, owner, "Private");
  await addMember(target, first, member);
  const dance = await uploadGif(target, first, owner, "Dance_party");
  const cat = await uploadGif(target, first, owner, "cat");
  const partySticker = await uploadGif(target, first, owner, "party_hat", "sticker");
  const hidden = await uploadGif(target, second, owner, "party_secret");
  return { owner, member, first, second, dance, cat, partySticker, hidden };
}

describe("local search (no provider configured)", () => {
  test("by name, case-insensitively, only the caller's servers, with the exact shape; provider null", async () => {
    const { member, first, dance, partySticker } = await setup(plain);
    const res = await search(plain, member, "?q=PARTY");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["next", "provider", "results"]);
    expect(res.body.provider).toBeNull();
    expect(res.body.next).toBeNull();
    expect(res.body.results.map((g: any) => g.id)).toEqual([dance.id, partySticker.id]);
    for (const gif of res.body.results) expect(Object.keys(gif).sort()).toEqual(GIF_KEYS);
    expect(res.body.results[0]).toEqual({ ...dance, server_name: "Party Place" });
    expect(res.body.results[0].server_id).toBe(first);
  });

  test("kind filter; no q lists everything by name; paged with an opaque cursor", async () => {
    const { member, dance, cat, partySticker } = await setup(plain);
    expect((await search(plain, member, "?q=party&kind=sticker")).body.results.map((g: any) => g.id)).toEqual([partySticker.id]);
    expect((await search(plain, member, "?kind=gif")).body.results.map((g: any) => g.id)).toEqual([cat.id, dance.id]);
    const page1 = await search(plain, member, "?limit=2");
    expect(page1.body.results.map((g: any) => g.id)).toEqual([cat.id, dance.id]);
    expect(page1.body.next).toBeString();
    const page2 = await search(plain, member, `?limit=2&cursor=${encodeURIComponent(page1.body.next)}`);
    expect(page2.body.results.map((g: any) => g.id)).toEqual([partySticker.id]);
    expect(page2.body.next).toBeNull();
  });

  test("a user in no server gets empty results; LIKE wildcards are literal", async () => {
    const loner = await plain.register();
    expect((await search(plain, loner, "?q=party")).body).toEqual({ results: [], next: null, provider: null });
    const { member } = await setup(plain);
    expect((await search(plain, member, "?q=%25")).body.results).toEqual([]);
    expect((await search(plain, member, "?q=_")).body.results.map((g: any) => g.name)).toEqual(["Dance_party", "party_hat"]);
  });

  test("a bot searches the servers it is in", async () => {
    const { owner, first, dance } = await setup(plain);
    const bot = await createBot(plain, owner);
    expect((await search(plain, { token: bot.token }, "?q=dance")).body.results).toEqual([]);
    await addMember(plain, first, { id: bot.botUserId } as TestUser);
    expect((await search(plain, { token: bot.token }, "?q=dance")).body.results.map((g: any) => g.id)).toEqual([dance.id]);
  });

  test("401 without a token; 400 for bad queries", async () => {
    expectError(await search(plain, null, "?q=x"), 401, "Unauthorized");
    const user = await plain.register();
    expectError(await search(plain, user, "?limit=0"), 400, "limit: must be a whole number between 1 and 50");
    expectError(await search(plain, user, "?limit=51"), 400, "limit: must be a whole number between 1 and 50");
    expectError(await search(plain, user, "?kind=video"), 400, "kind: must be gif or sticker");
    expectError(await search(plain, user, `?q=${"x".repeat(101)}`), 400, "q: must be at most 100 characters");
    expectError(await search(plain, user, "?cursor=not-a-cursor"), 400, "cursor: is not a cursor from a previous page");
    expectError(await search(plain, user, `?cursor=${Buffer.from('{"a":1}').toString("base64url")}`), 400, "cursor: is not a cursor from a previous page");
  });
});

describe("external provider (local stand-in server)", () => {
  test("results come under provider; the request carries q, limit and the key; the key never reaches the client", async () => {
    mode = "ok";
    const { member, dance, partySticker } = await setup(server);
    seen.length = 0;
    const res = await search(server, member, "?q=party&limit=5");
    expect(res.status).toBe(200);
    expect(res.body.results.map((g: any) => g.id)).toEqual([dance.id, partySticker.id]);
    expect(res.body.provider).toEqual({
      results: [
        { id: "p1", title: "Party", url: "https://media.example/p1.gif", preview_url: "https://media.example/p1-small.gif", width: 320, height: 240 },
        { id: "2", title: "", url: "https://media.example/p2.gif", preview_url: "https://media.example/p2.gif", width: null, height: null },
      ],
      error: null,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.pathname).toBe("/v2/search");
    expect(Object.fromEntries(seen[0]!.searchParams)).toEqual({ q: "party", limit: "5", key: KEY });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  test("the provider is asked only for a first page of a GIF search with words", async () => {
    mode = "ok";
    const { member } = await setup(server);
    seen.length = 0;
    expect((await search(server, member, "")).body.provider).toBeNull();
    expect((await search(server, member, "?q=party&kind=sticker")).body.provider).toBeNull();
    const first = await search(server, member, "?q=a&limit=1");
    // The provider is asked for the same page size, and held to it.
    expect(first.body.provider.results.map((g: any) => g.id)).toEqual(["p1"]);
    const second = await search(server, member, `?q=a&limit=1&cursor=${first.body.next}`);
    expect(second.body.provider).toBeNull();
    expect(seen).toHaveLength(1);
  });

  test("entries without a usable id or http(s) URL are skipped", async () => {
    mode = "garbage-entries";
    const { member } = await setup(server);
    const res = await search(server, member, "?q=z");
    expect(res.body.provider).toEqual({
      results: [{ id: "z", title: "", url: "https://media.example/z.gif", preview_url: "https://media.example/z.gif", width: null, height: null }],
      error: null,
    });
  });

  test.each([
    ["slow", "GIF provider timed out", { reason: "timeout", status: null }],
    ["error", "GIF provider is unavailable", { reason: "http", status: 500 }],
    ["redirect", "GIF provider is unavailable", { reason: "http", status: 302 }],
    ["malformed", "GIF provider sent an unexpected response", { reason: "no results array", status: null }],
    ["not-json", "GIF provider sent an unexpected response", { reason: "not json", status: null }],
  ] as [Mode, string, object][])("provider %s: local results still answered 200 with a fixed error, logged as a warning, never the key", async (which, message, warning) => {
    mode = which;
    const { member, dance, partySticker } = await setup(server);
    logged.length = 0;
    const started = performance.now();
    const res = await search(server, member, "?q=party");
    expect(res.status).toBe(200);
    expect(res.body.results.map((g: any) => g.id)).toEqual([dance.id, partySticker.id]);
    expect(res.body.provider).toEqual({ results: [], error: message });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    await until(() => logged.some((line) => line.includes("/api/v1/gifs/search")), "the request log line (written after the response)");
    expect(logged).toContain(JSON.stringify(["GIF provider failed", warning]));
    expect(logged.join("\n")).not.toContain(KEY);
    mode = "ok";
  });

  test("an unreachable provider is the same fixed error", async () => {
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = dead.port;
    dead.stop(true);
    const other = await startServer({ gifProvider: { url: `http://127.0.0.1:${port}`, key: KEY, timeoutMs: 300 } });
    try {
      const user = await other.register();
      const res = await search(other, user, "?q=cat");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], next: null, provider: { results: [], error: "GIF provider is unavailable" } });
    } finally {
      await other.stop();
    }
  });
});
