import * as v from "valibot";
import type { Store } from "../store/store.ts";
import type { NewMessage } from "../store/messages-repo.ts";
import type { UserRow } from "../store/users-repo.ts";
import type { Access } from "./access.ts";
import { ApiError, badRequest, notFound, payloadTooLarge } from "./errors.ts";
import { LIMITS } from "./limits.ts";
import type { Messages } from "./messages.ts";
import { PERMISSIONS } from "./permission-bits.ts";
import type { Message } from "./shapes.ts";
import { SERVED_TYPES, formatBytes, sniffImage, type UploadStore } from "./uploads.ts";
import { isUuid, parseInput } from "./validation.ts";

/** Files per message (Discord's number). */
export const MAX_FILES_PER_MESSAGE = 10;
const MAX_ORIGINAL_NAME = 255;
const MAX_URL_LENGTH = 2048;

export interface AttachmentLimits {
  /** Bytes per upload for everyone else. */
  standard: number;
  /** Bytes per upload in a verified server, or for a premium subscriber. */
  premium: number;
}

/** Attachment metadata (GET /messages/attachment/:attachmentId). */
export interface AttachmentInfo {
  id: string;
  message_id: string;
  channel_id: string;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  url: string;
}

export interface UploadInput {
  files: unknown[];
  content?: unknown;
  replyTo?: unknown;
  remoteUrl?: unknown;
}

export interface GifInput {
  url?: string;
  gif_id?: string;
  reply_to?: string | null;
}

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

export const httpUrl = v.pipe(
  v.string("must be a string"),
  v.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
  v.check(isHttpUrl, "must be an http(s) URL"),
);

/** Form text fields: an empty string counts as absent (HTML forms send empty fields). */
const formText = <S extends v.GenericSchema>(schema: S) =>
  v.optional(v.pipe(v.unknown(), v.transform((value) => (value === "" || value === null ? undefined : value)), v.optional(schema)));

const UploadFields = v.object({
  content: formText(v.pipe(v.string("must be text"), v.maxLength(4000, "must be at most 4000 characters"))),
  replyTo: formText(v.pipe(v.string("must be text"), v.uuid("must be a message id"))),
  remoteUrl: formText(httpUrl),
});

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

/** The client's file name without any path, control or bidi-override characters, at most 255 characters. */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, "").trim();
  const chars = Array.from(cleaned).slice(0, MAX_ORIGINAL_NAME).join("").trim();
  return chars === "" || chars === "." || chars === ".." ? "file" : chars;
}

/**
 * Channel uploads and GIFs. The files are stored here; the message itself goes through
 * `Messages.send` like every other sender (permissions, chat_enabled, timeouts, slowmode,
 * content rules, `message:new`), which also removes the files again when it refuses.
 */
export class MessageUploads {
  /** Per-upload limits; an instance property so tests can prove the tiers with small numbers. */
  limits: AttachmentLimits = { standard: LIMITS.attachmentBytes, premium: LIMITS.attachmentBytesPremium };

  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly messages: Messages,
    private readonly uploads: UploadStore,
  ) {}

  /**
   * Asked before the body is read, so a refused caller never uploads anything: the channel must
   * be visible and allow ATTACH_FILES. Answers the caller's limit (premium in a verified server
   * or for a premium subscriber).
   */
  async uploadLimit(channelId: string, user: UserRow): Promise<number> {
    const { member } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.ATTACH_FILES);
    return member.server.verified === 1 || user.premium === 1 ? this.limits.premium : this.limits.standard;
  }

  /** POST /messages/:id/upload: 1-10 files (or none with `remoteUrl`), stored, then sent. */
  async upload(channelId: string, user: UserRow, input: UploadInput): Promise<Message> {
    const limit = await this.uploadLimit(channelId, user);
    const fields = parseInput(UploadFields, { content: input.content, replyTo: input.replyTo, remoteUrl: input.remoteUrl });
    if (input.files.some((file) => !(file instanceof Blob))) throw badRequest("files: must be files");
    const files = input.files as Blob[];
    if (files.length === 0 && fields.remoteUrl === undefined) throw badRequest("files: at least one file is required");
    if (files.length > MAX_FILES_PER_MESSAGE) throw badRequest(`files: at most ${MAX_FILES_PER_MESSAGE} files per message`);
    const tooBig = files.find((file) => file.size > limit);
    if (tooBig) throw payloadTooLarge(`Upload too large: the limit is ${formatBytes(limit)}`);

    const content = [fields.content, fields.remoteUrl].filter((part) => part !== undefined).join("\n");
    const attachments = await this.storeFiles(files);
    return this.messages.send(channelId, user, { content, reply_to: fields.replyTo ?? null, attachments });
  }

  /** POST /messages/:id/gif: a GIF by URL, or one of this server's GIFs by id; sent as its URL. */
  async gif(channelId: string, user: UserRow, input: GifInput): Promise<Message> {
    if ((input.url === undefined) === (input.gif_id === undefined)) throw badRequest("body: give either url or gif_id");
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.ATTACH_FILES);
    let url = input.url;
    if (input.gif_id !== undefined) {
      const gif = isUuid(input.gif_id) ? await this.store.serverGifs.find(channel.server_id, input.gif_id) : null;
      if (!gif) throw notFound("GIF");
      url = gif.file_path;
    }
    return this.messages.send(channel.id, user, { content: url, reply_to: input.reply_to ?? null });
  }

  /** Metadata of one attachment, for callers who can read its channel; 404 for anyone else. */
  async attachment(attachmentId: string, user: UserRow): Promise<AttachmentInfo> {
    const row = isUuid(attachmentId) ? await this.store.messages.attachment(attachmentId) : null;
    if (!row) throw notFound("Attachment");
    try {
      await this.access.requireChannel(row.channel_id, user.id, PERMISSIONS.READ_MESSAGE_HISTORY);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) throw notFound("Attachment");
      throw error;
    }
    return {
      id: row.id,
      message_id: row.message_id,
      channel_id: row.channel_id,
      filename: row.filename,
      original_name: row.original_name,
      mime_type: row.mime_type,
      size: row.size,
      url: row.filename,
    };
  }

  /** Writes every file under a generated name; if one write fails, the others are removed. */
  private async storeFiles(files: Blob[]): Promise<NonNullable<NewMessage["attachments"]>> {
    const stored: NonNullable<NewMessage["attachments"]> = [];
    try {
      for (const file of files) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const clientName = file instanceof File ? file.name : "";
        const type = fileTypeOf(bytes, clientName);
        const filename = await this.uploads.save("attachments", bytes, type.ext);
        stored.push({ filename, original_name: sanitizeFileName(clientName), mime_type: type.mime, size: bytes.byteLength });
      }
    } catch (error) {
      await Promise.all(stored.map((file) => this.uploads.remove(file.filename)));
      throw error;
    }
    return stored;
  }
}
