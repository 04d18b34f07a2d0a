/**
 * The single binary (docs/operations.md, "Single binary"), run by `npm run test:binary`
 * (scripts/test-binary.ts, which builds it first), on SQLite. The executable is copied alone
 * into an empty folder and started there with its own DATA_DIR and PORT (./binary.ts). Clients
 * are real: fetch, socket.io-client and a bot on the SDK.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/pg-cluster.ts";
import { createBot, defineCommand, type Bot } from "../../sdk/src/index.ts";
import { migrations } from "../../src/store/sqlite/migrations.ts";
import { buildWebApp } from "../../web/build.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { waitForEvent } from "../helpers/server.ts";
import { api as apiAt, binaryFolder, connect as connectAt, logLines, processesOf, type ClientSocket } from "./binary.ts";

const ROOT = resolve(import.meta.dir, "../..");
const { folder, binary, dataDir } = binaryFolder();
let hearth: HearthProcess;
let port: number;
const sockets: ClientSocket[] = [];
let bot: Bot | null = null;

beforeAll(async () => {
  port = freePort();
  hearth = await startProcess(
    { DATA_DIR: dataDir, PORT: String(port), JWT_SECRET: "binary-test-secret-binary-test-secret-0123" },
    { command: [binary], cwd: folder },
  );
});

afterAll(async () => {
  bot?.stop();
  for (const socket of sockets) socket.close();
  if (hearth && hearth.proc.exitCode === null) {
    hearth.proc.kill("SIGKILL");
    await hearth.proc.exited;
  }
  rmSync(folder, { recursive: true, force: true });
});

const api = <T = any>(method: string, path: string, options: { token?: string; body?: unknown } = {}) => apiAt<T>(hearth.url, method, path, options);
const connect = (token: string) => connectAt(hearth.url, token, sockets);

let owner: { id: string; token: string };
let serverId: string;
let channelId: string;

describe("the single binary", () => {
  test("starts as npm start does: listening on PORT, data in DATA_DIR, every migration applied", async () => {
    expect(hearth.url).toBe(`http://127.0.0.1:${port}`);
    expect(hearth.output()).toContain('"dataDir":' + JSON.stringify(dataDir));
    expect((await api("GET", "/healthz")).status).toBe(200);
    const db = new Database(join(dataDir, "hearth.db"), { readonly: true });
    try {
      expect(db.query("SELECT count(*) AS n FROM schema_migrations").get()).toEqual({ n: migrations.length });
    } finally {
      db.close();
    }
  });

  test("register, create a server, send over REST: message:new on a socket in the channel's room", async () => {
    const registered = await api("POST", "/api/v1/auth/register", { body: { username: "binary_owner", email: "owner@example.test", password: "binary-owner-password" } });
    expect(registered.status).toBe(201);
    owner = { id: registered.body.user.id, token: registered.body.token };
    const created = await api("POST", "/api/v1/servers", { token: owner.token, body: { name: "Binary" } });
    expect(created.status).toBe(201);
    serverId = created.body.id;
    const channels = await api("GET", `/api/v1/channels/${serverId}`, { token: owner.token });
    channelId = channels.body.channels.find((c: { type: string }) => c.type === "text").id;

    const socket = await connect(owner.token);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const received = waitForEvent(socket, "message:new");
    const sent = await api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "from the binary" } });
    expect(sent.status).toBe(201);
    const message = await received;
    expect(message).toMatchObject({ id: sent.body.id, channel_id: channelId, user_id: owner.id, content: "from the binary" });
  });

  test("a bot on the SDK registers a command and answers it", async () => {
    const app = await api("POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name: "BinaryBot", description: "answers /ping" } });
    expect(app.status).toBe(201);
    const botUserId: string = app.body.application.bot_user_id;
    expect((await api("POST", `/api/v1/oauth2/applications/${app.body.application.id}/servers/${serverId}`, { token: owner.token, body: {} })).status).toBeLessThan(300);
    bot = createBot({ url: hearth.url, token: app.body.bot_token });
    bot.command(defineCommand({ name: "ping", description: "Answers pong" }), (command) => command.reply(`pong, ${command.user.username}`).then(() => {}));
    await bot.start();

    const socket = await connect(owner.token);
    expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
    const answer = waitForEvent(socket, "message:new", { filter: (m) => m.user_id === botUserId, timeout: 10_000 });
    expect((await api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "/ping" } })).status).toBe(201);
    expect((await answer).content).toBe("pong, binary_owner");
  });

  test("serves the web app built into it: the page for any app path, and every asset, as web/build.ts builds them from the sources", async () => {
    const page = await fetch(`${hearth.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(await (await fetch(`${hearth.url}/channels/anything`)).text()).toBe(html);
    // What `npm start` would serve from this checkout: the same page and the same files.
    const fromSources = await buildWebApp();
    expect(html).toBe(fromSources.html);
    expect(fromSources.assets.size).toBeGreaterThan(5);
    for (const [name, asset] of fromSources.assets) {
      const served = await fetch(`${hearth.url}/assets/${name}`, { headers: { "accept-encoding": "identity" } });
      expect(served.status, name).toBe(200);
      expect(served.headers.get("content-type"), name).toBe(asset.type);
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(asset.body)), name).toBe(true);
    }
    const script = /\/assets\/[\w-]+\.js/.exec(html)![0];
    const js = await fetch(hearth.url + script);
    expect(js.headers.get("content-encoding")).toBe("gzip");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${hearth.url}/assets/no-such-file.js`)).status).toBe(404);
  });

  test("serves the API reference page and its UI's files, the same bytes as in the repository", async () => {
    const page = await fetch(`${hearth.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(readFileSync(join(ROOT, "src/reference/ui/index.html"), "utf8"));
    const files: Record<string, string> = {
      "swagger-ui-bundle.js": "node_modules/swagger-ui-dist/swagger-ui-bundle.js",
      "swagger-ui.css": "node_modules/swagger-ui-dist/swagger-ui.css",
      "favicon-32x32.png": "node_modules/swagger-ui-dist/favicon-32x32.png",
      "reference.js": "src/reference/ui/reference.js",
      "reference.css": "src/reference/ui/reference.css",
    };
    for (const [name, from] of Object.entries(files)) {
      const served = await fetch(`${hearth.url}/docs/${name}`);
      expect(served.status, name).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(join(ROOT, from))), name).toBe(true);
    }
    const openapi = await api("GET", "/api/v1/openapi.json");
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toStartWith("3.");
  });

  test("serves the SDK tarball packed into it (the build, package.json of this checkout's SDK version), for both names; another version is 404", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "sdk/package.json"), "utf8")).version as string;
    const served = await fetch(`${hearth.url}/sdk/hearth-sdk-${version}.tgz`);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "application/gzip"]);
    const bytes = new Uint8Array(await served.arrayBuffer());
    expect(Number(served.headers.get("content-length"))).toBe(bytes.byteLength);
    const latest = await fetch(`${hearth.url}/sdk/latest.tgz`);
    expect(latest.headers.get("etag")).toBe(served.headers.get("etag"));
    const file = join(folder, "served-sdk.tgz");
    writeFileSync(file, bytes);
    const listing = Bun.spawnSync(["tar", "-tzf", file]).stdout.toString().trim().split("\n");
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/cjs/index.cjs");
    expect(JSON.parse(Bun.spawnSync(["tar", "-xzOf", file, "package/package.json"]).stdout.toString()).version).toBe(version);
    expect((await fetch(`${hearth.url}/sdk/hearth-sdk-0.0.0.tgz`)).status).toBe(404);
  });

  test("SIGTERM drains: the connected socket is let go, the drain is logged, exit 0, the port closed, nothing left running", async () => {
    const socket = await connect(owner.token);
    const disconnected = new Promise<string>((resolve) => socket.once("disconnect", resolve));
    expect(processesOf(binary)).toEqual([hearth.proc.pid]);
    hearth.proc.kill("SIGTERM");
    expect(await hearth.proc.exited).toBe(0);
    expect(await disconnected).toBeString();
    const lines = logLines(hearth.output());
    expect(lines.find((line) => line.msg === "draining")).toMatchObject({ signal: "SIGTERM" });
    expect(lines.at(-1)!.msg).toBe("stopped");
    expect(hearth.errors()).toBe("");
    await expect(fetch(`${hearth.url}/healthz`)).rejects.toThrow();
    expect(processesOf(binary)).toEqual([]);
  });
});

describe("the single binary's configuration", () => {
  test("a bad value stops it with the message naming it, as npm start does", async () => {
    const proc = Bun.spawn([binary], { cwd: folder, env: { ...process.env, PORT: "not-a-port" }, stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("PORT must be a whole number");
  });

  test("it reads a .env in the working directory, as bun does, and never runs a bunfig.toml's preload from there", async () => {
    const marker = join(folder, "preload-ran");
    writeFileSync(join(folder, ".env"), "PORT=not-a-port-from-dotenv\n");
    writeFileSync(join(folder, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    writeFileSync(join(folder, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
    const env = { ...process.env };
    delete env.PORT;
    const proc = Bun.spawn([binary], { cwd: folder, env, stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("PORT must be a whole number");
    expect(existsSync(marker)).toBe(false);
  });
});
