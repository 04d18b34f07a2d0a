/**
 * The gateway store: the reader's servers and DMs, each server's state and each
 * place's timeline, kept current by the gateway's events. Components read its signals.
 */
import { computed, effect, signal } from "@preact/signals";
import type { Gateway, GatewayEventName, Listener, RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import type { MessagePlace } from "./place-requests.ts";
import type { Category, Channel, Dm, MeUser, Message, PresenceStatus, Role, Server } from "../lib/wire-types.ts";
import type { SwitchSources } from "../lib/quick-switch.ts";
import { ServerState } from "./server-state.ts";
import { Timeline } from "./timeline.ts";
import { ReadStates } from "./read-states.ts";
import { NotificationSettingsState } from "./notification-settings.ts";
import { Notifier, type NotifiedPlace } from "./notifier.ts";
import { mayMention } from "../lib/notify-rules.ts";
import { plainText } from "../lib/content.ts";
import { PresenceSubscriptions } from "./presence-subscriptions.ts";
import { FriendsState } from "./friends.ts";

/** What a list shows for a channel, a server or a DM (docs/web.md, "Unread and notifications"). */
export interface UnreadShown {
  unread: boolean;
  mentions: number;
  muted: boolean;
}

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
  /** The channel or DM the reader has open (null: none), for notifications and read marks. */
  readonly viewing = signal<string | null>(null);
  readonly readStates: ReadStates;
  readonly notifications: NotificationSettingsState;
  readonly notifier = new Notifier();
  /** The members each large server's list shows, subscribed to for their presence. */
  readonly presence: PresenceSubscriptions;
  /** Friends and pending requests, asked when the Friends page first shows. */
  readonly friends: FriendsState;
  /** The tab title's count: mentions plus unread DMs. */
  readonly badgeCount = computed(() => {
    const unread = this.readStates.unread.value;
    const dms = new Set((this.dms.value ?? []).map((d) => d.id));
    let count = 0;
    for (const [id, entry] of unread) {
      if (dms.has(id)) count += this.notifications.isMuted("dm", id) ? 0 : 1;
      else count += entry.mentions;
    }
    return count;
  });
  private states = new Map<string, ServerState>();
  private timelines = new Map<string, Timeline>();
  private unsubscribe: (() => void)[] = [];
  /** The newest message of each place that may notify once the server counts it as a mention. */
  private awaitingMention = new Map<string, Message>();
  /** LARGE_SERVER_MEMBERS from GET /platform/config, asked once (again after a failure). */
  private largeServerMembers: Promise<number | null> | null = null;
  /** The reader's own custom status as `user:status` told it (set on another device, cleared, expired); the session keeps it. */
  onOwnCustomStatus: (custom: { text: string | null; emoji: string | null }) => void = () => {};

  constructor(
    readonly rest: RestClient,
    readonly gateway: Gateway,
    private readonly me: () => MeUser | null,
  ) {
    this.readStates = new ReadStates(rest);
    this.presence = new PresenceSubscriptions(gateway, () => this.connected.peek());
    this.notifications = new NotificationSettingsState(rest);
    this.friends = new FriendsState(rest);
    this.readStates.onMentionsGrew = (channelId) => this.mentionsGrew(channelId);
    this.notifier.openMessage = (placeId, messageId) => {
      const dm = this.dms.value?.find((d) => d.id === placeId);
      const channel = dm ? undefined : this.stateOfChannel(placeId)?.channels.value?.find((c) => c.id === placeId);
      const timeline = dm ? this.dmTimeline(dm) : channel ? this.channelTimeline(channel) : undefined;
      void timeline?.jumpTo(messageId);
    };
    gateway.on("ready", () => {
      this.connected.value = true;
      this.presence.connectedAgain(false);
      for (const state of this.states.values()) state.voice.subscribed();
      for (const timeline of this.timelines.values()) timeline.connected();
    });
    gateway.on("disconnected", () => (this.connected.value = false));
    gateway.on("closed", () => (this.connected.value = false));
    // A resumed session got back its rooms and the events it missed; otherwise what is shown is asked again.
    gateway.on("resumed", ({ recovered }) => {
      this.connected.value = true;
      this.presence.connectedAgain(recovered);
      if (!recovered) this.reload();
    });
    // Connected all along but some events never came (a Redis outage between the server's nodes).
    gateway.on("resync", () => this.reload());
  }

  /** Asks again for everything shown, after events may have been missed. */
  private reload(): void {
    void this.loadServers();
    void this.loadDms();
    void this.readStates.load();
    this.friends.reconnected();
    for (const state of this.states.values()) {
      // Rooms may have emptied while away: nothing shown from before, the reload fills it in.
      state.voice.clear();
      state.later("channels", 0);
      state.later("members", 0);
      state.later("roles", 0);
    }
    for (const timeline of this.timelines.values()) void timeline.refresh();
  }

  /**
   * Loads the lists and subscribes to the gateway; called once a session exists. Every server
   * and every channel the reader may view is one bulk subscription, followed by the server as
   * servers and channels are added (docs/gateway.md, "Bulk subscriptions"): a message anywhere
   * makes its channel unread.
   */
  start(): void {
    this.bindEvents();
    // The reader's own presence as shown goes into every member list that holds them.
    this.unsubscribe.push(
      effect(() => {
        this.shownSelfStatus();
        for (const state of this.states.values()) state.members.selfStatusChanged();
      }),
    );
    quietly(this.gateway.subscribeAll());
    void this.loadServers();
    void this.loadDms();
    void this.readStates.load();
    void this.notifications.load();
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
    this.readStates.reset();
    this.notifications.reset();
    this.awaitingMention.clear();
    this.presence.reset();
    this.friends.reset();
    this.largeServerMembers = null;
    this.viewing.value = null;
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
      // Every server's channels, to know which server an unread channel is in.
      for (const server of servers) {
        const state = this.serverState(server.id);
        state.members.setCount(server.member_count);
        state.ensureChannels();
      }
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
    const state = this.serverState(server.id);
    state.members.setCount(server.member_count);
    state.ensureChannels();
  }

  /**
   * The reader left or deleted `serverId`: it goes from the list at once (the leave's or the
   * deletion's event may come later; forgetting twice does nothing). Answers where to go
   * next: the first server left, or home.
   */
  serverGone(serverId: string): string {
    this.forgetServer(serverId);
    const next = this.servers.value?.[0];
    return next ? `/channels/${next.id}` : "/channels/@me";
  }

  private forgetServer(serverId: string): void {
    this.servers.value = (this.servers.value ?? []).filter((s) => s.id !== serverId);
    // Its rooms are left by the server (a membership that ends ends its subscriptions).
    for (const channel of this.states.get(serverId)?.channels.value ?? []) this.readStates.forget(channel.id);
    this.states.get(serverId)?.dispose();
    this.states.delete(serverId);
    this.presence.forget(serverId);
  }

  /** A server's state, loaded in full (its page is shown). */
  server(serverId: string): ServerState {
    const state = this.serverState(serverId);
    state.ensureLoaded();
    return state;
  }

  private serverState(serverId: string): ServerState {
    let state = this.states.get(serverId);
    if (!state) {
      state = new ServerState(serverId, this.rest, {
        self: () => {
          const me = this.me();
          return me ? { id: me.id, status: this.shownSelfStatus() } : null;
        },
        largeServerMembers: () => this.platformLargeServerMembers(),
      });
      this.states.set(serverId, state);
    }
    return state;
  }

  /** The large-server size of this instance (GET /platform/config), or null when it cannot be read now. */
  private platformLargeServerMembers(): Promise<number | null> {
    this.largeServerMembers ??= this.rest.request("getPlatformConfig").then(
      (config) => config.large_server_members,
      () => {
        this.largeServerMembers = null;
        return null;
      },
    );
    return this.largeServerMembers;
  }

  // Unread state ----------------------------------------------------------------------

  channelUnread(serverId: string, channelId: string): UnreadShown {
    const entry = this.readStates.unread.value.get(channelId);
    const muted = this.notifications.channelMuted(serverId, channelId);
    return { unread: Boolean(entry) && !muted, mentions: entry?.mentions ?? 0, muted };
  }

  /** A server is unread when one of its unmuted channels is (a muted server: its mentions only). */
  serverUnread(serverId: string): UnreadShown {
    const muted = this.notifications.isMuted("server", serverId);
    let unread = false;
    let mentions = 0;
    for (const channel of this.states.get(serverId)?.channels.value ?? []) {
      const shown = this.channelUnread(serverId, channel.id);
      unread ||= shown.unread;
      mentions += shown.mentions;
    }
    return { unread: unread && !muted, mentions, muted };
  }

  dmUnread(dmId: string): UnreadShown {
    const muted = this.notifications.isMuted("dm", dmId);
    return { unread: this.readStates.unread.value.has(dmId) && !muted, mentions: 0, muted };
  }

  /** How many DMs have unread messages (muted ones left out). */
  unreadDmCount(): number {
    return (this.dms.value ?? []).filter((d) => this.dmUnread(d.id).unread).length;
  }

  /** Marks an open place read up to the newest message it has loaded. */
  markPlaceRead(timeline: Timeline): void {
    const newest = timeline.messages.value[timeline.messages.value.length - 1];
    const entry = this.readStates.get(timeline.key);
    if (!entry) return;
    this.readStates.markRead(timeline.place, timeline.key, newest && newest.id > entry.last ? newest.id : entry.last);
  }

  async markServerRead(serverId: string): Promise<void> {
    const channels = (this.states.get(serverId)?.channels.value ?? []).map((c) => c.id);
    await this.readStates.markServerRead(serverId, channels);
  }

  // Notifications ---------------------------------------------------------------------

  /** A message from someone else arrived: it notifies now, or once the server counts it as a mention. */
  private arrived(message: Message, placeId: string): void {
    const me = this.me();
    if (!me || message.user_id === me.id || this.notifications.mutedUsers.value.has(message.user_id)) return;
    const where = this.notifiedPlace(message, placeId);
    if (!where || where.muted || this.reading(placeId)) return;
    if (where.level === "all") this.notify(message, where.place);
    else if (where.level === "mentions") this.awaitingMention.set(placeId, message);
  }

  private mentionsGrew(channelId: string): void {
    const message = this.awaitingMention.get(channelId);
    this.awaitingMention.delete(channelId);
    if (!message || this.reading(channelId)) return;
    const where = this.notifiedPlace(message, channelId);
    if (where && !where.muted && where.level !== "none") this.notify(message, where.place);
  }

  private reading(placeId: string): boolean {
    return this.viewing.value === placeId && document.visibilityState === "visible";
  }

  private notify(message: Message, place: NotifiedPlace): void {
    const account = this.notifications.account.value;
    this.notifier.raise(message, place, { desktop: account?.desktop ?? true, sound: account?.sounds ?? true });
  }

  /** Where a message notifies and at which level; DMs notify for every message unless set to nothing. */
  private notifiedPlace(message: Message, placeId: string): { place: NotifiedPlace; level: "all" | "mentions" | "none"; muted: boolean } | null {
    const dm = this.dms.value?.find((d) => d.id === placeId);
    if (dm) {
      const level = this.notifications.dmLevel(dm.id);
      return {
        place: { id: dm.id, url: `/channels/@me/${dm.id}`, title: dmName(dm), text: plainText(message.content, { user: (id) => dm.recipients.find((r) => r.id === id)?.username }) },
        level: level === "none" ? "none" : "all",
        muted: this.notifications.isMuted("dm", dm.id),
      };
    }
    const state = this.stateOfChannel(placeId);
    const server = state && this.servers.value?.find((s) => s.id === state.id);
    const channel = state?.channels.value?.find((c) => c.id === placeId);
    if (!state || !server || !channel) return null;
    const text = plainText(message.content, {
      user: (id) => state.members.peek(id)?.username ?? (id === this.me()?.id ? this.me()?.username : undefined),
      role: (id) => state.roles.value.find((r) => r.id === id)?.name,
      channel: (id) => state.channels.value?.find((c) => c.id === id)?.name,
    });
    const serverDefault = server.settings.default_notifications === "mentions" ? "mentions" : "all";
    return {
      place: { id: channel.id, url: `/channels/${server.id}/${channel.id}`, title: `#${channel.name} (${server.name})`, text },
      level: this.notifications.channelLevel(server.id, channel.id, serverDefault),
      muted: this.notifications.channelMuted(server.id, channel.id),
    };
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

  /** Shows a channel (its room is the bulk subscription's): loads it the first time, or catches up after being away. */
  openChannel(channel: Channel): Timeline {
    const timeline = this.channelTimeline(channel);
    if (timeline.status.value === "ready") void timeline.refresh();
    else void timeline.open();
    return timeline;
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
    this.readStates.forget(dmId);
  }

  /** What the quick switcher searches: the reader's DMs, and their servers with the channels known of each. */
  switchSources(): SwitchSources {
    return {
      dms: (this.dms.value ?? []).map((dm) => ({ id: dm.id, name: dmName(dm) })),
      servers: (this.servers.value ?? []).map((server) => {
        const state = this.states.get(server.id);
        return { id: server.id, name: server.name, channels: state?.channels.value ?? [], categories: state?.categories.value ?? [] };
      }),
    };
  }

  /** A server's channels and categories as loaded (null before), without loading the rest of its state. */
  channelsOf(serverId: string): { channels: Channel[]; categories: Category[] } | null {
    const state = this.states.get(serverId);
    const channels = state?.channels.value;
    return state && channels ? { channels, categories: state.categories.value } : null;
  }

  /** Servers whose state is loaded, to look a channel or role up by id. */
  private loadedStates(): ServerState[] {
    return [...this.states.values()];
  }

  /** The server each channel was last found in: live events name a channel, and a reader may be in hundreds of servers. */
  private readonly channelHomes = new Map<string, ServerState>();

  private stateOfChannel(channelId: string): ServerState | undefined {
    const holds = (s: ServerState) => s.channels.value?.some((c) => c.id === channelId) ?? false;
    const known = this.channelHomes.get(channelId);
    if (known && this.states.get(known.id) === known && holds(known)) return known;
    const found = this.loadedStates().find(holds);
    if (found) this.channelHomes.set(channelId, found);
    else this.channelHomes.delete(channelId);
    return found;
  }

  private holdsRole(state: ServerState, roleId: string): boolean {
    const me = this.me();
    return Boolean(me && state.members.peek(me.id)?.roles.includes(roleId));
  }

  // Gateway events --------------------------------------------------------------------

  private bindEvents(): void {
    const on = <E extends GatewayEventName>(event: E, listener: Listener<E>) => this.unsubscribe.push(this.gateway.on(event, listener));
    const isMe = (userId: unknown) => userId === this.me()?.id;

    on("user:status", (p) => {
      const status = p.status as PresenceStatus;
      if (isMe(p.userId)) this.selfStatus.value = status;
      // A person's custom status comes with its emoji; a bot's activity text comes alone.
      const custom = p.customStatus === undefined ? undefined : { text: p.customStatus, emoji: p.customStatusEmoji ?? null };
      if (isMe(p.userId) && custom) this.onOwnCustomStatus(custom);
      for (const state of this.states.values()) state.members.setStatus(p.userId, status, custom);
      this.friends.statusChanged(p.userId, status, custom);
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
      state?.members.joined(p);
      state?.later("commands");
    });
    const left = (p: { serverId: string; userId: string }) => {
      if (isMe(p.userId)) return this.forgetServer(p.serverId);
      const state = this.states.get(p.serverId);
      state?.members.left(p.userId);
      state?.later("commands");
    };
    on("member:left", left);
    on("member:banned", left);
    on("server:deleted", (p) => this.forgetServer(p.id));
    on("member:role-updated", (p) => {
      const state = this.states.get(p.serverId);
      state?.members.setBuiltinRole(p.userId, p.role);
      if (isMe(p.userId)) state?.later("channels");
    });
    on("member:timeout", (p) => {
      const state = this.states.get(p.serverId);
      state?.members.setTimeoutUntil(p.userId, p.expiresAt ?? null);
      // A timeout takes the reader's bits away or gives them back in every channel.
      if (isMe(p.userId)) state?.permissions.refresh();
    });
    // Who, not what: that one member is asked for (its roles), never the list.
    on("member:roles-updated", (p) => {
      const state = this.states.get(p.serverId);
      state?.members.rolesChanged(p.userId);
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
        state.members.roleDeleted(id);
        state.later("channels");
      }
    });

    on("channel:created", (c) => this.states.get(c.server_id)?.upsertChannel(c));
    on("channel:updated", (c) => this.states.get(c.server_id)?.upsertChannel(c));
    on("channel:deleted", (c) => {
      this.states.get(c.server_id)?.removeChannel(c.id);
      this.readStates.forget(c.id);
    });
    on("voice:channel-update", ({ server_id, ...room }) => this.states.get(server_id)?.voice.apply(room));
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

    // Ids only (a category's visibility depends on its overrides): the list is asked again.
    const categoryChanged = (c: { server_id: string }) => this.states.get(c.server_id)?.later("channels");
    on("category:created", categoryChanged);
    on("category:updated", categoryChanged);
    on("category:deleted", categoryChanged);

    on("message:new", (m: Message) => {
      this.timelines.get(m.channel_id)?.receive(m);
      const me = this.me()?.id ?? "";
      this.readStates.received(m.channel_id, m.id, m.user_id === me, mayMention(m.content, m.reply_to, me));
      this.arrived(m, m.channel_id);
    });
    on("message:update", (m: Message) => this.timelines.get(m.channel_id)?.update(m));
    on("message:deleted", (p) => {
      this.timelines.get(p.channelId)?.remove(p.messageId);
      this.readStates.deleted(p.channelId);
    });
    on("message:reaction", (p) => {
      const timeline = this.timelines.get(p.channelId);
      if (!timeline) return;
      const state = this.stateOfChannel(p.channelId);
      const username = state?.members.peek(p.userId)?.username ?? "";
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
      this.readStates.received(dmId, m.id, isMe(m.user_id), false);
      if (known) {
        this.upsertDm({ ...known, last_message_at: m.created_at });
        this.arrived(m, dmId);
      } else void this.loadDms().then(() => this.arrived(m, dmId));
    });
    on("dm:update", (m: Message) => this.timelines.get(m.conversation_id ?? m.channel_id)?.update(m));
    on("dm:deleted", (p) => {
      this.timelines.get(p.conversationId)?.remove(p.messageId);
      this.readStates.deleted(p.conversationId);
    });
    on("dm:typing:start", (p) => {
      if (!isMe(p.userId)) this.timelines.get(p.conversationId)?.startTyping(p.userId, p.username ?? "Someone");
    });
    on("dm:typing:stop", (p) => this.timelines.get(p.conversationId)?.clearTyping(p.userId));
    on("dm:group:created", (c: Dm) => this.upsertDm(c));
    on("dm:group:updated", (c: Dm) => {
      const list = this.dms.value ?? [];
      this.dms.value = list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [c, ...list];
    });
    on("friend:request", (p) => this.friends.requested(p.from));
    on("friend:accepted", (p) => this.friends.accepted(p.userId, p.username));
    on("friend:removed", (p) => this.friends.removed(p.userId));
    on("read-state:update", (p) => this.readStates.applyUpdate(p));
    on("notifications:update", (p) => this.notifications.apply(p));
    on("dm:group:removed", (p) => this.removeDm(p.conversationId));
    on("dm:group:deleted", (p) => this.removeDm(p.conversationId));
  }
}
