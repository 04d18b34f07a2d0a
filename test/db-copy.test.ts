/**
 * `npm run db:copy -- --from <sqlite file> --to <postgres url>` (scripts/db-copy.ts): a populated
 * SQLite installation is moved to PostgreSQL and read back through the API with the same
 * DATA_DIR (secrets key, JWT secret, uploads).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { community } from "./helpers/community.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/database.ts";
import { PNG_1X1 } from "./helpers/images.ts";
import { startServer, type TestServer } from "./helpers/server.ts";
import { totpCode } from "./helpers/totp.ts";

const ROOT = join(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "hearth-copy-"));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function runCopy(from: string, to: string) {
  const child = Bun.spawn([process.execPath, "scripts/db-copy.ts", "--from", from, "--to", to], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

// Needs a PostgreSQL server to copy into: runs in `npm run test:postgres`, which provides one.
describe.skipIf(!onPostgres)("moving an installation from SQLite to PostgreSQL", () => {
  test("every table is copied, counts checked; the API reads the same data, secrets and files", async () => {
    const file = join(dataDir, "hearth.db");
    // The installation: SQLite in DATA_DIR, with a generated JWT secret and secrets key.
    const before: TestServer = await startServer({ dataDir, databaseFile: file, databaseUrl: undefined, jwtSecret: undefined, secretsKey: undefined });
    const { owner, member, serverId, channelId } = await community(before);
    const sent: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await before.api("POST", `/api/v1/messages/${channelId}`, { token: i % 2 ? owner.token : member.token, body: { content: `copied message ${i} café` } });
      sent.push(res.body.id);
    }
    expect((await before.api("PUT", `/api/v1/messages/${channelId}/reactions/${sent[3]}`, { token: member.token, body: { emoji: "👍" } })).status).toBe(200);
    expect((await before.api("POST", `/api/v1/messages/${channelId}/pins/${sent[5]}`, { token: owner.token })).status).toBeLessThan(300);
    expect((await before.api("POST", `/api/v1/messages/${channelId}/pins/${sent[1]}`, { token: owner.token })).status).toBeLessThan(300);
    const dm = await before.api("POST", `/api/v1/dm/${owner.id}/messages`, { token: member.token, body: { content: "a direct word" } });
    expect(dm.status).toBe(201);
    const setup = await before.api("POST", "/api/v1/auth/2fa/setup", { token: member.token });
    expect((await before.api("POST", "/api/v1/auth/2fa/enable", { token: member.token, body: { code: totpCode(setup.body.secret), password: member.password } })).status).toBe(200);
    const hook = await before.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Hook" } });
    const app = await before.api("POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name: "Mover", description: "d" } });
    const form = new FormData();
    form.append("avatar", new File([PNG_1X1], "me.png"));
    const avatar = await before.api("POST", "/api/v1/users/me/avatar", { token: owner.token, raw: form });
    expect(avatar.status).toBe(200);
    const read = (server: TestServer) =>
      Promise.all([
        server.api("GET", `/api/v1/messages/${channelId}?limit=100`, { token: owner.token }),
        server.api("GET", `/api/v1/messages/${channelId}/pins`, { token: owner.token }),
        server.api("GET", `/api/v1/messages/${channelId}/reactions/${sent[3]}`, { token: owner.token }),
        server.api("GET", `/api/v1/dm/${member.id}/messages`, { token: owner.token }),
        server.api("GET", "/api/v1/stats"),
        server.api("GET", `/api/v1/servers/${serverId}`, { token: owner.token }),
        server.api("GET", "/api/v1/users/me/info", { token: owner.token }),
      ]).then((answers) => answers.map((a) => ({ status: a.status, body: a.body })));
    const expected = await read(before);
    await before.stop();

    const target = await freshDatabase({ migrated: false });
    databases.push(target);
    const copy = await runCopy(file, target.location);
    expect(copy.stderr).toBe("");
    expect(copy.code).toBe(0);
    expect(copy.stdout).toMatch(/^users: \d+ rows$/m);
    expect(copy.stdout).toContain("every count matches");

    // A second copy into the now populated database is refused and changes nothing.
    const again = await runCopy(file, target.location);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already holds data");

    const after = await startServer({ dataDir, databaseUrl: target.location, jwtSecret: undefined, secretsKey: undefined });
    try {
      // The same answers, token from before included (same JWT secret).
      expect(await read(after)).toEqual(expected);
      expect(expected[0]!.body).toHaveLength(30);
      // Search on PostgreSQL's index, accents ignored.
      const found = await after.api("GET", `/api/v1/messages/${channelId}/search?q=cafe%2012`, { token: owner.token });
      expect(found.body.map((m: { id: string }) => m.id)).toEqual([sent[12]]);
      // Sealed secrets open with the same key: 2FA login, the webhook token, the client secret.
      const login = await after.api("POST", "/api/v1/auth/login", { body: { login: member.username, password: member.password } });
      expect(login.body).toEqual({ error: "Two-factor code required" });
      const withCode = await after.api("POST", "/api/v1/auth/login", {
        body: { login: member.username, password: member.password, code: totpCode(setup.body.secret) },
      });
      expect(withCode.status).toBe(200);
      expect((await after.api("POST", `/api/webhooks/${hook.body.id}/${hook.body.token}`, { body: { content: "after the move" } })).status).toBe(204);
      const application = await after.api("GET", `/api/v1/oauth2/applications/${app.body.application.id}`, { token: owner.token });
      expect(application.body.client_secret).toBe(app.body.application.client_secret);
      // Uploads were left where they are and are served as before.
      const image = await fetch(after.url + avatar.body.avatar);
      expect(image.status).toBe(200);
      expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_1X1);
      // And the moved installation takes new writes.
      expect((await after.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: "new" } })).status).toBe(201);
    } finally {
      await after.stop();
    }
  });
});
