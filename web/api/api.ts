/** The REST routes the app calls, typed. Every path is a public route documented in docs/. */
import type { Http, HttpOptions, UploadProgress } from "./client.ts";
import type {
  ChannelList,
  Conversation,
  Emoji,
  Invite,
  MeUser,
  Member,
  Message,
  ReactionSummary,
  Role,
  Server,
  ServerCommand,
  Session,
} from "./types.ts";

const enc = encodeURIComponent;

export interface SendBody {
  content: string;
  reply_to?: string | null;
}

/** Where a conversation's messages live: a server channel, a 1:1 DM (by the other user's id) or a group DM. */
export type MessagePlace = { kind: "channel"; channelId: string } | { kind: "dm"; userId: string } | { kind: "group"; groupId: string };

function base(place: MessagePlace): string {
  switch (place.kind) {
    case "channel":
      return `/messages/${place.channelId}`;
    case "dm":
      return `/dm/${place.userId}/messages`;
    case "group":
      return `/dm/groups/${place.groupId}/messages`;
  }
}

function uploadPath(place: MessagePlace): string {
  switch (place.kind) {
    case "channel":
      return `/messages/${place.channelId}/upload`;
    case "dm":
      return `/dm/${place.userId}/upload`;
    case "group":
      return `/dm/groups/${place.groupId}/upload`;
  }
}

export class Api {
  constructor(readonly http: Http) {}

  // Accounts
  login(login: string, password: string, code?: string) {
    return this.http.post<Session>("/auth/login", code ? { login, password, code } : { login, password });
  }
  register(username: string, email: string, password: string) {
    return this.http.post<Session>("/auth/register", { username, email, password });
  }
  me() {
    return this.http.get<MeUser>("/users/me/info");
  }
  /** Revokes the token the request carries (docs/auth.md); the answer's body is not needed. */
  logout(options?: HttpOptions) {
    return this.http.post<unknown>("/auth/logout", undefined, options);
  }
  /** Revokes every token of the account, this one included. */
  logoutEverywhere(options?: HttpOptions) {
    return this.http.post<unknown>("/auth/logout/all", undefined, options);
  }

  // Servers
  servers() {
    return this.http.get<Server[]>("/servers");
  }
  createServer(name: string) {
    return this.http.post<Server>("/servers", { name });
  }
  joinServer(code: string) {
    return this.http.post<Server>(`/servers/join/${enc(code)}`);
  }
  createInvite(serverId: string) {
    return this.http.post<Invite>(`/servers/${serverId}/invites`, {});
  }
  channels(serverId: string) {
    return this.http.get<ChannelList>(`/channels/${serverId}`);
  }
  members(serverId: string) {
    return this.http.get<Member[]>(`/servers/${serverId}/members`);
  }
  roles(serverId: string) {
    return this.http.get<Role[]>(`/roles/${serverId}`);
  }
  emojis(serverId: string) {
    return this.http.get<{ emojis: Emoji[]; canManage: boolean }>(`/servers/${serverId}/emojis`);
  }
  commands(serverId: string) {
    return this.http.get<ServerCommand[]>(`/oauth2/servers/${serverId}/commands`);
  }

  // Messages, in a channel or a DM
  messages(place: MessagePlace, before?: string) {
    return this.http.get<Message[]>(`${base(place)}${before ? `?before=${enc(before)}` : ""}`);
  }
  message(messageId: string) {
    return this.http.get<Message>(`/messages/id/${messageId}`);
  }
  send(place: MessagePlace, body: SendBody) {
    const path = place.kind === "channel" ? `/messages/${place.channelId}` : base(place);
    return this.http.post<Message>(path, body.reply_to ? body : { content: body.content });
  }
  edit(place: MessagePlace, messageId: string, content: string) {
    const path = place.kind === "channel" ? `/messages/${messageId}` : `${base(place)}/${messageId}`;
    return this.http.put<Message>(path, { content });
  }
  remove(place: MessagePlace, messageId: string) {
    const path = place.kind === "channel" ? `/messages/${messageId}` : `${base(place)}/${messageId}`;
    return this.http.delete<{ success: true }>(path);
  }
  upload(place: MessagePlace, files: File[], content: string, replyTo: string | null, onProgress?: (p: UploadProgress) => void) {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    if (content) form.append("content", content);
    if (replyTo && place.kind === "channel") form.append("replyTo", replyTo);
    return this.http.upload<Message>(uploadPath(place), form, onProgress);
  }

  // Reactions and pins (channel messages)
  reactions(channelId: string, messageId: string) {
    return this.http.get<ReactionSummary[]>(`/messages/${channelId}/reactions/${messageId}`);
  }
  toggleReaction(channelId: string, messageId: string, emoji: string) {
    return this.http.put<{ emoji: string; action: "added" | "removed"; count: number }>(`/messages/${channelId}/reactions/${messageId}`, {
      emoji,
    });
  }
  pins(channelId: string) {
    return this.http.get<Message[]>(`/messages/${channelId}/pins`);
  }
  pin(channelId: string, messageId: string) {
    return this.http.post<unknown>(`/messages/${channelId}/pins/${messageId}`);
  }
  unpin(channelId: string, messageId: string) {
    return this.http.delete<unknown>(`/messages/${channelId}/pins/${messageId}`);
  }

  // Direct messages
  conversations() {
    return this.http.get<Conversation[]>("/dm/channels");
  }
  openDm(userId: string) {
    return this.http.post<Conversation>(`/dm/channels/${userId}`);
  }
  createGroup(memberIds: string[], name?: string) {
    return this.http.post<Conversation>("/dm/groups", name ? { member_ids: memberIds, name } : { member_ids: memberIds });
  }
}
