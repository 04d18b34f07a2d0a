import { mkdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { badRequest, payloadTooLarge } from "./errors.ts";

export interface ImageType {
  ext: "png" | "jpg" | "gif" | "webp";
  mime: string;
}

/**
 * The image type from the file's first bytes. The browser's (or Bun's) `File.type` comes from
 * the file name, so it is never trusted.
 */
export function sniffImage(bytes: Uint8Array): ImageType | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { ext: "png", mime: "image/png" };
  if (starts(0xff, 0xd8, 0xff)) return { ext: "jpg", mime: "image/jpeg" };
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return { ext: "gif", mime: "image/gif" };
  }
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return { ext: "webp", mime: "image/webp" };
  return null;
}

/** What may be served back from `/uploads/...`, by extension. Anything else is a download. */
export const SERVED_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** Upload folders; each is a URL segment under /uploads and a folder under DATA_DIR/uploads. */
export type UploadKind = "avatars" | "banners" | "server-icons" | "server-banners" | "server-gifs" | "attachments" | "group-icons" | "emojis" | "sounds";
export const UPLOAD_KINDS: readonly UploadKind[] = ["avatars", "banners", "server-icons", "server-banners", "server-gifs", "attachments", "group-icons", "emojis", "sounds"];

const STORED_NAME = /^[0-9a-f-]{36}\.[a-z0-9]{1,8}$/;

/** Writes a new upload readable by the server's user only (0600, folders 0700: docs/operations.md "Data layout"). */
export async function writePrivateFile(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, name), bytes, { mode: 0o600 });
}

/**
 * Files on disk under `<dataDir>/uploads/<kind>/<uuid>.<ext>`, addressed by the URL path
 * `/uploads/<kind>/<uuid>.<ext>`. Names are generated: no user-controlled path reaches the disk.
 */
export class UploadStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, "uploads");
  }

  /** Writes the bytes and returns the URL path to store in records. */
  async save(kind: UploadKind, bytes: Uint8Array, ext: string): Promise<string> {
    const name = `${Bun.randomUUIDv7()}.${ext}`;
    await writePrivateFile(join(this.root, kind), name, bytes);
    return `/uploads/${kind}/${name}`;
  }

  /**
   * Saves the bytes, then runs `write(path)`, the store write that records the file (e.g. a
   * capped insert). The file is removed again when the write throws or answers null (the cap
   * was reached), so a refused upload never leaves an orphan; null is passed on to the caller.
   */
  async saveWith<T>(kind: UploadKind, bytes: Uint8Array, ext: string, write: (path: string) => Promise<T | null>): Promise<T | null> {
    const path = await this.save(kind, bytes, ext);
    let row: T | null;
    try {
      row = await write(path);
    } catch (error) {
      await this.remove(path);
      throw error;
    }
    if (row === null) await this.remove(path);
    return row;
  }

  /** The file behind a URL path, or null when the path is not one of ours. */
  fileFor(kind: string, name: string): string | null {
    if (!UPLOAD_KINDS.includes(kind as UploadKind) || !STORED_NAME.test(name)) return null;
    return join(this.root, kind, name);
  }

  /** Removes a stored file; paths that are not ours, and files already gone, are ignored. */
  async remove(urlPath: string | null): Promise<void> {
    const match = urlPath?.match(/^\/uploads\/([a-z-]+)\/([^/]+)$/);
    const file = match ? this.fileFor(match[1]!, match[2]!) : null;
    if (file) await unlink(file).catch(() => undefined);
  }
}

/** Reads an uploaded image field: present, within `maxBytes`, and really an image. */
export async function readImageUpload(field: string, value: unknown, maxBytes: number): Promise<{ bytes: Uint8Array; type: ImageType }> {
  if (!(value instanceof Blob)) throw badRequest(`${field}: a file is required`);
  if (value.size > maxBytes) throw payloadTooLarge(`${field} must be at most ${formatBytes(maxBytes)}`);
  const bytes = new Uint8Array(await value.arrayBuffer());
  const type = sniffImage(bytes);
  if (!type) throw badRequest(`${field} must be a PNG, JPEG, WEBP or GIF image`);
  return { bytes, type };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** An uploaded file's name without any folder part or extension ("" when it has none). */
export function fileStem(file: unknown): string {
  const base = file instanceof File ? (file.name.split(/[/\\]/).pop() ?? "") : "";
  return base.replace(/\.[^.]*$/, "");
}
