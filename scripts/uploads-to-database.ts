/**
 * `npm run uploads:to-database`: copies the uploaded files under `$DATA_DIR/uploads` into the
 * configured database, for a switch to UPLOAD_STORAGE=database (docs/operations.md, "Uploaded
 * files"): run it once on each node's DATA_DIR (or on the one that held them). Files already in
 * the database are overwritten with the same bytes; the files on disk are left for you to remove.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { isStoredKey } from "../src/domain/shared/uploads.ts";
import { openConfiguredStore } from "../src/secret.ts";
import type { Store } from "../src/store/store.ts";

/** Copies every stored file under `root` into `store`; answers how many were copied and the paths skipped. */
export async function copyUploadsToDatabase(root: string, store: Pick<Store, "storedFiles">): Promise<{ copied: number; skipped: string[] }> {
  let copied = 0;
  const skipped: string[] = [];
  if (!existsSync(root)) return { copied, skipped };
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  for (const entry of files) {
    const file = join(entry.parentPath, entry.name);
    const key = relative(root, file).split(sep).join("/");
    if (!isStoredKey(key)) {
      skipped.push(key);
      continue;
    }
    await store.storedFiles.put(key, await Bun.file(file).bytes());
    copied++;
  }
  return { copied, skipped };
}

if (import.meta.main) {
  try {
    const config = loadConfig();
    const store = await openConfiguredStore(config);
    try {
      const root = join(config.dataDir, "uploads");
      const { copied, skipped } = await copyUploadsToDatabase(root, store);
      for (const key of skipped) console.error(`skipped ${key}: not a file Hearth stores`);
      console.log(`Copied ${copied} file${copied === 1 ? "" : "s"} from ${root} into the database. Set UPLOAD_STORAGE=database (the default with REDIS_URL).`);
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
