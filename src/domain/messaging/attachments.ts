import type { NewMessage } from "../../store/messages-repo.ts";
import { badRequest, payloadTooLarge } from "../shared/errors.ts";
import { SERVED_TYPES, formatBytes, sniffImage, type UploadStore } from "../shared/uploads.ts";
import { declaredDimensions } from "../shared/image-dimensions.ts";
import { LIMITS } from "../shared/limits.ts";
import { stripUnprintable } from "../shared/validation.ts";

/**
 * Message attachments, for channel and DM uploads alike: how many files, how big, what type
 * they are (from their bytes, never their names), what they are called, and how they are
 * written so that a failure leaves no file behind.
 */


type StoredAttachment = NonNullable<NewMessage["attachments"]>[number];

/** Non-image types recognised by their first bytes; recorded as their MIME type, always served as a download. */
const SAFE_TYPES: { ext: string; mime: string; test: (b: Uint8Array) => boolean }[] = [
  { ext: "pdf", mime: "application/pdf", test: (b) => startsWith(b, [0x25, 0x50, 0x44, 0x46, 0x2d]) },
  { ext: "zip", mime: "application/zip", test: (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) },
  { ext: "mp3", mime: "audio/mpeg", test: (b) => startsWith(b, [0x49, 0x44, 0x33]) },
  { ext: "ogg", mime: "audio/ogg", test: (b) => startsWith(b, [0x4f, 0x67, 0x67, 0x53]) },
  { ext: "wav", mime: "audio/wav", test: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x41, 0x56, 0x45]) },
  { ext: "mp4", mime: "video/mp4", test: (b) => startsWith(b.subarray(4), [0x66, 0x74, 0x79, 0x70]) },
  { ext: "webm", mime: "video/webm", test: (b) => startsWith(b, [0x1a, 0x45, 0xdf, 0xa3]) },
];

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);
}

/**
 * Stored extension and recorded MIME type, from the bytes only. Images are sniffed; a few safe
 * types are recognised; anything else is `application/octet-stream` and keeps the client's
 * extension only when that extension is not one served inline (a "cat.png" that is not a PNG
 * never becomes a `.png` file).
 */
export function fileTypeOf(bytes: Uint8Array, clientName: string): { ext: string; mime: string } {
  const image = sniffImage(bytes);
  if (image) return image;
  const known = SAFE_TYPES.find((type) => type.test(bytes));
  if (known) return { ext: known.ext, mime: known.mime };
  const clientExt = clientName.includes(".") ? clientName.slice(clientName.lastIndexOf(".") + 1).toLowerCase() : "";
  const ext = /^[a-z0-9]{1,8}$/.test(clientExt) && !(clientExt in SERVED_TYPES) ? clientExt : "bin";
  return { ext, mime: "application/octet-stream" };
}

/** The client's file name without any path or unprintable characters (`stripUnprintable`), at most 255 characters. */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? "";
  const cleaned = stripUnprintable(base).trim();
  const chars = Array.from(cleaned).slice(0, LIMITS.message.fileNameLength).join("").trim();
  return chars === "" || chars === "." || chars === ".." ? "file" : chars;
}

/**
 * The form's `files`: at most LIMITS.message.filesPerMessage files of at most `maxBytes` each (413
 * otherwise); none is allowed only when `allowNone` (a message that has something else).
 */
export function checkAttachmentFiles(files: unknown[], maxBytes: number, allowNone: boolean): Blob[] {
  if (files.some((file) => !(file instanceof Blob))) throw badRequest("files: must be files");
  if (files.length === 0 && !allowNone) throw badRequest("files: at least one file is required");
  if (files.length > LIMITS.message.filesPerMessage) throw badRequest(`files: at most ${LIMITS.message.filesPerMessage} files per message`);
  if ((files as Blob[]).some((file) => file.size > maxBytes)) throw payloadTooLarge(`Upload too large: the limit is ${formatBytes(maxBytes)}`);
  return files as Blob[];
}

/** Writes every file under a generated name; if one write fails, the others are removed. */
export async function storeAttachmentFiles(uploads: UploadStore, files: Blob[]): Promise<StoredAttachment[]> {
  const stored: StoredAttachment[] = [];
  try {
    for (const file of files) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const clientName = file instanceof File ? file.name : "";
      const type = fileTypeOf(bytes, clientName);
      const filename = await uploads.save("attachments", bytes, type.ext);
      // An image's header was read by `save` already (a corrupt one or too many pixels is 400).
      const size = type.mime.startsWith("image/") ? declaredDimensions(bytes, type.ext) : null;
      stored.push({
        filename,
        original_name: sanitizeFileName(clientName),
        mime_type: type.mime,
        size: bytes.byteLength,
        width: size?.width ?? null,
        height: size?.height ?? null,
      });
    }
  } catch (error) {
    await Promise.all(stored.map((file) => uploads.remove(file.filename)));
    throw error;
  }
  return stored;
}

/** The client's file name, cleaned (sanitizeFileName), or `fallback` when it sent none. */
export function originalNameOf(file: unknown, fallback: string): string {
  return file instanceof File && file.name.trim() !== "" ? sanitizeFileName(file.name) : fallback;
}
