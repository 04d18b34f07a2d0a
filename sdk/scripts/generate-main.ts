/**
 * `npm run sdk:generate`: starts a throwaway Hearth (in-memory database, port 0, a temp data
 * folder), reads its reference documents and writes sdk/src/generated/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { generateSources } from "./generate.ts";
import { serverInputs } from "./server-inputs.ts";

const out = join(import.meta.dir, "..", "src", "generated");
const dataDir = mkdtempSync(join(tmpdir(), "hearth-sdk-generate-"));
const app = await createApp({ ...loadConfig({}), port: 0, host: "127.0.0.1", dataDir, databaseFile: ":memory:", logLevel: "error" });
try {
  const sources = generateSources(await serverInputs(app.url));
  mkdirSync(out, { recursive: true });
  for (const [name, text] of Object.entries(sources)) writeFileSync(join(out, name), text);
  console.log(`sdk/src/generated: ${Object.keys(sources).join(", ")}`);
} finally {
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
