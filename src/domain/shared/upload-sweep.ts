import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { PARTIAL_SUFFIX } from "./file-storage.ts";

/**
 * At start, removes what uploads cut short left under `<DATA_DIR>/uploads`: files still named
 * `*.partial` (./file-storage.ts `writeWhole` renames a file into place only once it is
 * complete, so a partial one is never referenced by a row). Complete files are never touched,
 * referenced or not: a node sharing the folder may be between writing one and committing its row.
 *
 * `olderThanMs`: on a folder other nodes share (cluster mode), a partial file that young may be
 * one of theirs being written now. Returns how many files it removed.
 */
export async function sweepPartialUploads(root: string, olderThanMs = 0): Promise<number> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const before = Date.now() - olderThanMs;
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(PARTIAL_SUFFIX)) continue;
    const file = join(entry.parentPath, entry.name);
    // (Gone meanwhile: renamed into place by the node writing it.)
    if (olderThanMs > 0 && ((await stat(file).catch(() => null))?.mtimeMs ?? Infinity) > before) continue;
    await unlink(file).catch(() => undefined);
    removed++;
  }
  return removed;
}
