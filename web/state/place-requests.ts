/**
 * The message routes of a place: a server channel, a 1:1 DM (by the other user's id) or a group
 * DM each have their own operations in the reference; these pick the one for the place, typed by
 * the SDK's operation map.
 */
import type { RestClient, UploadProgress } from "../../sdk/src/client.ts";
import type { Message } from "../lib/wire-types.ts";

/** Where a place's messages live: a channel, a 1:1 DM or a group DM. */
export type MessagePlace = { kind: "channel"; channelId: string } | { kind: "dm"; userId: string } | { kind: "group"; groupId: string };

export interface SendBody {
  content: string;
  reply_to?: string | null;
  /**
   * The send's idempotency key (docs/messages.md, "Idempotent sends"), sent with
   * `enforce_nonce: true`: the client retries a send that failed by the network with it (the
   * RestClient once by itself, the composer when the same text is sent again), and the server
   * answers a retry with the message already stored.
   */
  nonce: string;
}

/** Which page of a place's messages: the newest (none given), or the one `before`, `after` or `around` a message (at most one). */
export interface PageQuery {
  before?: string;
  after?: string;
  around?: string;
  /** 1-100; the server's default is 50. */
  limit?: number;
}

/** A page of a place's messages, newest first (docs/messages.md: `after` pages are newest first too). */
export function listMessages(rest: RestClient, place: MessagePlace, page: PageQuery = {}): Promise<Message[]> {
  const query: PageQuery = {};
  if (page.before) query.before = page.before;
  else if (page.after) query.after = page.after;
  else if (page.around) query.around = page.around;
  if (page.limit !== undefined) query.limit = page.limit;
  switch (place.kind) {
    case "channel":
      return rest.request("listMessages", { params: { id: place.channelId }, query });
    case "dm":
      return rest.request("listDmMessages", { params: { targetUserId: place.userId }, query });
    case "group":
      return rest.request("listGroupMessages", { params: { groupId: place.groupId }, query });
  }
}

/** Full-text search of one place's messages (docs/messages.md, dms.md), newest first. */
export function searchMessages(rest: RestClient, place: MessagePlace, q: string, limit = 25): Promise<Message[]> {
  const query = { q, limit };
  switch (place.kind) {
    case "channel":
      return rest.request("searchMessages", { params: { id: place.channelId }, query });
    case "dm":
      return rest.request("searchDm", { params: { targetUserId: place.userId }, query });
    case "group":
      return rest.request("searchGroup", { params: { groupId: place.groupId }, query });
  }
}

export function sendMessage(rest: RestClient, place: MessagePlace, body: SendBody): Promise<Message> {
  const keyed = { content: body.content, nonce: body.nonce, enforce_nonce: true };
  const sent = body.reply_to ? { ...keyed, reply_to: body.reply_to } : keyed;
  switch (place.kind) {
    case "channel":
      return rest.request("sendMessage", { params: { id: place.channelId }, body: sent });
    case "dm":
      return rest.request("sendDm", { params: { targetUserId: place.userId }, body: sent });
    case "group":
      return rest.request("sendGroupMessage", { params: { groupId: place.groupId }, body: sent });
  }
}

export function editMessage(rest: RestClient, place: MessagePlace, messageId: string, content: string): Promise<Message> {
  switch (place.kind) {
    case "channel":
      return rest.request("editMessage", { params: { id: messageId }, body: { content } });
    case "dm":
      return rest.request("editDm", { params: { targetUserId: place.userId, messageId }, body: { content } });
    case "group":
      return rest.request("editGroupMessage", { params: { groupId: place.groupId, messageId }, body: { content } });
  }
}

export function deleteMessage(rest: RestClient, place: MessagePlace, messageId: string): Promise<unknown> {
  switch (place.kind) {
    case "channel":
      return rest.request("deleteMessage", { params: { id: messageId } });
    case "dm":
      return rest.request("deleteDm", { params: { targetUserId: place.userId, messageId } });
    case "group":
      return rest.request("deleteGroupMessage", { params: { groupId: place.groupId, messageId } });
  }
}

/** Files (and optional text) as one message; a reply is a channel message's only. */
export function uploadMessage(
  rest: RestClient,
  place: MessagePlace,
  files: File[],
  content: string,
  replyTo: string | null,
  nonce: string,
  onUploadProgress?: (progress: UploadProgress) => void,
): Promise<Message> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  if (content) form.append("content", content);
  // As SendBody.nonce; form fields are text.
  form.append("nonce", nonce);
  form.append("enforce_nonce", "true");
  if (replyTo && place.kind === "channel") form.append("replyTo", replyTo);
  switch (place.kind) {
    case "channel":
      return rest.request("uploadMessage", { params: { id: place.channelId }, body: form, onUploadProgress });
    case "dm":
      return rest.request("uploadDm", { params: { targetUserId: place.userId }, body: form, onUploadProgress });
    case "group":
      return rest.request("uploadGroupMessage", { params: { groupId: place.groupId }, body: form, onUploadProgress });
  }
}
