import type { Store } from "../../store/store.ts";
import type { DmRow, DmMessageRow, NewDmAttachment } from "../../store/dms-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { LIMITS } from "../shared/limits.ts";
import { capReached, type ResourceCaps } from "../shared/caps.ts";
import type { Dm, DmMessage, Embed, Message, PresenceStatus, Recipient } from "../shared/shapes.ts";
import { presenceShownTo } from "../accounts/presence-visibility.ts";
import { readImageUpload, type UploadStore } from "../shared/uploads.ts";
import { normalizeEmbeds } from "../messaging/embeds.ts";
import { checkAttachmentFiles, storeAttachmentFiles } from "../messaging/attachments.ts";
import { searchWords } from "../messaging/search-query.ts";
import { markDmRead } from "../messaging/read-states.ts";
import { isUuid } from "../shared/validation.ts";
import { DMS_FRIENDS_ONLY } from "../accounts/privacy.ts";
import { echoNonce, nonceKey, type NonceInput } from "../messaging/nonce.ts";

export const CANNOT_MESSAGE = "You can only message users who share a server with you or are your friends";

/** A DM, its members (recipients) and its messages: their shapes are in ../shared/shapes.ts. */
export type { Dm, DmMessage };

interface MessagePageQuery {
  before?: string;
  after?: string;
  around?: string;
  limit: number;
}

/** Told when someone leaves a group DM or it is deleted (DM calls take them out of the call). */
export interface DmListener {
  /** `userId` was removed by `by`, or left (`by` is then `userId`). */
  memberLeft(dmId: string, userId: string, by: string): void;
  dmDeleted(dmId: string, by: string): void;
}

/**
 * Direct messages in one place: 1:1 DMs and group DMs are both DMs (one `DmRow` each), and every
 * send, edit, delete, page, search, pin, reaction and read marker goes through here.
 */
export class Dms {
  constructor(
    private readonly store: Store,
    private readonly uploads: UploadStore,
    private readonly bus: EventBus,
    /** Told when someone leaves a group DM or it is deleted (DM calls; registered in the composition root). */
    private readonly listeners: readonly DmListener[],
    private readonly caps: ResourceCaps,
  ) {}

  // --- who may talk to whom -------------------------------------------------------------

  private async user(id: string): Promise<UserRow> {
    const user = isUuid(id) ? await this.store.users.findById(id.toLowerCase()) : null;
    if (!user) throw notFound("User");
    return user;
  }

  /**
   * Who may message whom: an accepted friend (never a bot: bots are reached through servers), or
   * someone sharing a server unless `to` takes direct messages from friends only (their privacy
   * setting, docs/users.md#privacy). Someone sharing no server hears the general refusal, so the
   * setting is told only to those it alone stops.
   */
  private async requireCanMessage(from: UserRow, to: UserRow): Promise<void> {
    const repo = this.store.dms;
    const friends = async () => !from.is_bot && !to.is_bot && (await repo.areFriends(from.id, to.id));
    if (!(await repo.shareServer(from.id, to.id))) {
      if (await friends()) return;
      throw forbidden(CANNOT_MESSAGE);
    }
    if ((await this.store.privacy.get(to.id)).dms_from === "friends" && !(await friends())) throw forbidden(DMS_FRIENDS_ONLY);
  }

  private async dmTarget(caller: UserRow, targetUserId: string): Promise<UserRow> {
    const target = await this.user(targetUserId);
    if (target.id === caller.id) throw badRequest("You cannot message yourself");
    return target;
  }

  /** The 1:1 DM with the target, created when allowed and missing. */
  async openDm(caller: UserRow, targetUserId: string): Promise<{ dm: DmRow; created: boolean }> {
    const target = await this.dmTarget(caller, targetUserId);
    const existing = await this.store.dms.findDm(caller.id, target.id);
    if (existing) return { dm: existing, created: false };
    await this.requireCanMessage(caller, target);
    const { row, created } = await this.store.dms.openDm(caller.id, target.id);
    return { dm: row, created };
  }

  /** The existing 1:1 DM with the target, or null (nothing is created by reading). */
  async findDm(caller: UserRow, targetUserId: string): Promise<DmRow | null> {
    const target = await this.dmTarget(caller, targetUserId);
    return this.store.dms.findDm(caller.id, target.id);
  }

  /** The existing 1:1 DM, or 404 naming `what` (the thing the caller asked about). */
  async requireDm(caller: UserRow, targetUserId: string, what = "Conversation"): Promise<DmRow> {
    const row = await this.findDm(caller, targetUserId);
    if (!row) throw notFound(what);
    return row;
  }

  /** A group the caller belongs to; any other group does not exist for them (404). */
  async group(caller: UserRow, groupId: string): Promise<DmRow> {
    const row = isUuid(groupId) ? await this.store.dms.findById(groupId.toLowerCase()) : null;
    if (!row || row.type !== "group" || !(await this.store.dms.isMember(row.id, caller.id))) throw notFound("Group");
    return row;
  }

  // --- shapes ------------------------------------------------------------------------------

  /** The DMs as `viewerId` sees them: the other members, with presence as presenceShownTo decides. */
  async toDms(rows: DmRow[], viewerId: string): Promise<Dm[]> {
    const others = (await this.store.dms.recipients(rows.map((r) => r.id))).filter((r) => r.id !== viewerId);
    const recipients = await presenceShownTo(this.store, viewerId, others, (r) => r.id);
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      name: row.name,
      icon: row.icon,
      owner_id: row.owner_id,
      recipients: recipients
        .filter((r) => r.conversation_id === row.id)
        .map(({ id, username, avatar, status, is_bot }) => ({ id, username, avatar, status, is_bot })),
      last_message_at: row.last_message_at,
    }));
  }

  async toDm(row: DmRow, viewerId: string): Promise<Dm> {
    return (await this.toDms([row], viewerId))[0]!;
  }

  async toMessages(rows: DmMessageRow[]): Promise<DmMessage[]> {
    const attachments = await this.store.dms.attachmentsOf(rows.map((r) => r.id));
    return rows.map((row) => ({
      id: row.id,
      conversation_id: row.conversation_id,
      channel_id: row.conversation_id,
      user_id: row.user_id,
      content: row.content,
      created_at: row.created_at,
      updated_at: row.updated_at,
      username: row.username,
      avatar: row.avatar,
      is_bot: row.is_bot,
      embeds: JSON.parse(row.embeds) as Embed[],
      attachments: attachments
        .filter((a) => a.message_id === row.id)
        .map(({ id, filename, original_name, mime_type, size, width, height }) => ({ id, filename, original_name, mime_type, size, width, height })),
      reply_to: row.reply_to,
    }));
  }

  private async toMessage(row: DmMessageRow): Promise<DmMessage> {
    return (await this.toMessages([row]))[0]!;
  }

  private async memberRooms(dmId: string, except: string[] = []): Promise<string[]> {
    return (await this.store.dms.memberIds(dmId)).filter((id) => !except.includes(id)).map(rooms.user);
  }

  private async message(dm: DmRow, messageId: string): Promise<DmMessageRow> {
    const row = isUuid(messageId) ? await this.store.dms.findMessage(dm.id, messageId) : null;
    if (!row) throw notFound("Message");
    return row;
  }

  // --- listing -----------------------------------------------------------------------------

  async list(user: UserRow, type: "dm" | "group" | null): Promise<Dm[]> {
    return this.toDms(await this.store.dms.listForUser(user.id, type), user.id);
  }

  // --- messages ----------------------------------------------------------------------------

  /**
   * The rule for sending in a DM (messages, and DM calls: starting, answering,
   * signalling). 1:1 DMs are re-checked every time: losing the shared server or the
   * friendship, or the other choosing friends-only DMs, stops new messages. Membership is the
   * caller's to check.
   */
  async requireCanSend(dm: DmRow, sender: UserRow): Promise<void> {
    if (dm.type !== "dm") return;
    const otherId = (await this.store.dms.memberIds(dm.id)).find((id) => id !== sender.id);
    const other = otherId ? await this.store.users.findById(otherId) : null;
    if (!other) throw notFound("User");
    await this.requireCanMessage(sender, other);
  }

  /**
   * Sends a message (text, GIF link or attachments). Everyone in the DM hears
   * `dm:new` in their user room, except members who muted the sender: mutes silence, they do not block.
   */
  async send(
    dm: DmRow,
    sender: UserRow,
    input: { content: string; embeds?: unknown; reply_to?: string | null; attachments?: NewDmAttachment[] } & NonceInput,
  ): Promise<DmMessage> {
    await this.requireCanSend(dm, sender);
    const nonce = nonceKey(input, { dmId: dm.id, userId: sender.id });
    const attachments = input.attachments ?? [];
    // Embeds (Bot REST DMs) follow the channel rules; a DM has no EMBED_LINKS bit to check.
    const embeds = input.embeds === undefined || input.embeds === null ? [] : normalizeEmbeds(input.embeds, { lenient: false });
    if (input.content.trim() === "" && attachments.length === 0 && embeds.length === 0) throw badRequest("content: must not be empty");
    let replyTo: string | null = null;
    if (input.reply_to) {
      const target = isUuid(input.reply_to) ? await this.store.dms.findMessage(dm.id, input.reply_to) : null;
      if (!target) throw badRequest("reply_to: must be a message in this conversation");
      replyTo = target.id;
    }
    const row = await this.store.dms.createMessage({
      dmId: dm.id,
      userId: sender.id,
      content: input.content,
      embeds: JSON.stringify(embeds),
      replyTo,
      attachments,
      nonce,
    });
    const message = echoNonce(await this.toMessage(row), input);
    // A retry of a stored send (docs/messages.md, "Idempotent sends"): the first message, this send's files gone, no second `dm:new`.
    if (row.replayed) {
      await Promise.all(attachments.map((a) => this.uploads.remove(a.filename)));
      return message;
    }
    const muters = await this.store.dms.mutersOf(dm.id, sender.id);
    const audience = await this.memberRooms(dm.id, muters);
    if (audience.length > 0) this.bus.publish(audience, "dm:new", message);
    return message;
  }

  /**
   * Sends 1-10 files of any type (25 MB each) with optional text. Images are recognised by
   * their bytes; anything else is stored as application/octet-stream. A failure at any step
   * removes every file already written, and the rows are written in one transaction.
   */
  async upload(dm: DmRow, sender: UserRow, files: unknown[], content: string, nonce: NonceInput = {}): Promise<DmMessage> {
    await this.requireCanSend(dm, sender);
    const saved = await storeAttachmentFiles(this.uploads, checkAttachmentFiles(files, LIMITS.attachmentBytes, false));
    try {
      return await this.send(dm, sender, { content, attachments: saved, ...nonce });
    } catch (error) {
      await Promise.all(saved.map((a) => this.uploads.remove(a.filename)));
      throw error;
    }
  }

  async messages(dm: DmRow | null, query: MessagePageQuery): Promise<DmMessage[]> {
    if (!dm) return [];
    const repo = this.store.dms;
    const rows = query.around
      ? await repo.pageAround(dm.id, query.around, query.limit)
      : query.after
        ? await repo.pageAfter(dm.id, query.after, query.limit)
        : await repo.pageBefore(dm.id, query.before ?? null, query.limit);
    return this.toMessages(rows);
  }

  /** The author edits; everyone in the DM hears `dm:update` (muters included, so no one keeps stale text). */
  async edit(dm: DmRow, user: UserRow, messageId: string, content: string): Promise<DmMessage> {
    const existing = await this.message(dm, messageId);
    if (existing.user_id !== user.id) throw forbidden("You can only edit your own messages");
    const row = await this.store.dms.updateMessage(dm.id, existing.id, content);
    if (!row) throw notFound("Message");
    const message = await this.toMessage(row);
    this.bus.publish(await this.memberRooms(dm.id), "dm:update", message);
    return message;
  }

  /** The author deletes; the attachment files go with the message. */
  async remove(dm: DmRow, user: UserRow, messageId: string): Promise<void> {
    const existing = await this.message(dm, messageId);
    if (existing.user_id !== user.id) throw forbidden("You can only delete your own messages");
    await this.erase(existing);
  }

  /** A platform administrator removes a reported message (docs/reports.md). false when it is already gone. */
  async removeReported(dmId: string, messageId: string): Promise<boolean> {
    const row = await this.store.dms.findMessage(dmId, messageId);
    if (!row) return false;
    await this.erase(row);
    return true;
  }

  /** Deletes the message and its attachment files; everyone in the DM hears `dm:deleted`. */
  private async erase(row: DmMessageRow): Promise<void> {
    const files = await this.store.dms.deleteMessage(row.id);
    await Promise.all(files.map((f) => this.uploads.remove(f)));
    this.bus.publish(await this.memberRooms(row.conversation_id), "dm:deleted", { conversationId: row.conversation_id, messageId: row.id });
  }

  async markRead(dm: DmRow, user: UserRow, messageId: string | undefined) {
    const repo = this.store.dms;
    const target = messageId === undefined ? await repo.latestMessageId(dm.id) : (await this.message(dm, messageId)).id;
    const stored = await markDmRead(this.store, this.bus, user.id, dm.id, target);
    return { conversation_id: dm.id, last_read_message_id: stored };
  }

  async search(dm: DmRow | null, q: string, limit: number): Promise<DmMessage[]> {
    const words = searchWords(q);
    if (!dm || words.length === 0) return [];
    return this.toMessages(await this.store.dms.search(dm.id, words, limit));
  }

  async pins(dm: DmRow | null): Promise<DmMessage[]> {
    if (!dm) return [];
    return this.toMessages(await this.store.dms.pins(dm.id));
  }

  /** Any member pins or unpins; `dm:pin` goes out only when something changed. */
  async setPinned(dm: DmRow, user: UserRow, messageId: string, pinned: boolean) {
    const message = await this.message(dm, messageId);
    const repo = this.store.dms;
    let changed: boolean;
    if (pinned) {
      const result = await repo.pin(dm.id, message.id, user.id, LIMITS.dm.pinsPerConversation);
      if (result === "full") throw badRequest(`A conversation can have at most ${LIMITS.dm.pinsPerConversation} pinned messages`);
      changed = result === "pinned";
    } else {
      changed = await repo.unpin(message.id);
    }
    const payload = { conversationId: dm.id, messageId: message.id, pinned };
    if (changed) this.bus.publish(await this.memberRooms(dm.id), "dm:pin", payload);
    return payload;
  }

  async toggleReaction(dm: DmRow, user: UserRow, messageId: string, emoji: string) {
    const message = await this.message(dm, messageId);
    const action = await this.store.dms.toggleReaction(message.id, emoji, user.id, this.caps.reactionsPerMessage);
    if (action === "full") throw capReached.reactions(this.caps);
    const payload = { conversationId: dm.id, messageId: message.id, emoji, userId: user.id, action };
    this.bus.publish(await this.memberRooms(dm.id), "dm:reaction", payload);
    return payload;
  }

  /**
   * Relays typing to the other members (not to those who muted the typist). With `relay` false
   * only the membership check runs (a start coalesced as a repeat, src/gateway/typing-repeats.ts).
   */
  async typing(userId: string, username: string, dmId: string, started: boolean, relay = true): Promise<void> {
    const repo = this.store.dms;
    if (!isUuid(dmId) || !(await repo.isMember(dmId.toLowerCase(), userId))) throw notFound("Conversation");
    if (!relay) return;
    const id = dmId.toLowerCase();
    const muters = await repo.mutersOf(id, userId);
    const audience = await this.memberRooms(id, [userId, ...muters]);
    if (audience.length === 0) return;
    this.bus.publish(audience, started ? "dm:typing:start" : "dm:typing:stop", { userId, username, conversationId: id });
  }

  // --- groups ------------------------------------------------------------------------------

  private async publishGroup(dmId: string, event: "dm:group:created" | "dm:group:updated"): Promise<void> {
    const row = await this.store.dms.findById(dmId);
    if (!row) return;
    const memberIds = await this.store.dms.memberIds(dmId);
    // Each member sees the others as recipients, with the presence they may see: built per member.
    for (const memberId of memberIds) this.bus.publish(rooms.user(memberId), event, await this.toDm(row, memberId));
  }

  async createGroup(owner: UserRow, input: { name?: string | null; member_ids: string[] }): Promise<Dm> {
    const ids = [...new Set(input.member_ids.map((id) => id.toLowerCase()))].filter((id) => id !== owner.id);
    if (ids.length < LIMITS.dm.groupMinOthers || ids.length > LIMITS.dm.groupMaxOthers) {
      throw badRequest(`member_ids: must name ${LIMITS.dm.groupMinOthers}-${LIMITS.dm.groupMaxOthers} other users`);
    }
    const others = new Map<string, UserRow>();
    for (const id of ids) {
      const other = await this.user(id);
      await this.requireCanMessage(owner, other);
      others.set(other.id, other);
    }
    const row = await this.store.dms.createGroup(owner.id, input.name ?? null, [...others.keys()], this.caps.groupDmsPerUser);
    if ("full" in row) throw capReached.groupDms(this.caps, row.full === owner.id ? null : (others.get(row.full)?.username ?? null));
    await this.publishGroup(row.id, "dm:group:created");
    return this.toDm(row, owner.id);
  }

  /** Any member renames the group (as on Discord); an empty name clears it. */
  async renameGroup(caller: UserRow, groupId: string, name: string | null): Promise<Dm> {
    const group = await this.group(caller, groupId);
    await this.store.dms.setName(group.id, name);
    await this.publishGroup(group.id, "dm:group:updated");
    return this.toDm((await this.store.dms.findById(group.id))!, caller.id);
  }

  async setGroupIcon(caller: UserRow, groupId: string, file: unknown): Promise<Dm> {
    const group = await this.group(caller, groupId);
    const { bytes, type } = await readImageUpload("icon", file, LIMITS.dm.groupIconBytes);
    const path = await this.uploads.save("group-icons", bytes, type.ext);
    let previous: string | null;
    try {
      previous = await this.store.dms.replaceIcon(group.id, path);
    } catch (error) {
      await this.uploads.remove(path);
      throw error;
    }
    await this.uploads.remove(previous);
    await this.publishGroup(group.id, "dm:group:updated");
    return this.toDm((await this.store.dms.findById(group.id))!, caller.id);
  }

  async removeGroupIcon(caller: UserRow, groupId: string): Promise<Dm> {
    const group = await this.group(caller, groupId);
    await this.uploads.remove(await this.store.dms.replaceIcon(group.id, null));
    await this.publishGroup(group.id, "dm:group:updated");
    return this.toDm((await this.store.dms.findById(group.id))!, caller.id);
  }

  /** Any member adds someone they may message, up to 10 besides the owner. */
  async addGroupMember(caller: UserRow, groupId: string, userId: string): Promise<Dm> {
    const group = await this.group(caller, groupId);
    const target = await this.user(userId);
    await this.requireCanMessage(caller, target);
    const result = await this.store.dms.addMember(group.id, target.id, LIMITS.dm.groupMaxOthers + 1, this.caps.groupDmsPerUser);
    if (result === "user_full") throw capReached.groupDms(this.caps, target.username);
    if (result === "exists") throw conflict("That user is already in this group");
    if (result === "full") throw badRequest(`A group DM can have at most ${LIMITS.dm.groupMaxOthers + 1} members`);
    await this.publishGroup(group.id, "dm:group:updated");
    return this.toDm((await this.store.dms.findById(group.id))!, caller.id);
  }

  /** The owner removes others; anyone removes themselves (that is leaving). */
  async removeGroupMember(caller: UserRow, groupId: string, memberId: string): Promise<void> {
    const group = await this.group(caller, groupId);
    if (memberId.toLowerCase() === caller.id) return this.leaveGroup(caller, groupId);
    if (group.owner_id !== caller.id) throw forbidden("Only the group owner can remove members");
    if (!isUuid(memberId) || !(await this.store.dms.isMember(group.id, memberId.toLowerCase()))) throw notFound("Member");
    await this.takeOut(group.id, memberId.toLowerCase(), caller.id);
  }

  /** Leaving; an owner who leaves hands the group to the longest-standing member, and the last one out deletes it. */
  async leaveGroup(caller: UserRow, groupId: string): Promise<void> {
    const group = await this.group(caller, groupId);
    await this.takeOut(group.id, caller.id, caller.id);
  }

  private async takeOut(groupId: string, userId: string, by: string): Promise<void> {
    const result = await this.store.dms.removeMember(groupId, userId);
    if (!result.removed) throw notFound("Member");
    for (const listener of this.listeners) listener.memberLeft(groupId, userId, by);
    this.bus.publish(rooms.user(userId), "dm:group:removed", { conversationId: groupId });
    if (result.deleted) {
      await Promise.all(result.files.map((f) => this.uploads.remove(f)));
      return;
    }
    await this.publishGroup(groupId, "dm:group:updated");
  }

  async transferGroup(caller: UserRow, groupId: string, userId: string): Promise<Dm> {
    const group = await this.group(caller, groupId);
    if (group.owner_id !== caller.id) throw forbidden("Only the group owner can transfer ownership");
    const id = userId.toLowerCase();
    if (id === caller.id) throw badRequest("user_id: you already own this group");
    if (!(await this.store.dms.isMember(group.id, id))) throw notFound("Member");
    await this.store.dms.setOwner(group.id, id);
    await this.publishGroup(group.id, "dm:group:updated");
    return this.toDm((await this.store.dms.findById(group.id))!, caller.id);
  }

  async deleteGroup(caller: UserRow, groupId: string): Promise<void> {
    const group = await this.group(caller, groupId);
    if (group.owner_id !== caller.id) throw forbidden("Only the group owner can delete the group");
    const audience = await this.memberRooms(group.id);
    const files = await this.store.dms.deleteWithMessages(group.id);
    for (const listener of this.listeners) listener.dmDeleted(group.id, caller.id);
    await Promise.all(files.map((f) => this.uploads.remove(f)));
    this.bus.publish(audience, "dm:group:deleted", { conversationId: group.id });
  }
}
