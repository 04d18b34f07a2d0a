/**
 * UPLOAD_STORAGE=database (docs/operations.md, "Uploaded files"): uploaded files are rows of the
 * shared database, so a file uploaded through one node is served by any other, byte for byte and
 * with the same headers; nothing is written under DATA_DIR/uploads; removing a file removes its
 * row; files left on a node's disk from before the switch are still served there, and
 * `npm run uploads:to-database` copies them in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyUploadsToDatabase } from "../../scripts/uploads-to-database.ts";
import { enableAi, startFakeProvider } from "../helpers/ai.ts";
import { community } from "../helpers/community.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { PNG_1X1, fileForm } from "../helpers/images.ts";
import { expectError, startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let database: TestDatabase;
let dir: string;
let nodeA: TestServer;
let nodeB: TestServer;
let provider: ReturnType<typeof startFakeProvider>;
let admin: TestUser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hearth-upload-storage-"));
  // One database (an SQLite file, or under test:postgres a PostgreSQL database) and one secrets
  // key for both nodes; each node its own DATA_DIR, as nodes on different machines have.
  database = await freshDatabase({ file: true });
  const shared = {
    databaseUrl: database.env.DATABASE_URL,
    databaseFile: database.env.DATABASE_FILE ?? ":memory:",
    secretsKey: "ab".repeat(32),
    uploadStorage: "database" as const,
  };
  nodeA = await startServer({ ...shared, dataDir: join(dir, "a") });
  nodeB = await startServer({ ...shared, dataDir: join(dir, "b") });
  // The first account is the platform's administrator: it turns the AI assistant on (its files share the storage).
  admin = await nodeA.register();
  provider = startFakeProvider();
  await enableAi(nodeA, admin, provider.baseUrl);
});

afterAll(async () => {
  provider?.stop();
  await nodeB?.stop();
  await nodeA?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const TEXT = new TextEncoder().encode("meeting notes\n");

async function download(node: TestServer, path: string) {
  const response = await fetch(node.url + path);
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

const storedRows = async (path: string) =>
  (await nodeA.app.store.db.all<{ n: number }, [string]>(nodeA.app.store.db.prepare("SELECT count(*) AS n FROM stored_files WHERE path = ?"), path.replace(/^\/uploads\//, "")))[0]!.n;

describe("uploaded files in the database", () => {
  test("an attachment sent through one node is served by the other, bytes and headers exact; no file on either disk", async () => {
    const { member, channelId } = await community(nodeA);
    const form = new FormData();
    form.append("files", new File([PNG_1X1], "holiday.png", { type: "image/png" }));
    form.append("files", new File([TEXT], "notes.txt", { type: "text/plain" }));
    const sent = await nodeA.api("POST", `/api/v1/messages/${channelId}/upload`, { token: member.token, raw: form });
    expect(sent.status).toBe(201);
    const [png, txt] = sent.body.attachments;

    for (const node of [nodeB, nodeA]) {
      const image = await download(node, png.filename);
      expect(image.status).toBe(200);
      expect(image.bytes).toEqual(PNG_1X1);
      expect(image.headers.get("content-type")).toBe("image/png");
      expect(image.headers.get("content-disposition")).toBeNull();
      expect(image.headers.get("x-content-type-options")).toBe("nosniff");
      expect(image.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const text = await download(node, txt.filename);
      expect(text.status).toBe(200);
      expect(new TextDecoder().decode(text.bytes)).toBe("meeting notes\n");
      expect(text.headers.get("content-type")).toBe("application/octet-stream");
      expect(text.headers.get("content-disposition")).toBe("attachment");
    }
    expect(await storedRows(png.filename)).toBe(1);
    for (const node of [nodeA, nodeB]) expect(existsSync(join(node.config.dataDir, "uploads", "attachments"))).toBe(false);

    // Deleting the message removes its files from the database: gone on every node.
    const deleted = await nodeB.api("DELETE", `/api/v1/messages/${sent.body.id}`, { token: member.token });
    expect(deleted.status).toBe(200);
    for (const node of [nodeA, nodeB]) expectError(await node.api("GET", png.filename), 404, "File not found");
    expect(await storedRows(png.filename)).toBe(0);
    expect(await storedRows(txt.filename)).toBe(0);
  });

  test("an avatar replaced through one node: the new one is served everywhere, the old one is gone", async () => {
    const user = await nodeA.register();
    const first = await nodeA.api("POST", "/api/v1/users/me/avatar", { token: user.token, raw: fileForm("avatar", PNG_1X1, "me.png") });
    expect(first.status).toBe(200);
    const second = await nodeB.api("POST", "/api/v1/users/me/avatar", { token: user.token, raw: fileForm("avatar", PNG_1X1, "me2.png") });
    expect(second.status).toBe(200);
    expect(second.body.avatar).not.toBe(first.body.avatar);
    expect((await download(nodeA, second.body.avatar)).bytes).toEqual(PNG_1X1);
    expectError(await nodeA.api("GET", first.body.avatar), 404, "File not found");
    expect(await storedRows(first.body.avatar)).toBe(0);
  });

  test("an AI assistant file uploaded through one node is served by the other to its owner only", async () => {
    const user = await nodeA.register();
    const other = await nodeA.register();
    const form = new FormData();
    form.append("file", new File(["name,age\nada,36\n"], "people.csv"));
    const res = await nodeA.api("POST", "/api/v1/ai/uploads", { token: user.token, raw: form });
    expect(res.status).toBe(201);
    const served = await fetch(nodeB.url + res.body.url, { headers: { authorization: `Bearer ${user.token}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toBe("attachment");
    expect(await served.text()).toBe("name,age\nada,36\n");
    expectError(await nodeB.api("GET", res.body.url, { token: other.token }), 404, "File not found");
    expect(await storedRows(res.body.url)).toBe(1);
    for (const node of [nodeA, nodeB]) expect(existsSync(join(node.config.dataDir, "uploads", "ai"))).toBe(false);
  });

  test("paths that are not a stored file's are 404 without reaching the storage", async () => {
    for (const path of ["/uploads/avatars/01a207fb-b730-735d-99cf-a96dc74ccf39.png", "/uploads/secrets/01a207fb-b730-735d-99cf-a96dc74ccf39.png", "/uploads/avatars/jwt-secret"]) {
      expectError(await nodeB.api("GET", path), 404, "File not found");
    }
  });

  test("a file on a node's disk from before the switch is served by that node until copied in; then by every node", async () => {
    const key = "emojis/01a207fb-b730-735d-99cf-a96dc74ccf39.png";
    mkdirSync(join(nodeA.config.dataDir, "uploads", "emojis"), { recursive: true });
    writeFileSync(join(nodeA.config.dataDir, "uploads", key), PNG_1X1);
    writeFileSync(join(nodeA.config.dataDir, "uploads", "emojis", "notes.txt"), "not ours");
    expect((await download(nodeA, `/uploads/${key}`)).bytes).toEqual(PNG_1X1);
    expect((await download(nodeB, `/uploads/${key}`)).status).toBe(404);

    const { copied, skipped } = await copyUploadsToDatabase(join(nodeA.config.dataDir, "uploads"), nodeA.app.store);
    expect(copied).toBe(1);
    expect(skipped).toEqual(["emojis/notes.txt"]);
    const served = await download(nodeB, `/uploads/${key}`);
    expect(served.status).toBe(200);
    expect(served.bytes).toEqual(PNG_1X1);
    // Nothing under a DATA_DIR without uploads/: nothing copied, nothing refused.
    expect(await copyUploadsToDatabase(join(dir, "none"), nodeA.app.store)).toEqual({ copied: 0, skipped: [] });
  });
});
