import type { Logger } from "../log.ts";
import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import { rooms, type EventBus } from "./shared/events.ts";
import { Accounts } from "./accounts/accounts.ts";
import { Platform } from "./discovery/discovery.ts";
import { Presence } from "./accounts/presence.ts";
import { TokenService } from "./accounts/tokens.ts";
import { TwoFactor } from "./accounts/two-factor.ts";
import { UploadStore } from "./shared/uploads.ts";
import { Users } from "./accounts/users.ts";
import { Access } from "./access/access.ts";
import { Audit } from "./access/audit.ts";
import { Members } from "./community/members.ts";
import { Servers } from "./community/servers.ts";
import { ServerGifs } from "./community/server-gifs.ts";
import { Emojis } from "./community/emojis.ts";
import { Messages } from "./messaging/messages.ts";
import { Applications } from "./bots/applications.ts";
import { BotMembership } from "./bots/bot-membership.ts";
import { MessageUploads } from "./messaging/message-uploads.ts";
import { Reactions } from "./messaging/reactions.ts";
import { Pins } from "./messaging/pins.ts";
import { Channels } from "./community/channels.ts";
import { Roles } from "./community/roles.ts";
import { Invites } from "./community/invites.ts";
import { Moderation } from "./community/moderation.ts";
import { Friends } from "./accounts/friends.ts";
import { Conversations } from "./dms/dms.ts";
import { Interactions } from "./bots/interactions.ts";
import { Commands } from "./bots/commands.ts";
import { Webhooks } from "./messaging/webhooks.ts";
import { DmCalls } from "./dms/dm-calls.ts";
import { Voice } from "./voice/voice.ts";
import type { VoiceRoomMembership } from "./voice/voice-rooms.ts";
import { Soundboard } from "./voice/soundboard.ts";
import { Admins, PlatformSettings } from "./admin/admins.ts";
import { AdminUsers } from "./admin/admin-users.ts";
import { AdminServers } from "./admin/admin-servers.ts";
import { AdminSettings } from "./admin/general-settings.ts";
import { Reports } from "./admin/reports.ts";
import { Gifs } from "./messaging/gifs.ts";
import { GifProviderClient } from "./messaging/gif-provider.ts";
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
export function createDomain(deps: {
  config: Config;
  jwtSecret: string;
  store: Store;
  bus: EventBus;
  /** Voice-room membership, implemented by the audio layer (src/audio/voice-rooms.ts). */
  voiceRooms: VoiceRoomMembership;
  log: Logger;
}): Domain {
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
  const voice = new Voice(deps.voiceRooms, store, access, audit, bus);
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
    dmCalls: new DmCalls(store, bus),
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
