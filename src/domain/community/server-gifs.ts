import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ServerGifRow } from "../../store/server-gifs-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Access } from "../access/access.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { fileStem, readImageUpload, type UploadStore } from "../shared/uploads.ts";
import { isUuid } from "../shared/validation.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

export const ServerGif = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  kind: v.picklist(["gif", "sticker"]),
  url: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  uploaded_by_username: v.nullable(v.string()),
  created_at: UnixSeconds,
});
export type ServerGif = v.InferOutput<typeof ServerGif>;

export const toGif = (row: ServerGifRow): ServerGif => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  kind: row.kind,
  url: row.file_path,
  mime_type: row.mime_type,
  size: row.size,
  uploaded_by: row.uploaded_by,
  uploaded_by_username: row.uploaded_by_username,
  created_at: row.created_at,
});

/**
 * A server's custom GIFs (animated GIF files) and stickers (PNG, WEBP or GIF). Members list
 * them; MANAGE_SERVER uploads and deletes.
 */
export class ServerGifs {
  constructor(private readonly store: Store, private readonly access: Access, private readonly uploads: UploadStore) {}

  async list(serverId: string, user: UserRow): Promise<ServerGif[]> {
    const member = await this.access.member(serverId, user.id);
    return (await this.store.serverGifs.list(member.server.id)).map(toGif);
  }

  async upload(
    serverId: string,
    user: UserRow,
    input: { file: unknown; name?: string; kind: "gif" | "sticker" },
  ): Promise<ServerGif> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const max = input.kind === "gif" ? LIMITS.serverGifBytes : LIMITS.serverStickerBytes;
    const { bytes, type } = await readImageUpload("file", input.file, max);
    if (input.kind === "gif" && type.ext !== "gif") throw badRequest("file: a GIF must be a GIF image");
    const name = input.name ?? stemOf(input.file);
    const row = await this.uploads.saveWith("server-gifs", bytes, type.ext, (path) =>
      this.store.serverGifs.add(
        { server_id: member.server.id, name, kind: input.kind, file_path: path, mime_type: type.mime, size: bytes.byteLength, uploaded_by: user.id },
        LIMITS.serverGifsPerServer,
      ),
    );
    if (!row) throw badRequest(`A server can have at most ${LIMITS.serverGifsPerServer} GIFs and stickers`);
    return toGif(row);
  }

  async remove(serverId: string, gifId: string, user: UserRow): Promise<void> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const gif = isUuid(gifId) ? await this.store.serverGifs.find(member.server.id, gifId) : null;
    if (!gif || !(await this.store.serverGifs.remove(member.server.id, gif.id))) throw notFound("GIF");
    await this.uploads.remove(gif.file_path);
  }
}

/** The file name without its extension, as a default display name (1-32 word characters). */
function stemOf(file: unknown): string {
  const cleaned = fileStem(file).replace(/[^\w-]+/g, "_").slice(0, 32).replace(/^_+|_+$/g, "");
  return cleaned || "gif";
}
