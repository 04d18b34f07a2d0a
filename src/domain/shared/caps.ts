import { badRequest, type ApiError } from "./errors.ts";

/**
 * How many of a thing one server, channel, message or user may hold: caps a host may change
 * (src/config.ts reads them from MAX_* variables; docs/operations.md, "Caps"). Each is checked
 * inside the store transaction that inserts the thing, so concurrent creates never overshoot.
 */
export interface ResourceCaps {
  /** Channels and categories together (docs/channels.md). */
  channelsPerServer: number;
  /** Every role but `@everyone`, bots' managed roles included (docs/roles.md). */
  rolesPerServer: number;
  /** Live invites only: expired and used-up ones do not count (docs/invites.md). */
  invitesPerServer: number;
  webhooksPerChannel: number;
  /** Distinct emojis on one message; another user's reaction with one already there is always allowed (docs/reactions-pins.md). */
  reactionsPerMessage: number;
  /** Servers a person belongs to, owned ones included (docs/servers.md). */
  serversPerUser: number;
  /** Servers a bot belongs to: bots serve many communities, so theirs is larger (docs/applications.md). */
  serversPerBot: number;
  applicationsPerUser: number;
  /** Group DMs a user is a member of (1:1 DMs are not capped; docs/dms.md). */
  groupDmsPerUser: number;
}

export const DEFAULT_CAPS: ResourceCaps = {
  channelsPerServer: 500,
  rolesPerServer: 250,
  invitesPerServer: 1000,
  webhooksPerChannel: 15,
  reactionsPerMessage: 20,
  serversPerUser: 200,
  serversPerBot: 10_000,
  applicationsPerUser: 25,
  groupDmsPerUser: 100,
};

/**
 * The size past which a server is large (Discord's "large guild" is 250 members): its members'
 * presence is no longer fanned out to its server room, only to the sockets that ask for it with
 * `presence:subscribe` (docs/gateway.md, "Presence"). `LARGE_SERVER_MEMBERS` changes it.
 */
export const DEFAULT_LARGE_SERVER_MEMBERS = 250;

/** The 400 answered at each cap, naming it (one wording per cap, used by every path that reaches it). */
export const capReached = {
  channels: (caps: ResourceCaps): ApiError =>
    badRequest(`This server has reached its limit of ${caps.channelsPerServer} channels and categories`),
  roles: (caps: ResourceCaps): ApiError => badRequest(`This server has reached its limit of ${caps.rolesPerServer} roles`),
  invites: (caps: ResourceCaps): ApiError =>
    badRequest(`This server has reached its limit of ${caps.invitesPerServer} active invites; delete one or let one expire`),
  webhooks: (caps: ResourceCaps): ApiError => badRequest(`This channel has reached its limit of ${caps.webhooksPerChannel} webhooks`),
  reactions: (caps: ResourceCaps): ApiError =>
    badRequest(`This message has reached its limit of ${caps.reactionsPerMessage} different reactions`),
  servers: (caps: ResourceCaps): ApiError => badRequest(`You have reached the limit of ${caps.serversPerUser} servers; leave one first`),
  botServers: (caps: ResourceCaps): ApiError => badRequest(`This bot has reached its limit of ${caps.serversPerBot} servers`),
  applications: (caps: ResourceCaps): ApiError =>
    badRequest(`You have reached the limit of ${caps.applicationsPerUser} applications; delete one first`),
  groupDms: (caps: ResourceCaps, username: string | null): ApiError =>
    badRequest(
      username === null
        ? `You have reached the limit of ${caps.groupDmsPerUser} group DMs; leave one first`
        : `${username} has reached the limit of ${caps.groupDmsPerUser} group DMs`,
    ),
};
