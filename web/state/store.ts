/**
 * The gateway store: the reader's servers and DMs, each server's state and each
 * place's timeline, kept current by the gateway's events. Components read its signals.
 */
import { signal } from "@preact/signals";
import type { Gateway, GatewayEventName, Listener, RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import type { MessagePlace } from "./place-requests.ts";
import type { Channel, Dm, MeUser, Message, PresenceStatus, Role, Server } from "../lib/wire-types.ts";
import { ServerState } from "./server-state.ts";
import { Timeline } from "./timeline.ts";

/** A room the server refuses (a server left, a channel no longer visible) shows in what REST answers: nothing to tell here. */
const quietly = (done: Promise<unknown>) => void done.catch(() => {});

export function placeOf(dm: Dm): MessagePlace {
  return dm.type === "group"
    ? { kind: "group", groupId: dm.id }
    : { kind: "dm", userId: dm.recipients[0]?.id ?? "" };
}

/** A DM's name as lists and the composer show it. */
export function dmName(dm: Dm): string {
  if (dm.name) return dm.name;
  return dm.recipients.map((r) => r.username).join(", ") || "Empty group";
}

export class ChatStore {
  readonly servers = signal<Server[] | null>(null);
  readonly serversError = signal<string | null>(null);
  readonly dms = signal<Dm[] | null>(null);
  /** The reader's own status as the gateway last said it (null: not told since connecting). */
  readonly selfStatus = signal<PresenceStatus | null>(null);
  /** True while the gateway is connected (rooms joined again after a reconnect). */
  readonly connected = signal(false);
  private states = new Map<string, ServerState>();
  private timelines = new Map<string, Timeline>();
  private unsubscribe: (() => void)[] = [];

  constructor(
    readonly rest: RestClient,
    readonly gateway: Gateway,
    private readonly me: () => MeUser | null,
  ) {
    gateway.on("ready", () => (this.connected.value = true));
    gateway.on("disconnected", () => (this.connected.value = false));
    gateway.on("closed", () => (this.connected.value = false));
    // A resumed session got back its rooms and the events it missed; otherwise what is shown is asked again.
    gateway.on("resumed", ({ recovered }) => {
      this.connected.value = true;
      if (recovered) return;
      void this.loadServers();
      void this.loadDms();
      for (const state of this.states.values()) {
        state.later("channels", 0);
        state.later("members", 0);
        state.later("roles", 0);
      }
      for (const timeline of this.timelines.values()) void timeline.refresh();
    });
  }

  /** Loads the lists and subscribes to the gateway; called once a session exists. */
  start(): void {
    this.bindEvents();
    void this.loadServers();
    void this.loadDms();
  }

  /**
   * How the reader appears: while connected, what the gateway last said (online until told
   * otherwise, since a member list fetched before the socket connected says offline); offline
   * while disconnected.
   */
  shownSelfStatus(): PresenceStatus {
    return this.connected.value ? (this.selfStatus.value ?? "online") : "offline";
  }

  /** Forgets everything (log out). */
  reset(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    for (const state of this.states.values()) state.dispose();
    for (const timeline of this.timelines.values()) timeline.dispose();
    this.states.clear();
    this.timelines.clear();
    this.servers.value = null;
    this.dms.value = null;
    this.serversError.value = null;
    this.selfStatus.value = null;
  }

  async loadServers(): Promise<void> {
    try {
      const servers = await this.rest.request("listServers");
      this.servers.value = servers;
      this.serversError.value = null;
      for (const server of servers) quietly(this.gateway.joinServer(server.id));
    } catch (error) {
      this.serversError.value = errorMessage(error);
    }
  }

  async loadDms(): Promise<void> {
    try {
      this.dms.value = await this.rest.request("listDmChannels");
    } catch {
      this.dms.value ??= [];
    }
  }

  /** A server the reader just created or joined. */
  addServer(server: Server): void {
    const list = this.servers.value ?? [];
    if (!list.some((s) => s.id === server.id)) this.servers.value = [...list, server];
    quietly(this.gateway.joinServer(server.id));
  }

  private forgetServer(serverId: string): void {
    this.servers.value = (this.servers.value ?? []).filter((s) => s.id !== serverId);
    this.states.get(serverId)?.dispose();
    this.states.delete(serverId);
    quietly(this.gateway.leaveServer(serverId));
  }

  server(serverId: string): ServerState {
    let state = this.states.get(serverId);
    if (!state) {
      state = new ServerState(serverId, this.rest);
      this.states.set(serverId, state);
    }
    state.ensureLoaded();
    return state;
  }

  /** The timeline of a channel; the gateway delivers its events while it is open. */
  channelTimeline(channel: Channel): Timeline {
    return this.timeline(channel.id, { kind: "channel", channelId: channel.id });
  }

  dmTimeline(dm: Dm): Timeline {
    return this.timeline(dm.id, placeOf(dm));
  }

  private timeline(key: string, place: MessagePlace): Timeline {
    let timeline = this.timelines.get(key);
    if (!timeline) {
      timeline = new Timeline(key, place, this.rest);
      this.timelines.set(key, timeline);
    }
    return timeline;
  }

  /** Shows a channel: joins its room, then loads (first time) or catches up (after being away). */
  openChannel(channel: Channel): Timeline {
    const timeline = this.channelTimeline(channel);
    quietly(this.gateway.joinChannel(channel.id));
    if (timeline.status.value === "ready") void timeline.refresh();
    else void timeline.open();
    return timeline;
  }

  closeChannel(channelId: string): void {
    quietly(this.gateway.leaveChannel(channelId));
  }

  /** The DM with `userId`, opened (created when new) and put in the list. */
  async openDm(userId: string): Promise<Dm> {
    const dm = await this.rest.request("openDm", { params: { targetUserId: userId } });
    this.upsertDm(dm);
    return dm;
  }

  upsertDm(dm: Dm): void {
    const list = (this.dms.value ?? []).filter((c) => c.id !== dm.id);
    this.dms.value = [dm, ...list];
  }

  private removeDm(dmId: string): void {
    this.dms.value = (this.dms.value ?? []).filter((c) => c.id !== dmId);
  }

  /** Servers whose state is loaded, to look a channel or role up by id. */
  private loadedStates(): ServerState[] {
    return [...this.states.values()];
  }

  private stateOfChannel(channelId: string): ServerState | undefined {
    return this.loadedStates().find((s) => s.channels.value?.some((c) => c.id === channelId));
  }

  private holdsRole(state: ServerState, roleId: string): boolean {
    const me = this.me();
    return Boolean(me && state.members.value?.some((m) => m.user_id === me.id && m.roles.includes(roleId)));
  }

  // Gateway events --------------------------------------------------------------------

  private bindEvents(): void {
    const on = <E extends GatewayEventName>(event: E, listener: Listener<E>) => this.unsubscribe.push(this.gateway.on(event, listener));
    const isMe = (userId: unknown) => userId === this.me()?.id;

    on("user:status", (p) => {
      const status = p.status as PresenceStatus;
      if (isMe(p.userId)) this.selfStatus.value = status;
      for (const state of this.states.values()) state.setStatus(p.userId, status);
      const list = this.dms.value;
      if (list?.some((c) => c.recipients.some((r) => r.id === p.userId))) {
        this.dms.value = list.map((c) => ({
          ...c,
          recipients: c.recipients.map((r) => (r.id === p.userId ? { ...r, status } : r)),
        }));
      }
    });

    on("member:joined", (p) => {
      if (isMe(p.userId) && !this.servers.value?.some((s) => s.id === p.serverId)) void this.loadServers();
      const state = this.states.get(p.serverId);
      state?.later("members");
      state?.later("commands");
    });
    const left = (p: { serverId: string; userId: string }) => {
      if (isMe(p.userId)) return this.forgetServer(p.serverId);
      const state = this.states.get(p.serverId);
      state?.removeMember(p.userId);
      state?.later("commands");
    };
    on("member:left", left);
    on("member:banned", left);
    on("member:role-updated", (p) => {
      const state = this.states.get(p.serverId);
      state?.setBuiltinRole(p.userId, p.role);
      if (isMe(p.userId)) state?.later("channels");
    });
    on("member:timeout", (p) => this.states.get(p.serverId)?.setTimeoutUntil(p.userId, p.expiresAt ?? null));
    on("member:roles-updated", (p) => {
      const state = this.states.get(p.serverId);
      state?.later("members");
      if (isMe(p.userId)) state?.later("channels");
    });

    const roleChanged = (role: Role) => {
      const state = this.states.get(role.server_id);
      if (!state) return;
      state.upsertRole(role);
      if (role.is_default === 1 || this.holdsRole(state, role.id)) state.later("channels");
    };
    on("role:created", roleChanged);
    on("role:updated", roleChanged);
    on("role:deleted", (id) => {
      for (const state of this.states.values()) {
        if (!state.roles.value.some((r) => r.id === id)) continue;
        state.removeRole(id);
        state.later("members");
        state.later("channels");
      }
    });

    on("channel:created", (c) => this.states.get(c.server_id)?.upsertChannel(c));
    on("channel:updated", (c) => this.states.get(c.server_id)?.upsertChannel(c));
    on("channel:deleted", (c) => this.states.get(c.server_id)?.removeChannel(c.id));
    // An override can show or hide channels: the list is asked again (it is filtered by the server).
    on("channel:permissions-updated", (p) => {
      const state = this.stateOfChannel(p.channelId);
      if (state) state.later("channels");
      else for (const s of this.states.values()) s.later("channels");
    });
    on("category:permissions-updated", (p) => {
      const state = this.loadedStates().find((s) => s.categories.value.some((c) => c.id === p.categoryId));
      if (state) state.later("channels");
      else for (const s of this.states.values()) s.later("channels");
    });

    on("message:new", (m: Message) => this.timelines.get(m.channel_id)?.receive(m));
    on("message:update", (m: Message) => this.timelines.get(m.channel_id)?.update(m));
    on("message:deleted", (p) => this.timelines.get(p.channelId)?.remove(p.messageId));
    on("message:reaction", (p) => {
      const timeline = this.timelines.get(p.channelId);
      if (!timeline) return;
      const state = this.stateOfChannel(p.channelId);
      const username = state?.members.value?.find((m) => m.user_id === p.userId)?.username ?? "";
      timeline.reaction({ messageId: p.messageId, emoji: p.emoji, userId: p.userId, action: p.action }, username);
    });
    on("message:pin", (p) => this.timelines.get(p.channelId)?.pin(p.messageId, p.pinned));
    on("typing:start", (p) => {
      if (!isMe(p.userId)) this.timelines.get(p.channelId)?.startTyping(p.userId, p.username ?? "Someone");
    });
    on("typing:stop", (p) => this.timelines.get(p.channelId)?.clearTyping(p.userId));

    on("dm:new", (m: Message) => {
      const dmId = m.conversation_id ?? m.channel_id;
      this.timelines.get(dmId)?.receive(m);
      const list = this.dms.value;
      const known = list?.find((c) => c.id === dmId);
      if (known) this.upsertDm({ ...known, last_message_at: m.created_at });
      else void this.loadDms();
    });
    on("dm:update", (m: Message) => this.timelines.get(m.conversation_id ?? m.channel_id)?.update(m));
    on("dm:deleted", (p) => this.timelines.get(p.conversationId)?.remove(p.messageId));
    on("dm:typing:start", (p) => {
      if (!isMe(p.userId)) this.timelines.get(p.conversationId)?.startTyping(p.userId, p.username ?? "Someone");
    });
    on("dm:typing:stop", (p) => this.timelines.get(p.conversationId)?.clearTyping(p.userId));
    on("dm:group:created", (c: Dm) => this.upsertDm(c));
    on("dm:group:updated", (c: Dm) => {
      const list = this.dms.value ?? [];
      this.dms.value = list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [c, ...list];
    });
    on("dm:group:removed", (p) => this.removeDm(p.conversationId));
    on("dm:group:deleted", (p) => this.removeDm(p.conversationId));
  }
}
