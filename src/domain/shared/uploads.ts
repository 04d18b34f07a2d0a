import { badRequest, payloadTooLarge } from "./errors.ts";
import type { FileStorage } from "./file-storage.ts";
import { checkImageDimensions, DEFAULT_IMAGE_LIMITS, type ImageLimits } from "./image-dimensions.ts";

interface ImageType {
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

/** Upload folders; each is a URL segment under /uploads (and a folder under DATA_DIR/uploads on disk). */
type UploadKind = "avatars" | "banners" | "server-icons" | "server-banners" | "server-gifs" | "attachments" | "group-icons" | "emojis" | "sounds";
const UPLOAD_KINDS: readonly UploadKind[] = ["avatars", "banners", "server-icons", "server-banners", "server-gifs", "attachments", "group-icons", "emojis", "sounds"];

const STORED_NAME = /^[0-9a-f-]{36}\.[a-z0-9]{1,8}$/;
const USER_ID = /^[0-9a-f-]{36}$/;

/** A stored file's key (`<kind>/<name>`), or null when `kind` or `name` is not one the server generates. */
const uploadKey = (kind: string, name: string): string | null =>
  UPLOAD_KINDS.includes(kind as UploadKind) && STORED_NAME.test(name) ? `${kind}/${name}` : null;

/** An AI assistant file's key (`ai/<user id>/<name>`, docs/ai.md), or null when not one the server generates. */
export const aiUploadKey = (userId: string, name: string): string | null =>
  USER_ID.test(userId) && STORED_NAME.test(name) ? `ai/${userId}/${name}` : null;

/** Whether `key` names a file the server stores (either form above). */
export function isStoredKey(key: string): boolean {
  const parts = key.split("/");
  if (parts.length === 2) return uploadKey(parts[0]!, parts[1]!) === key;
  return parts.length === 3 && parts[0] === "ai" && aiUploadKey(parts[1]!, parts[2]!) === key;
}

/**
 * Uploaded files, addressed by the URL path `/uploads/<kind>/<uuid>.<ext>` and kept by a
 * FileStorage (disk or database: ./file-storage.ts) as `<kind>/<uuid>.<ext>`. Names are
 * generated: no user-controlled path reaches the storage.
 *
 * Every upload is written through `save`, so that is where an image's declared dimensions are
 * checked (avatars, banners, icons, emojis, GIFs and stickers, attachments alike): a file whose
 * bytes are an image is refused (400) when its header is corrupt or declares more pixels than
 * `imageLimits` allow, before anything is stored.
 */
export class UploadStore {
  constructor(
    readonly files: FileStorage,
    private readonly imageLimits: ImageLimits = DEFAULT_IMAGE_LIMITS,
  ) {}

  /** Writes the bytes and returns the URL path to store in records. */
  async save(kind: UploadKind, bytes: Uint8Array, ext: string): Promise<string> {
    this.checkImage(bytes);
    const name = `${Bun.randomUUIDv7()}.${ext}`;
    await this.files.write(`${kind}/${name}`, bytes);
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

  /** Refuses an image (by its bytes) whose header is corrupt or declares too many pixels; anything else passes. */
  checkImage(bytes: Uint8Array): void {
    const image = sniffImage(bytes);
    if (image) checkImageDimensions(bytes, image.ext, this.imageLimits);
  }

  /** The file at `/uploads/<kind>/<name>`, or null when there is none or the path is not one of ours. */
  async open(kind: string, name: string): Promise<Blob | null> {
    const key = uploadKey(kind, name);
    return key ? this.files.read(key) : null;
  }

  /** Removes a stored file; paths that are not ours, and files already gone, are ignored. */
  async remove(urlPath: string | null): Promise<void> {
    const match = urlPath?.match(/^\/uploads\/([a-z-]+)\/([^/]+)$/);
    const key = match ? uploadKey(match[1]!, match[2]!) : null;
    if (key) await this.files.remove(key);
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
