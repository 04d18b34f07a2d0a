import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { ApiError, badRequest, notFound } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import type { Messages } from "./messages.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { Uuid, type Message } from "../shared/shapes.ts";
import type { UploadStore } from "../shared/uploads.ts";
import { checkAttachmentFiles, storeAttachmentFiles } from "./attachments.ts";
import { isUuid, parseInput } from "../shared/validation.ts";
import { httpUrl, type GifMessageInput } from "./message-schemas.ts";
import { formEnforceNonce, messageNonce } from "./nonce.ts";


interface AttachmentLimits {
  /** Bytes per upload for everyone else. */
  standard: number;
  /** Bytes per upload in a verified server, or for a premium subscriber. */
  premium: number;
}

/** Attachment metadata (GET /messages/attachment/:attachmentId). */
export const AttachmentInfo = v.object({
  id: Uuid,
  message_id: Uuid,
  channel_id: Uuid,
  filename: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  width: v.nullable(v.number()),
  height: v.nullable(v.number()),
  url: v.string(),
});
export type AttachmentInfo = v.InferOutput<typeof AttachmentInfo>;

interface UploadInput {
  files: unknown[];
  content?: unknown;
  replyTo?: unknown;
  remoteUrl?: unknown;
  nonce?: unknown;
  enforceNonce?: unknown;
}



/** Form text fields: an empty string counts as absent (HTML forms send empty fields). */
const formText = <S extends v.GenericSchema>(schema: S) =>
  v.optional(v.pipe(v.unknown(), v.transform((value) => (value === "" || value === null ? undefined : value)), v.optional(schema)));

const UploadFields = v.object({
  content: formText(v.pipe(v.string("must be text"), v.maxLength(LIMITS.message.contentLength, `must be at most ${LIMITS.message.contentLength} characters`))),
  replyTo: formText(v.pipe(v.string("must be text"), v.uuid("must be a message id"))),
  remoteUrl: formText(httpUrl),
  // Form fields are text: the nonce is a string here, enforce_nonce "true" or "false".
  nonce: formText(messageNonce),
  enforce_nonce: formText(formEnforceNonce),
});

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
    const fields = parseInput(UploadFields, {
      content: input.content,
      replyTo: input.replyTo,
      remoteUrl: input.remoteUrl,
      nonce: input.nonce,
      enforce_nonce: input.enforceNonce,
    });
    const files = checkAttachmentFiles(input.files, limit, fields.remoteUrl !== undefined);

    const content = [fields.content, fields.remoteUrl].filter((part) => part !== undefined).join("\n");
    const attachments = await storeAttachmentFiles(this.uploads, files);
    const nonce = { nonce: fields.nonce, enforce_nonce: fields.enforce_nonce };
    return this.messages.send(channelId, user, { content, reply_to: fields.replyTo ?? null, attachments, ...nonce });
  }

  /** POST /messages/:id/gif: a GIF by URL, or one of this server's GIFs by id; sent as its URL. */
  async gif(channelId: string, user: UserRow, input: GifMessageInput): Promise<Message> {
    if ((input.url === undefined) === (input.gif_id === undefined)) throw badRequest("body: give either url or gif_id");
    const { channel } = await this.access.requireChannel(channelId, user.id, PERMISSIONS.ATTACH_FILES);
    let url = input.url;
    if (input.gif_id !== undefined) {
      const gif = isUuid(input.gif_id) ? await this.store.serverGifs.find(channel.server_id, input.gif_id) : null;
      if (!gif) throw notFound("GIF");
      url = gif.file_path;
    }
    return this.messages.send(channel.id, user, { content: url, reply_to: input.reply_to ?? null, nonce: input.nonce, enforce_nonce: input.enforce_nonce });
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
      width: row.width,
      height: row.height,
      url: row.filename,
    };
  }
}
