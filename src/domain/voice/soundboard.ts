import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { SoundChanges, SoundRow, SoundView } from "../../store/soundboard-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { missingPermission, type Access, type ChannelContext } from "../access/access.ts";
import { readAudioUpload } from "./audio-files.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, forbidden, notFound, tooManyRequests } from "../shared/errors.ts";
import type { SharedRateLimiter, SharedState } from "../shared/shared-state.ts";
import { DEFAULT_SOUNDBOARD_PLAY_RATE, type SoundboardPlayRate } from "./soundboard-play-rate.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { LIMITS } from "../shared/limits.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { fileStem, type UploadStore } from "../shared/uploads.ts";
import { originalNameOf } from "../messaging/attachments.ts";
import { isUuid } from "../shared/validation.ts";
import { normalizeDisplayName, NO_VISIBLE_CHARACTERS } from "../shared/display-name.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";

/** Sounds one server may hold (the spec sets no number; docs/soundboard.md). */
const DEFAULT_SOUND_ICON = "🎵";

/** One fully-qualified Unicode emoji (RGI: what emoji pickers produce), flags and ZWJ sequences included. */
const UNICODE_EMOJI = new RegExp("^\\p{RGI_Emoji}$", "v");
/** Custom emoji markup, `<:name:id>` or `<a:name:id>`: refused as an icon. */
const CUSTOM_EMOJI = /<a?:[^:\s]*:[^>\s]*>/;

/** SPEC.md "Soundboard sound". */
export const Sound = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  icon: v.string(),
  file_path: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  created_at: UnixSeconds,
  uploaded_by_username: v.nullable(v.string()),
});
export type Sound = v.InferOutput<typeof Sound>;

/** A catalog entry (SPEC.md: id, name, icon, builtin, file_url; plus the sound's server). */
export const CatalogSound = v.object({
  id: Uuid,
  name: v.string(),
  icon: v.string(),
  builtin: v.boolean(),
  file_url: v.string(),
  server_id: Uuid,
  server_name: v.string(),
});
export type CatalogSound = v.InferOutput<typeof CatalogSound>;

const toSound = (row: SoundView): Sound => ({
  id: row.id,
  server_id: row.server_id,
  name: row.name,
  icon: row.icon,
  file_path: row.file_path,
  original_name: row.original_name,
  mime_type: row.mime_type,
  size: row.size,
  uploaded_by: row.uploaded_by,
  created_at: row.created_at,
  uploaded_by_username: row.uploaded_by_username,
});

/**
 * A sound name: normalised as every display name is (`normalizeDisplayName`,
 * docs/README.md#display-names; this one comes from a multipart form too, so not through the
 * `displayName` schema), then 1-40 characters. 400 naming the field otherwise.
 */
function checkSoundName(raw: unknown): string {
  if (typeof raw !== "string") throw badRequest("name: must be a string");
  const name = normalizeDisplayName(raw);
  if (name === "" && raw.trim() !== "") throw badRequest(`name: ${NO_VISIBLE_CHARACTERS}`);
  const length = [...name].length;
  if (length < 1 || length > LIMITS.soundboardNameLength) throw badRequest(`name: must be 1-${LIMITS.soundboardNameLength} characters`);
  return name;
}

/** A sound icon: exactly one Unicode emoji; custom emoji markup is refused by name. */
function checkSoundIcon(raw: unknown): string {
  if (typeof raw !== "string") throw badRequest("icon: must be a string");
  const icon = raw.trim();
  if (CUSTOM_EMOJI.test(icon)) throw badRequest("icon: custom emojis cannot be sound icons; use a Unicode emoji");
  if (!UNICODE_EMOJI.test(icon)) throw badRequest("icon: must be a single Unicode emoji");
  return icon;
}

/** The file name without its extension, as a sound name ("sound" when nothing visible is left). */
function soundStem(file: unknown): string {
  const cleaned = normalizeDisplayName([...normalizeDisplayName(fileStem(file))].slice(0, LIMITS.soundboardNameLength).join(""));
  return cleaned || "sound";
}


/**
 * Server soundboards (docs/soundboard.md). Members list; MANAGE_SERVER uploads, updates and
 * deletes. Premium users browse a catalog across their servers and play a sound into the voice
 * channel they are in, where they must be able to speak and hold USE_SOUNDBOARD, a few plays
 * per window at most.
 */
export class Soundboard {
  /** Shared by every node in cluster mode. */
  private readonly plays: SharedRateLimiter;

  constructor(
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
    /** The voice channel where the user may speak now, wherever its room is held (Voice.requireSpeaker). */
    private readonly voice: { requireSpeaker(userId: string): Promise<ChannelContext> },
    shared: SharedState,
    rate: SoundboardPlayRate = DEFAULT_SOUNDBOARD_PLAY_RATE,
  ) {
    this.plays = shared.rateLimiter("soundboard-plays", rate.plays, rate.windowSeconds * 1000);
  }

  async list(serverId: string, user: UserRow): Promise<Sound[]> {
    const member = await this.access.member(serverId, user.id);
    return (await this.store.soundboard.list(member.server.id)).map(toSound);
  }

  async upload(serverId: string, user: UserRow, input: { file: unknown; name?: unknown; icon?: unknown }): Promise<Sound> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const { bytes, type } = await readAudioUpload("sound", input.file, LIMITS.soundboardBytes);
    const name = input.name === undefined ? soundStem(input.file) : checkSoundName(input.name);
    const icon = input.icon === undefined ? DEFAULT_SOUND_ICON : checkSoundIcon(input.icon);
    // The cap is checked and the row written in one store transaction, so racing uploads
    // cannot pass it together; saveWith removes the file whenever the row is not written.
    const row = await this.uploads.saveWith("sounds", bytes, type.ext, (path) =>
      this.store.soundboard.create(
        {
          serverId: member.server.id,
          name,
          icon,
          filePath: path,
          originalName: originalNameOf(input.file, `${name}.${type.ext}`),
          mimeType: type.mime,
          size: bytes.byteLength,
          uploadedBy: user.id,
        },
        LIMITS.soundboard.soundsPerServer,
      ),
    );
    if (!row) throw badRequest(`A server can have at most ${LIMITS.soundboard.soundsPerServer} soundboard sounds`);
    await this.audit.record(member.server.id, user.id, "SERVER_SOUNDBOARD_UPLOAD", { type: "sound", id: row.id }, { name, icon });
    const view = await this.store.soundboard.findInServer(member.server.id, row.id);
    return toSound(view ?? { ...row, uploaded_by_username: user.username });
  }

  /** Name, icon and/or the file; a replaced file is removed. At least one of them is required. */
  async update(serverId: string, soundId: string, user: UserRow, input: { file?: unknown; name?: unknown; icon?: unknown }): Promise<Sound> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const existing = isUuid(soundId) ? await this.store.soundboard.findInServer(member.server.id, soundId.toLowerCase()) : null;
    if (!existing) throw notFound("Sound");
    const changes: SoundChanges = {};
    if (input.name !== undefined) changes.name = checkSoundName(input.name);
    if (input.icon !== undefined) changes.icon = checkSoundIcon(input.icon);
    const audio = input.file === undefined ? null : await readAudioUpload("sound", input.file, LIMITS.soundboardBytes);
    if (!audio && changes.name === undefined && changes.icon === undefined) {
      throw badRequest("body: nothing to update (name, icon or sound)");
    }
    let newPath: string | null = null;
    if (audio) {
      newPath = await this.uploads.save("sounds", audio.bytes, audio.type.ext);
      changes.file = {
        filePath: newPath,
        originalName: originalNameOf(input.file, `${changes.name ?? existing.name}.${audio.type.ext}`),
        mimeType: audio.type.mime,
        size: audio.bytes.byteLength,
      };
    }
    const result = await this.store.soundboard.update(member.server.id, existing.id, changes).catch(async (error: unknown) => {
      await this.uploads.remove(newPath);
      throw error;
    });
    if (!result) {
      // Deleted meanwhile.
      await this.uploads.remove(newPath);
      throw notFound("Sound");
    }
    if (newPath) await this.uploads.remove(result.before.file_path);
    await this.audit.record(member.server.id, user.id, "SERVER_SOUNDBOARD_UPDATE", { type: "sound", id: existing.id }, describeChanges(result.before, result.after));
    return toSound(result.after);
  }

  async remove(serverId: string, soundId: string, user: UserRow): Promise<void> {
    const member = await this.access.requirePermission(serverId, user.id, PERMISSIONS.MANAGE_SERVER);
    const removed = isUuid(soundId) ? await this.store.soundboard.deleteFromServer(member.server.id, soundId.toLowerCase()) : null;
    if (!removed) throw notFound("Sound");
    await this.uploads.remove(removed.file_path);
    await this.audit.record(member.server.id, user.id, "SERVER_SOUNDBOARD_DELETE", { type: "sound", id: removed.id }, { name: removed.name, icon: removed.icon });
  }

  /**
   * Premium: every sound of every server the caller belongs to and holds USE_SOUNDBOARD in
   * (server-wide). There are no built-in sounds yet, so every entry has `builtin: false`.
   */
  async catalog(user: UserRow): Promise<CatalogSound[]> {
    requirePremium(user, "Soundboard catalog is a premium feature");
    const rows = await this.store.soundboard.listForUser(user.id);
    const usable = new Map<string, boolean>();
    const out: CatalogSound[] = [];
    for (const row of rows) {
      let ok = usable.get(row.server_id);
      if (ok === undefined) {
        ok = await this.canUseIn(row.server_id, user.id);
        usable.set(row.server_id, ok);
      }
      if (ok) out.push({ id: row.id, name: row.name, icon: row.icon, builtin: false, file_url: row.file_path, server_id: row.server_id, server_name: row.server_name });
    }
    return out;
  }

  /**
   * Premium: plays a sound into the caller's current voice channel. The caller must be able to
   * speak there as a microphone must (Voice.requireSpeaker: CONNECT, SPEAK, not server-muted,
   * not timed out, not a meeting's audience) and hold USE_SOUNDBOARD there; the sound may come
   * from any server where the caller is a member holding USE_SOUNDBOARD (the catalog's rule),
   * not only the channel's own server. Every play that passes those checks counts against the
   * caller's rate, refused or not: past it, 429 with Retry-After.
   */
  async play(user: UserRow, soundId: string): Promise<{ played: true; channelId: string }> {
    requirePremium(user, "Playing soundboard sounds is a premium feature");
    // The room may be held by another node (cluster mode): the broadcast reaches its members there.
    const context = await this.voice.requireSpeaker(user.id);
    const channelId = context.channel.id;
    if (!hasPermission(context.permissions, PERMISSIONS.USE_SOUNDBOARD)) throw missingPermission(PERMISSIONS.USE_SOUNDBOARD, context.member);
    const rate = await this.plays.hit(user.id);
    if (!rate.allowed) throw tooManyRequests(rate.retryAfter, "You are playing sounds too fast, try again in a moment");
    const sound: SoundRow | null = isUuid(soundId) ? await this.store.soundboard.findRow(soundId.toLowerCase()) : null;
    if (!sound) throw notFound("Sound");
    const server = await this.store.servers.findById(sound.server_id);
    const member = server ? await this.access.memberOf(server, user.id) : null;
    // A sound of a server the caller is not in reads as missing, so ids do not leak.
    if (!member) throw notFound("Sound");
    if (!hasPermission(member.permissions, PERMISSIONS.USE_SOUNDBOARD)) throw missingPermission(PERMISSIONS.USE_SOUNDBOARD, member);
    this.bus.publish(rooms.voice(channelId), "voice:soundboard", {
      channelId,
      sound: { id: sound.id, name: sound.name, icon: sound.icon, file_url: sound.file_path },
      userId: user.id,
      username: user.username,
    });
    return { played: true, channelId };
  }

  private async canUseIn(serverId: string, userId: string): Promise<boolean> {
    const server = await this.store.servers.findById(serverId);
    const member = server ? await this.access.memberOf(server, userId) : null;
    return !!member && hasPermission(member.permissions, PERMISSIONS.USE_SOUNDBOARD);
  }
}

function requirePremium(user: UserRow, message: string): void {
  if (user.premium !== 1) throw forbidden(message);
}

/** `{field: {old, new}}` for what changed (a replaced file as its old and new paths). */
function describeChanges(before: SoundRow, after: SoundRow): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const key of ["name", "icon", "file_path"] as const) {
    if (before[key] !== after[key]) changes[key] = { old: before[key], new: after[key] };
  }
  return changes;
}
