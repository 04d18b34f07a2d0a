import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { EmojiView, EmojiWithServer } from "../../store/emojis-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { fileStem, readImageUpload, type UploadStore } from "../shared/uploads.ts";
import { originalNameOf } from "../messaging/attachments.ts";
import { isUuid } from "../shared/validation.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** An emoji name: what `<:name:id>` markup accepts (letters, digits, `_`, `-`). */
export const EMOJI_NAME = new RegExp(`^[A-Za-z0-9_-]{1,${LIMITS.emojiNameLength}}$`);
export const EMOJI_NAME_MESSAGE = `must be 1-${LIMITS.emojiNameLength} letters, digits, _ or -`;

/** The longest `original_name` kept (the client's file name, for display only). */

/** SPEC.md "Emoji". */
export const Emoji = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  file_path: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  created_at: UnixSeconds,
  uploaded_by_username: v.nullable(v.string()),
});
export type Emoji = v.InferOutput<typeof Emoji>;

const toEmoji = (row: EmojiView): Emoji => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  file_path: row.file_path,
  original_name: row.original_name,
  mime_type: row.mime_type,
  size: row.size,
  uploaded_by: row.uploaded_by,
  created_at: row.created_at,
  uploaded_by_username: row.uploaded_by_username,
});

/**
 * A server's custom emojis. Members list them; MANAGE_SERVER uploads, renames and deletes.
 * Messages and reactions validate `<:name:id>` against the same table (messages.ts), so a
 * rename or delete takes effect there at once.
 */
export class Emojis {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly uploads: UploadStore,
  ) {}

  /** Members only; `canManage` tells the client whether to offer upload, rename and delete. */
  async list(serverId: string, user: UserRow): Promise<{ emojis: Emoji[]; canManage: boolean }> {
    const member = await this.access.member(serverId, user.id);
    const rows = await this.store.emojis.list(member.server.id);
    return { emojis: rows.map(toEmoji), canManage: hasPermission(member.permissions, PERMISSIONS.MANAGE_SERVER) };
  }

  /** Any signed-in user may see a server's emojis (to render them in shared content). */
  async listPublic(serverId: string): Promise<Emoji[]> {
    const server = await this.access.server(serverId);
    return (await this.store.emojis.list(server.id)).map(toEmoji);
  }

  /** The emojis of every server the user belongs to, each with `server_name`. */
  async listMine(user: UserRow): Promise<(Emoji & { server_name: string })[]> {
    const rows: EmojiWithServer[] = await this.store.emojis.listForUser(user.id);
    return rows.map((row) => ({ ...toEmoji(row), server_name: row.server_name }));
  }

  async upload(serverId: string, user: UserRow, input: { file: unknown; name?: string }): Promise<Emoji> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const { bytes, type } = await readImageUpload("emoji", input.file, LIMITS.emojiBytes);
    const name = input.name ?? stemOf(input.file);
    if (!EMOJI_NAME.test(name)) throw badRequest(`name: ${EMOJI_NAME_MESSAGE}`);
    const originalName = originalNameOf(input.file, `${name}.${type.ext}`);
    // The cap is checked and the row written in one store transaction, so racing uploads
    // cannot pass 50 together; saveWith removes the file whenever the row is not written.
    const row = await this.uploads.saveWith("emojis", bytes, type.ext, (path) =>
      this.store.emojis.create(
        { serverId: member.server.id, name, filePath: path, originalName, mimeType: type.mime, size: bytes.byteLength, uploadedBy: user.id },
        LIMITS.emojisPerServer,
      ),
    );
    if (!row) throw badRequest(`A server can have at most ${LIMITS.emojisPerServer} custom emojis`);
    await this.audit.record(member.server.id, user.id, "SERVER_EMOJI_UPLOAD", { type: "emoji", id: row.id }, { name });
    const view = await this.store.emojis.findInServer(member.server.id, row.id);
    return toEmoji(view ?? { ...row, uploaded_by_username: user.username });
  }

  /** Renaming changes the markup: `<:old:id>` stops validating, `<:new:id>` is the emoji. */
  async rename(serverId: string, emojiId: string, user: UserRow, name: string): Promise<Emoji> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    if (!EMOJI_NAME.test(name)) throw badRequest(`name: ${EMOJI_NAME_MESSAGE}`);
    const before = isUuid(emojiId) ? await this.store.emojis.findInServer(member.server.id, emojiId.toLowerCase()) : null;
    if (!before) throw notFound("Emoji");
    if (before.name === name) return toEmoji(before);
    const renamed = await this.store.emojis.rename(member.server.id, before.id, name);
    if (!renamed) throw notFound("Emoji");
    await this.audit.record(member.server.id, user.id, "SERVER_EMOJI_RENAME", { type: "emoji", id: before.id }, { old: before.name, new: name });
    return toEmoji(renamed);
  }

  async remove(serverId: string, emojiId: string, user: UserRow): Promise<void> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const removed = isUuid(emojiId) ? await this.store.emojis.deleteFromServer(member.server.id, emojiId.toLowerCase()) : null;
    if (!removed) throw notFound("Emoji");
    await this.uploads.remove(removed.file_path);
    await this.audit.record(member.server.id, user.id, "SERVER_EMOJI_DELETE", { type: "emoji", id: removed.id }, { name: removed.name });
  }

  /** The stored image path of an emoji (public), or 404. */
  async filePath(emojiId: string): Promise<string> {
    const row = isUuid(emojiId) ? await this.store.emojis.findRow(emojiId.toLowerCase()) : null;
    if (!row) throw notFound("Emoji");
    return row.file_path;
  }
}

/** The file name without its extension, cleaned into a valid emoji name ("emoji" when nothing is left). */
export function stemOf(file: unknown): string {
  const cleaned = fileStem(file).replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, LIMITS.emojiNameLength);
  return cleaned || "emoji";
}
