import type { Logger } from "../log.ts";
import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import { rooms, type EventBus } from "./events.ts";
import { Accounts } from "./accounts.ts";
import { Platform } from "./platform.ts";
import { Presence } from "./presence.ts";
import { TokenService } from "./tokens.ts";
import { TwoFactor } from "./two-factor.ts";
import { UploadStore } from "./uploads.ts";
import { Users } from "./users.ts";
import { Access } from "./access.ts";
import { Audit } from "./audit.ts";
import { Members } from "./members.ts";
import { Servers } from "./servers.ts";
import { ServerGifs } from "./server-gifs.ts";
import { Emojis } from "./emojis.ts";
import { Messages } from "./messages.ts";
import { Applications } from "./applications.ts";
import { BotMembership } from "./bot-membership.ts";
import { MessageUploads } from "./message-uploads.ts";
import { Reactions } from "./reactions.ts";
import { Pins } from "./pins.ts";
import { Channels } from "./channels.ts";
import { Roles } from "./roles.ts";
import { Invites } from "./invites.ts";
import { Moderation } from "./moderation.ts";
import { Friends } from "./friends.ts";
import { Conversations } from "./conversations.ts";
import { Interactions } from "./interactions.ts";
import { Commands } from "./commands.ts";
import { Webhooks } from "./webhooks.ts";
import { DmCalls } from "./dm-calls.ts";
import { Voice } from "./voice.ts";
import { Soundboard } from "./soundboard.ts";
import { Admins, PlatformSettings } from "./admins.ts";
import { AdminUsers } from "./admin-users.ts";
import { AdminServers } from "./admin-servers.ts";
import { AdminSettings } from "./admin-settings.ts";
import { Reports } from "./reports.ts";
import { Gifs } from "./gifs.ts";
import { GifProviderClient } from "./gif-provider.ts";
import { createAi, type Ai } from "./ai/ai.ts";

/** Every feature of the platform, wired to one store and one event bus. */
export interface Domain {
  accounts: Accounts;
  twoFactor: TwoFactor;
  users: Users;
  presence: Presence;
  platform: Platform;
  uploads: UploadStore;
  access: Access;
  audit: Audit;
  members: Members;
  servers: Servers;
  serverGifs: ServerGifs;
  emojis: Emojis;
  messages: Messages;
  applications: Applications;
  botMembership: BotMembership;
  messageUploads: MessageUploads;
  reactions: Reactions;
  pins: Pins;
  channels: Channels;
  roles: Roles;
  invites: Invites;
  moderation: Moderation;
  friends: Friends;
  conversations: Conversations;
  interactions: Interactions;
  commands: Commands;
  webhooks: Webhooks;
  dmCalls: DmCalls;
  voice: Voice;
  soundboard: Soundboard;
  admins: Admins;
  settings: PlatformSettings;
  adminUsers: AdminUsers;
  adminServers: AdminServers;
  adminSettings: AdminSettings;
  reports: Reports;
  gifs: Gifs;
  ai: Ai;
}

/** `log` receives operator-facing warnings (an external provider failing), never secrets or payloads. */
export function createDomain(deps: { config: Config; jwtSecret: string; store: Store; bus: EventBus; log: Logger }): Domain {
  const { config, store, bus } = deps;
  const tokens = new TokenService(deps.jwtSecret, config.tokenLifetime);
  const uploads = new UploadStore(config.dataDir);
  const twoFactor = new TwoFactor(store);
  const access = new Access(store);
  const settings = new PlatformSettings(store, config);
  const admins = new Admins(store);
  const accounts = new Accounts(store, tokens, bus, config, settings);
  const adminUsers = new AdminUsers(store, admins, accounts, bus);
  const audit = new Audit(store, access);
  const members = new Members(store, access, audit, bus);
  const botMembership = new BotMembership(store, access, audit, members, bus);
  const servers = new Servers(store, access, audit, members, twoFactor, uploads, bus);
  const messages = new Messages(store, access, audit, uploads, bus);
  const conversations = new Conversations(store, uploads, bus);
  // Calling is messaging: DM calls apply the send rule, and leaving a group DM leaves its call.
  const dmCalls = new DmCalls(store, bus, conversations);
  conversations.listeners.push(dmCalls);
  const voice = new Voice(store, access, audit, bus);
  // Leaving a server, losing access, or a deleted channel takes members out of voice.
  members.accessListeners.push(voice);
  const channels = new Channels(store, access, audit, members, bus, uploads);
  channels.deleteListeners.push((channel) => voice.channelDeleted(channel));
  servers.deleteListeners.push(async (deleted) => {
    for (const channel of deleted) await voice.channelDeleted(channel);
  });
  // Presence reaches the user's own sockets, every server they belong to, and their friends.
  const presenceAudience = async (userId: string) => [
    rooms.user(userId),
    ...(await store.members.serverIdsOf(userId)).map(rooms.server),
    ...(await store.friends.friendIds(userId)).map(rooms.user),
  ];
  return {
    accounts,
    twoFactor,
    users: new Users(store, uploads),
    presence: new Presence(store, bus, presenceAudience),
    platform: new Platform(store, settings),
    uploads,
    applications: new Applications(store, tokens, twoFactor, settings, uploads, bus, botMembership),
    botMembership,
    access,
    audit,
    members,
    servers,
    serverGifs: new ServerGifs(store, access, uploads),
    emojis: new Emojis(store, access, audit, uploads),
    messages,
    messageUploads: new MessageUploads(store, access, messages, uploads),
    reactions: new Reactions(store, access, bus),
    pins: new Pins(store, access, audit, messages, bus),
    channels,
    roles: new Roles(store, access, audit, members, bus),
    invites: new Invites(store, access, audit, members, servers),
    moderation: new Moderation(store, access, audit, members, bus),
    friends: new Friends(store, bus),
    conversations,
    interactions: new Interactions(store, access, messages, bus),
    commands: new Commands(store, access),
    webhooks: new Webhooks(store, access, messages),
    dmCalls,
    voice,
    soundboard: new Soundboard(store, access, audit, uploads, bus, voice.rooms),
    admins,
    settings,
    adminUsers,
    adminServers: new AdminServers(store, admins),
    adminSettings: new AdminSettings(settings, admins),
    reports: new Reports(store, access, admins, adminUsers, messages, conversations),
    gifs: new Gifs(store, config.gifProvider ? new GifProviderClient(config.gifProvider, deps.log) : null),
    ai: createAi({ store, settings, admins, uploadsRoot: uploads.root, providerTimeoutMs: config.aiProviderTimeoutMs, log: deps.log }),
  };
}
