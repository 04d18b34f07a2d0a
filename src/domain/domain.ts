/**
 * The composition root: every service of the platform is built here, once, and handed its
 * dependencies. `Domain` is the type of what `createDomain` returns, so a feature is added by
 * one line below (and its route plugin and one line in src/app.ts; docs/architecture.md).
 */
import type { Logger } from "../log.ts";
import { JanusRooms } from "../media/janus-rooms.ts";
import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import { Access } from "./access/access.ts";
import { Audit } from "./access/audit.ts";
import { Accounts } from "./accounts/accounts.ts";
import { Friends } from "./accounts/friends.ts";
import { Presence } from "./accounts/presence.ts";
import { CustomStatuses } from "./accounts/custom-status.ts";
import { TokenService, type JwtCodec } from "./accounts/tokens.ts";
import { TwoFactor } from "./accounts/two-factor.ts";
import { NotificationOverrides } from "./accounts/notification-overrides.ts";
import { CredentialChecks } from "./accounts/credential-checks.ts";
import { TokenRevocations } from "./accounts/token-revocations.ts";
import { Users } from "./accounts/users.ts";
import { Privacy } from "./accounts/privacy.ts";
import { AdminServers } from "./admin/admin-servers.ts";
import { AdminUsers } from "./admin/admin-users.ts";
import { Admins } from "./admin/admins.ts";
import { GeneralSettings } from "./admin/general-settings.ts";
import { PlatformSettings } from "./admin/platform-settings.ts";
import { Reports } from "./admin/reports.ts";
import { createAi } from "./ai/ai.ts";
import { Applications } from "./bots/applications.ts";
import { BotMembership } from "./bots/bot-membership.ts";
import { BotRest } from "./bots/bot-rest.ts";
import { Commands } from "./bots/commands.ts";
import { Interactions } from "./bots/interactions.ts";
import { Channels } from "./community/channels.ts";
import { Emojis } from "./community/emojis.ts";
import { Invites } from "./community/invites.ts";
import { Members, type LiveStateListener } from "./community/members.ts";
import { Moderation } from "./community/moderation.ts";
import { Roles } from "./community/roles.ts";
import { ServerGifs } from "./community/server-gifs.ts";
import { Servers } from "./community/servers.ts";
import { Discovery } from "./discovery/discovery.ts";
import { DmCalls, type CallRecords } from "./dms/dm-calls.ts";
import { Dms, type DmListener } from "./dms/dms.ts";
import { GifProviderClient } from "./messaging/gif-provider.ts";
import { Gifs } from "./messaging/gifs.ts";
import { MessageUploads } from "./messaging/message-uploads.ts";
import { Messages } from "./messaging/messages.ts";
import { ReadStates } from "./messaging/read-states.ts";
import { Pins } from "./messaging/pins.ts";
import { Reactions } from "./messaging/reactions.ts";
import { Webhooks } from "./messaging/webhooks.ts";
import { rooms, type EventBus } from "./shared/events.ts";
import { localSharedState, type SharedState } from "./shared/shared-state.ts";
import { DELETION_DEFAULTS, Deletions } from "./community/deletions.ts";
import { UploadStore } from "./shared/uploads.ts";
import { fileStorage } from "./shared/file-storage.ts";
import { Soundboard } from "./voice/soundboard.ts";
import type { VoiceRoomMembership } from "./voice/voice-rooms.ts";
import { ONE_NODE, Voice, type VoiceElsewhere } from "./voice/voice.ts";
import { onEveryNode, signalVoiceJoined } from "./voice/live-state-everywhere.ts";
import { VoiceOccupants } from "./voice/voice-occupants.ts";
import { localVoiceStates, type VoiceStates } from "./voice/voice-states.ts";

/** Every feature of the platform, wired to one store and one event bus. */
export type Domain = ReturnType<typeof createDomain>;

interface DomainDeps {
  config: Config;
  /** Signs and verifies the bearer tokens (src/http/jwt-codec.ts). */
  jwt: JwtCodec;
  store: Store;
  /** Where the domain's events go: the gateway (src/gateway/socket-bus.ts). */
  bus: EventBus;
  /** Voice-room membership, implemented by the audio layer (src/audio/voice-rooms.ts). */
  voiceRooms: VoiceRoomMembership;
  /**
   * What every node of a cluster shares (rate limits, connections per user, cache signals):
   * Redis in cluster mode (src/cluster/), this process's memory when absent.
   */
  shared?: SharedState;
  /** Cluster mode: where users are in voice on other nodes, and which rooms this node may hold. */
  voiceHomes?: Pick<VoiceElsewhere, "channelOf" | "mayHold" | "moveAcross">;
  /** Cluster mode: where the DM calls held here are recorded for the other nodes. */
  callRecords?: CallRecords;
  /** Cluster mode: the voice rooms' snapshots every node reads (src/cluster/redis-voice-states.ts). */
  voiceStates?: VoiceStates;
  /** Operator-facing warnings (an external provider failing), never secrets or payloads. */
  log: Logger;
}

export function createDomain(deps: DomainDeps) {
  const { config, store, bus } = deps;
  const shared = deps.shared ?? localSharedState();

  // shared and access: what nearly every feature is given.
  const uploads = new UploadStore(fileStorage(config.uploadStorage, config.dataDir, store.storedFiles, store.db.storage), config.imageLimits);
  const access = new Access(store, shared);
  const audit = new Audit(store, access);

  // accounts and platform administration.
  const tokens = new TokenService(deps.jwt, config.tokenLifetime);
  const credentialChecks = new CredentialChecks(shared, config);
  const twoFactor = new TwoFactor(store, credentialChecks);
  const settings = new PlatformSettings(store, config, shared);
  const admins = new Admins(store);
  const accounts = new Accounts(store, tokens, bus, config, settings, shared, credentialChecks, twoFactor, new TokenRevocations(store));
  const users = new Users(store, uploads);
  const privacy = new Privacy(store);
  const adminUsers = new AdminUsers(store, admins, accounts, bus);
  // Presence reaches the user's own sockets, the rooms of their servers up to the large-server
  // size, in larger ones only the sockets that subscribed to them (presence:subscribe: each
  // socket holds a bounded set, so a member connecting costs what its subscribers are, not the
  // server's size), and their friends and the DM partners who may see it (presenceShownTo's rule)
  // wherever they are (docs/gateway.md, "Presence").
  const presenceAudience = async (userId: string) => {
    const [servers, friendIds, partnerIds] = await Promise.all([
      store.members.serverIdsBySize(userId, config.largeServerMembers),
      store.friends.friendIds(userId),
      store.dms.presencePartnerIds(userId),
    ]);
    return [
      rooms.user(userId),
      ...servers.small.map(rooms.server),
      ...servers.large.map((serverId) => rooms.presence(serverId, userId)),
      ...[...new Set([...friendIds, ...partnerIds])].map(rooms.user),
    ];
  };
  const presence = new Presence(store, bus, shared.connections, presenceAudience);
  const customStatuses = new CustomStatuses(store, presence, shared);

  // Filled below once voice and the DM calls exist (read only when something changes).
  const liveState: LiveStateListener[] = [];

  // community, messaging, direct messages.
  const members = new Members(store, access, audit, bus, liveState, config.caps);
  // Voice keeps live state per member and channel: leaving a server, losing access, or a
  // deleted channel takes members out of voice (LiveStateListener, given to the community).
  // Who is in each room reaches everyone who can see its channel (VoiceOccupants).
  const voiceOccupants = new VoiceOccupants(deps.voiceRooms, store, access, members, deps.voiceStates ?? localVoiceStates(), deps.log);
  // With JANUS_URL set, people's audio in voice rooms goes through Janus (docs/voice.md, "Janus").
  const media = config.janus ? new JanusRooms(config.janus, deps.log) : null;
  const voice = new Voice(
    deps.voiceRooms,
    store,
    access,
    audit,
    bus,
    voiceOccupants,
    deps.voiceHomes ? { ...deps.voiceHomes, joined: signalVoiceJoined(shared) } : ONE_NODE,
    config.meshCaps,
    media,
  );
  // Server and channel deletes, and a ban's recent messages, finish in the background in batches.
  const deletions = new Deletions(store, uploads, bus, deps.log, shared, { ...DELETION_DEFAULTS, batchRows: config.deleteBatchRows });
  const servers = new Servers(store, access, audit, members, twoFactor, uploads, bus, liveState, deletions, config.caps);
  const channels = new Channels(store, access, audit, members, bus, liveState, deletions, config.caps);
  const messages = new Messages(store, access, audit, uploads, bus);
  // Calling is messaging: DM calls apply the DM send rule, and leaving a group DM leaves its call
  // (a DmListener of Dms, which DmCalls itself uses: registered once here).
  const dmListeners: DmListener[] = [];
  const dms = new Dms(store, uploads, bus, dmListeners, config.caps);
  const dmCalls = new DmCalls(store, bus, dms, deps.callRecords);
  // In cluster mode voice rooms and calls live on one node each: changes reach every node.
  const everywhere = onEveryNode(voice, dmCalls, shared, deps.log);
  liveState.push(everywhere.voice);
  dmListeners.push(everywhere.calls);
  const botMembership = new BotMembership(store, access, audit, members, bus, config.caps);

  return {
    // accounts
    accounts,
    twoFactor,
    users,
    notificationOverrides: new NotificationOverrides(store, access, bus),
    presence,
    privacy,
    customStatuses,
    friends: new Friends(store, bus, privacy),
    uploads,
    // access
    access,
    audit,
    // community
    members,
    servers,
    channels,
    roles: new Roles(store, access, audit, members, bus, config.caps, config.largeServerMembers),
    invites: new Invites(store, access, audit, members, servers, config.caps, config.largeServerMembers),
    moderation: new Moderation(store, access, audit, members, bus, deletions),
    deletions,
    emojis: new Emojis(store, access, audit, uploads),
    serverGifs: new ServerGifs(store, access, uploads),
    // messaging
    messages,
    readStates: new ReadStates(store, access, bus),
    messageUploads: new MessageUploads(store, access, messages, uploads),
    reactions: new Reactions(store, access, bus, config.caps),
    pins: new Pins(store, access, audit, messages, bus),
    webhooks: new Webhooks(store, access, messages, shared, config.caps),
    gifs: new Gifs(store, config.gifProvider ? new GifProviderClient(config.gifProvider, deps.log) : null),
    // direct messages
    dms,
    dmCalls,
    /** A device connected: the calls ringing for its user ring on it, whichever node holds them. */
    callRings: { socketConnected: everywhere.calls.socketConnected },
    // bots
    applications: new Applications(store, tokens, twoFactor, settings, uploads, bus, botMembership, config.caps),
    botMembership,
    botRest: new BotRest(messages, dms, channels, members, presence, users),
    commands: new Commands(store, access),
    interactions: new Interactions(store, access, messages, bus),
    // voice
    voice,
    /** Janus's rooms when JANUS_URL is set (its health checks start and stop with the app). */
    media,
    voiceOccupants,
    soundboard: new Soundboard(store, access, audit, uploads, bus, voice, shared, config.soundboardPlayRate),
    // public facts about the instance
    discovery: new Discovery(store, settings, config.largeServerMembers, {
      kinds: Object.fromEntries(Object.entries(config.gatewayEventLimits).map(([kind, limit]) => [kind, { per_second: limit.perSecond, burst: limit.burst }])),
      user_factor: config.gatewayUserRateFactor,
    }),
    // platform administration
    admins,
    platformSettings: settings,
    adminUsers,
    adminServers: new AdminServers(store, admins),
    generalSettings: new GeneralSettings(settings, admins),
    reports: new Reports(store, access, admins, adminUsers, messages, dms, shared),
    ai: createAi({ store, settings, admins, files: uploads.files, checkImage: (bytes) => uploads.checkImage(bytes), providerTimeoutMs: config.aiProviderTimeoutMs, log: deps.log }),
  };
}
