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
}

/** The newest page of a place's messages, or the page before `before`. */
export function listMessages(rest: RestClient, place: MessagePlace, before?: string): Promise<Message[]> {
  const query = before ? { before } : {};
  switch (place.kind) {
    case "channel":
      return rest.request("listMessages", { params: { id: place.channelId }, query });
    case "dm":
      return rest.request("listDmMessages", { params: { targetUserId: place.userId }, query });
    case "group":
      return rest.request("listGroupMessages", { params: { groupId: place.groupId }, query });
  }
}

export function sendMessage(rest: RestClient, place: MessagePlace, body: SendBody): Promise<Message> {
  const sent = body.reply_to ? body : { content: body.content };
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
  onUploadProgress?: (progress: UploadProgress) => void,
): Promise<Message> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  if (content) form.append("content", content);
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
