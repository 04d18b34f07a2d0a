import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Which database the suite runs on. `npm test`: SQLite. `npm run test:postgres`
 * (scripts/test-postgres.ts) starts a throwaway PostgreSQL cluster, prepares the database
 * `hearth_template` with Hearth's migrations, and sets HEARTH_TEST_POSTGRES to the cluster's
 * URL; every test database is then a copy of that template (CREATE DATABASE ... TEMPLATE: a
 * file copy, far cheaper than migrating).
 */
const TEST_POSTGRES = process.env.HEARTH_TEST_POSTGRES || null;
export const onPostgres = TEST_POSTGRES !== null;
const TEMPLATE_DATABASE = "hearth_template";

let admin: SQL | null = null;
/** One connection to the cluster's `postgres` database, for CREATE and DROP DATABASE. */
function adminClient(): SQL {
  admin ??= new SQL(`${TEST_POSTGRES}/postgres`, { max: 1, idleTimeout: 2 });
  return admin;
}

let counter = 0;

export interface TestDatabase {
  /** What createStore and DATABASE_FILE / DATABASE_URL take. */
  location: string;
  /** The environment of a Hearth process on this database (DATABASE_URL, or DATABASE_FILE when given a file). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A new, empty database of the suite's kind: a PostgreSQL database copied from the migrated
 * template, or on SQLite `:memory:` (or a file in a temp folder with `{ file: true }`, for tests
 * that reopen it). `{ migrated: false }` gives PostgreSQL a database without the schema.
 */
export async function freshDatabase(options: { file?: boolean; migrated?: boolean } = {}): Promise<TestDatabase> {
  if (TEST_POSTGRES) {
    const name = `hearth_t${process.pid}_${++counter}`;
    const template = options.migrated === false ? "template0" : TEMPLATE_DATABASE;
    // FILE_COPY: a copy of the files, several times faster than the WAL-logged default for a small template.
    await adminClient().unsafe(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`);
    const location = `${TEST_POSTGRES}/${name}`;
    return {
      location,
      env: { DATABASE_URL: location },
      drop: async () => void (await adminClient().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  if (!options.file) return { location: ":memory:", env: {}, drop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), "hearth-db-"));
  const location = join(dir, "hearth.db");
  return { location, env: { DATABASE_FILE: location }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}
