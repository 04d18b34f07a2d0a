import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { AiUploadRow } from "../../store/ai-uploads-repo.ts";
import { originalNameOf } from "../messaging/attachments.ts";
import { badRequest, payloadTooLarge } from "../shared/errors.ts";
import type { FileStorage } from "../shared/file-storage.ts";
import { aiUploadKey, formatBytes, sniffImage } from "../shared/uploads.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** An uploaded file, as the upload route answers it and as a message lists its attachments. */
export const AiUpload = v.object({ id: Uuid, url: v.string(), name: v.string(), mime_type: v.string(), size: v.number(), created_at: UnixSeconds });
export type AiUpload = v.InferOutput<typeof AiUpload>;

export const toUploadView = (row: AiUploadRow): AiUpload => ({
  id: row.id,
  url: row.url,
  name: row.name,
  mime_type: row.mime_type,
  size: row.size,
  created_at: row.created_at,
});

/** Generated images larger than this are not kept. */
const MAX_GENERATED_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * The AI assistant's files, per user: addressed as `/uploads/ai/<user id>/<uuid>.<ext>`, kept by
 * the uploads' FileStorage as `ai/<user id>/<uuid>.<ext>`, and served to their owner only. A file
 * is an image (by its bytes) or UTF-8 text; anything else is refused.
 */
export class AiUploads {
  constructor(
    private readonly store: Store,
    private readonly files: FileStorage,
    /** Refuses (400) an image whose header is corrupt or declares too many pixels, as for every upload. */
    private readonly checkImage: (bytes: Uint8Array) => void,
  ) {}

  async save(userId: string, file: unknown, maxBytes: number): Promise<AiUpload> {
    if (!(file instanceof Blob)) throw badRequest("file: a file is required");
    if (file.size > maxBytes) throw payloadTooLarge(`Upload too large: the limit is ${formatBytes(maxBytes)}`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes.byteLength === 0) throw badRequest("file: the file is empty");
    const image = sniffImage(bytes);
    let ext: string;
    let mime: string;
    if (image) {
      this.checkImage(bytes);
      ext = image.ext;
      mime = image.mime;
    } else if (isUtf8Text(bytes)) {
      const fromName = file instanceof File ? /\.([a-z0-9]{1,8})$/i.exec(file.name)?.[1]?.toLowerCase() : undefined;
      ext = fromName ?? "txt";
      mime = "text/plain";
    } else {
      throw badRequest("file: must be an image (PNG, JPEG, WEBP or GIF) or a UTF-8 text file");
    }
    const url = await this.write(userId, bytes, ext);
    try {
      const row = await this.store.aiUploads.create({ userId, url, name: originalNameOf(file, `file.${ext}`), mimeType: mime, size: bytes.byteLength });
      return toUploadView(row);
    } catch (error) {
      await this.remove(url);
      throw error;
    }
  }

  /**
   * Keeps an image the provider generated: a `data:image/...;base64,` URL becomes one of the
   * user's files; an http(s) URL is passed on as it is. Anything else is dropped (null).
   */
  async keepGenerated(userId: string, url: string): Promise<string | null> {
    if (/^https?:\/\/\S+$/i.test(url) && url.length <= 2048) return url;
    const match = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i.exec(url);
    if (!match || match[1]!.length > (MAX_GENERATED_IMAGE_BYTES * 4) / 3 + 4) return null;
    const bytes = new Uint8Array(Buffer.from(match[1]!, "base64"));
    const type = sniffImage(bytes);
    if (!type) return null;
    try {
      this.checkImage(bytes);
    } catch {
      return null; // a generated image no client could show is dropped like any unusable one
    }
    const stored = await this.write(userId, bytes, type.ext);
    await this.store.aiUploads.create({ userId, url: stored, name: `image.${type.ext}`, mimeType: type.mime, size: bytes.byteLength });
    return stored;
  }

  /** The caller's uploads behind `urls`, in order; a URL that is not one of them is a 400 naming it. */
  async resolve(userId: string, urls: string[]): Promise<AiUploadRow[]> {
    const rows: AiUploadRow[] = [];
    for (const [index, url] of urls.entries()) {
      const row = await this.store.aiUploads.findByUrl(userId, url);
      if (!row) throw badRequest(`attachments.${index}.url: not one of your AI uploads`);
      rows.push(row);
    }
    return rows;
  }

  /** The file's bytes, or null when it is gone. */
  async read(row: AiUploadRow): Promise<Uint8Array | null> {
    const key = this.keyOf(row.url);
    const file = key ? await this.files.read(key) : null;
    return file ? new Uint8Array(await file.arrayBuffer()) : null;
  }

  /** The file at `/uploads/ai/<userId>/<name>`, or null when there is none or the path is not one of ours. */
  async open(userId: string, name: string): Promise<Blob | null> {
    const key = aiUploadKey(userId, name);
    return key ? this.files.read(key) : null;
  }

  private keyOf(url: string): string | null {
    const match = /^\/uploads\/ai\/([^/]+)\/([^/]+)$/.exec(url);
    return match ? aiUploadKey(match[1]!, match[2]!) : null;
  }

  private async write(userId: string, bytes: Uint8Array, ext: string): Promise<string> {
    const name = `${Bun.randomUUIDv7()}.${ext}`;
    await this.files.write(`ai/${userId}/${name}`, bytes);
    return `/uploads/ai/${userId}/${name}`;
  }

  private async remove(url: string): Promise<void> {
    const key = this.keyOf(url);
    if (key) await this.files.remove(key);
  }
}

/** Valid UTF-8 without NUL bytes: what a text file is. */
function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
