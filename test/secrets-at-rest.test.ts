/**
 * Data files and stored secrets (issue 14, point 14): DATA_DIR is 0700 and every file Hearth
 * writes in it 0600; TOTP secrets, AI provider keys, webhook tokens and application client
 * secrets are stored encrypted with a key kept outside the database; a restart with the same
 * key reads them; a wrong key stops the start with a clear message.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { SecretsKeyError } from "../src/store/secret-box.ts";
import { API_KEY, enableAi, newConversation, sendTurn, startFakeProvider } from "./helpers/ai.ts";
import { community } from "./helpers/community.ts";
import { PNG_1X1 } from "./helpers/images.ts";
import { startServer, type TestServer, type TestUser } from "./helpers/server.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/database.ts";
import { openDatabase } from "../src/store/store.ts";
import { totpCode } from "./helpers/totp.ts";

const root = mkdtempSync(join(tmpdir(), "hearth-secrets-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
/** Every file and folder under `dir`, with its mode. */
function modesUnder(dir: string): { path: string; mode: number; dir: boolean }[] {
  const found: { path: string; mode: number; dir: boolean }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const isDir = statSync(path).isDirectory();
    found.push({ path, mode: mode(path), dir: isDir });
    if (isDir) found.push(...modesUnder(path));
  }
  return found;
}
/**
 * What a thief with the data would read: SQLite, the raw bytes of the database file and its WAL;
 * PostgreSQL, every row of every table as text (what a dump holds).
 */
async function rawDatabase(dataDir: string): Promise<string> {
  const url = databases.get(dataDir)?.env.DATABASE_URL;
  if (!url) {
    return ["hearth.db", "hearth.db-wal"]
      .map((name) => join(dataDir, name))
      .filter(existsSync)
      .map((file) => readFileSync(file).toString("latin1"))
      .join("");
  }
  const db = await openDatabase(url);
  try {
    let text = "";
    for (const table of await db.tables()) {
      for (const row of await db.all(db.prepare<{ t: string }, []>(`SELECT CAST(r AS text) AS t FROM ${table} r`))) text += row.t;
    }
    return text;
  } finally {
    await db.close();
  }
}

/** On PostgreSQL, the database of each data folder (kept across the restarts of its server). */
const databases = new Map<string, TestDatabase>();
afterAll(async () => {
  for (const database of databases.values()) await database.drop();
});

/** A server on a real database (SQLite: a file in `dataDir`), with a generated JWT secret and secrets key unless given. */
async function startOn(dataDir: string, extra: Parameters<typeof startServer>[0] = {}) {
  if (onPostgres && !databases.has(dataDir)) databases.set(dataDir, await freshDatabase());
  const databaseUrl = databases.get(dataDir)?.env.DATABASE_URL;
  return startServer({ dataDir, databaseFile: join(dataDir, "hearth.db"), databaseUrl, jwtSecret: undefined, secretsKey: undefined, ...extra });
}

/** The files Hearth keeps in DATA_DIR besides uploads: the SQLite database with its WAL and SHM, or none on PostgreSQL. */
const DATABASE_FILES = onPostgres ? [] : ["hearth.db", "hearth.db-wal", "hearth.db-shm"];

describe("a server's data", () => {
  const dataDir = join(root, "data");
  const provider = startFakeProvider();
  let server: TestServer;
  let admin: TestUser;
  const secrets: Record<string, string> = {};
  let webhook: { id: string; token: string };
  let appId = "";
  let totpUser: TestUser;

  beforeAll(async () => {
    server = await startOn(dataDir);
    // The first account is the platform administrator: an AI provider key.
    admin = await server.register();
    await enableAi(server, admin, provider.baseUrl, ["fast"]);
    secrets.aiKey = API_KEY;

    // Two-factor: one active secret, and one only pending.
    totpUser = await server.register();
    const setup = await server.api("POST", "/api/v1/auth/2fa/setup", { token: totpUser.token });
    secrets.totp = setup.body.secret;
    expect((await server.api("POST", "/api/v1/auth/2fa/enable", { token: totpUser.token, body: { code: totpCode(setup.body.secret), password: totpUser.password } })).status).toBe(200);
    const pendingUser = await server.register();
    secrets.pendingTotp = (await server.api("POST", "/api/v1/auth/2fa/setup", { token: pendingUser.token })).body.secret;

    const { owner, channelId } = await community(server);
    const hook = await server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Hook" } });
    webhook = { id: hook.body.id, token: hook.body.token };
    secrets.webhookToken = hook.body.token;
    // Regenerated: the new token is stored the same way.
    const regenerated = await server.api("POST", `/api/webhooks/${webhook.id}/token`, { token: owner.token });
    webhook.token = regenerated.body.token;
    secrets.regeneratedToken = regenerated.body.token;

    const app = await server.api("POST", "/api/v1/oauth2/applications", { token: admin.token, body: { name: "Weather", description: "d" } });
    appId = app.body.application.id;
    secrets.clientSecret = app.body.application.client_secret;

    const form = new FormData();
    form.append("avatar", new File([PNG_1X1], "me.png"));
    expect((await server.api("POST", "/api/v1/users/me/avatar", { token: admin.token, raw: form })).status).toBe(200);
  });
  afterAll(() => provider.stop());

  test("DATA_DIR is 0700; the database, WAL, SHM, jwt-secret, secrets.key and uploads are 0600, their folders 0700", () => {
    expect(mode(dataDir)).toBe(0o700);
    const entries = modesUnder(dataDir);
    const names = entries.map((e) => e.path.slice(dataDir.length + 1));
    for (const expected of [...DATABASE_FILES, "jwt-secret", "secrets.key", "uploads/avatars"]) {
      expect(names).toContain(expected);
    }
    expect(names.some((n) => n.startsWith("uploads/avatars/"))).toBe(true);
    for (const entry of entries) expect({ path: entry.path, mode: entry.mode }).toEqual({ path: entry.path, mode: entry.dir ? 0o700 : 0o600 });
  });

  test("the raw database and WAL hold none of the secrets in plaintext", async () => {
    expect(Object.keys(secrets).sort()).toEqual(["aiKey", "clientSecret", "pendingTotp", "regeneratedToken", "totp", "webhookToken"]);
    const raw = await rawDatabase(dataDir);
    expect(raw.length).toBeGreaterThan(0);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length).toBeGreaterThan(15);
      expect({ name, found: raw.includes(secret) }).toEqual({ name, found: false });
    }
    // Encrypted values are there instead.
    expect(raw).toContain("enc:v1:");
  });

  test("after a restart with the same key, every secret works", async () => {
    await server.stop();
    const raw = await rawDatabase(dataDir);
    for (const [name, secret] of Object.entries(secrets)) expect({ name, found: raw.includes(secret) }).toEqual({ name, found: false });

    server = await startOn(dataDir);
    // TOTP: login with a code from the secret shown at setup.
    const login = await server.api("POST", "/api/v1/auth/login", {
      body: { login: totpUser.username, password: totpUser.password, code: totpCode(secrets.totp!) },
    });
    expect(login.status).toBe(200);
    // Webhook: the token from before executes; the list shows it.
    expect((await server.api("POST", `/api/webhooks/${webhook.id}/${webhook.token}`, { body: { content: "after restart" } })).status).toBe(204);
    // The JWT secret was kept too: tokens from before still work. Application: the owner sees the same client secret.
    const app = await server.api("GET", `/api/v1/oauth2/applications/${appId}`, { token: admin.token });
    expect(app.body.client_secret).toBe(secrets.clientSecret);
    // AI: the provider receives the key.
    const conversation = await newConversation(server, admin);
    const turn = await sendTurn(server, admin, { conversation_id: conversation, content: "hello" });
    expect(turn.status).toBe(200);
    expect(provider.requests.at(-1)!.authorization).toBe(`Bearer ${API_KEY}`);
    await server.stop();
  });

  test("a wrong SECRETS_KEY stops the start with a clear message, and changes nothing", async () => {
    const before = await rawDatabase(dataDir);
    const wrong = "ab".repeat(32);
    const config = { ...server.config, dataDir, databaseFile: join(dataDir, "hearth.db"), secretsKey: wrong, port: 0 };
    const start = createApp(config);
    await expect(start).rejects.toBeInstanceOf(SecretsKeyError);
    await expect(createApp(config)).rejects.toThrow(
      /The secrets key does not match the key this database's secrets were encrypted with.*The key in use came from SECRETS_KEY/s,
    );
    expect((await rawDatabase(dataDir)) === before).toBe(true);
  });

  test("the real process exits 1 naming the problem (a replaced key file)", async () => {
    const keyFile = join(dataDir, "secrets.key");
    const original = readFileSync(keyFile);
    await Bun.write(keyFile, "cd".repeat(32) + "\n");
    try {
      const child = Bun.spawn([process.execPath, "src/main.ts"], {
        cwd: join(import.meta.dir, ".."),
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          DATABASE_FILE: "",
          DATABASE_URL: databases.get(dataDir)?.env.DATABASE_URL ?? "",
          SECRETS_KEY: "",
          PORT: "0",
          HOST: "127.0.0.1",
          LOG_LEVEL: "info",
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(1);
      expect(stderr).toContain("The secrets key does not match");
      expect(stderr).toContain(keyFile);
    } finally {
      await Bun.write(keyFile, original);
    }
  });
});

describe("an existing DATA_DIR", () => {
  test("a world-readable folder and database are narrowed to 0700 / 0600 at start", async () => {
    const dataDir = join(root, "old");
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, "jwt-secret"), "x".repeat(40) + "\n", { mode: 0o644 });
    const first = await startOn(dataDir);
    await first.register();
    await first.stop();
    chmodSync(dataDir, 0o755);
    if (!onPostgres) chmodSync(join(dataDir, "hearth.db"), 0o644);
    chmodSync(join(dataDir, "secrets.key"), 0o644);

    const second = await startOn(dataDir);
    try {
      expect(mode(dataDir)).toBe(0o700);
      for (const name of [...DATABASE_FILES.slice(0, 2), "jwt-secret", "secrets.key"]) expect({ name, mode: mode(join(dataDir, name)) }).toEqual({ name, mode: 0o600 });
    } finally {
      await second.stop();
    }
  });
});
