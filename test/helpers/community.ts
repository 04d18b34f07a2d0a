import { expect } from "bun:test";
import { addBot, type TestBot } from "./bots.ts";
import type { ClientSocket, TestServer, TestUser } from "./server.ts";

/** Creates a server owned by `owner` and returns its id. */
export async function createServer(server: TestServer, owner: TestUser, name = "Test Server"): Promise<string> {
  const res = await server.api("POST", "/api/v1/servers", { token: owner.token, body: { name } });
  if (res.status !== 201) throw new Error(`create server failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Makes `user` a member, straight through the store (join routes have their own tests). */
export async function addMember(server: TestServer, serverId: string, user: TestUser, role: "member" | "moderator" | "admin" = "member") {
  await server.app.store.members.add(serverId, user.id, role);
}

/** Fields of a voice channel besides its type; "Lounge" unless `name` says otherwise. */
export interface VoiceChannelFields {
  name?: string;
  chat_enabled?: boolean;
  is_meeting?: boolean;
  category_id?: string;
}

/** Creates a voice channel in `serverId` as `owner` (over REST) and returns its id. */
export async function createVoiceChannel(server: TestServer, owner: { token: string }, serverId: string, fields: VoiceChannelFields = {}): Promise<string> {
  const res = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice", ...fields } });
  if (res.status !== 201) throw new Error(`create voice channel failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** A connected socket of `user` that has joined `channelId`'s room (`channel:join` acked). */
export async function joinChannel(server: TestServer, user: { token: string }, channelId: string): Promise<ClientSocket> {
  const socket = await server.connect(user.token);
  expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
  return socket;
}

/** The server's audit entries from the store, newest first, `changes` parsed; only `action`'s when given. */
export async function auditEntries(server: TestServer, serverId: string, action?: string) {
  const { rows } = await server.app.store.audit.page(serverId, Number.MAX_SAFE_INTEGER, 100);
  return rows
    .filter((row) => action === undefined || row.action === action)
    .map((row) => ({ ...row, changes: JSON.parse(row.changes) as Record<string, any> }));
}

/**
 * The server's audit entries as `GET /servers/:id/audit-log` answers `viewer` (the route's own
 * shape), newest first; only `action`'s when given.
 */
export async function auditLog(server: TestServer, serverId: string, viewer: { token: string }, action?: string): Promise<any[]> {
  const res = await server.api("GET", `/api/v1/servers/${serverId}/audit-log`, { token: viewer.token });
  expect(res.status).toBe(200);
  return (res.body.entries as any[]).filter((entry) => action === undefined || entry.action === action);
}

interface CommunityOptions {
  /** Users to use instead of new ones (a file that registers its users once). */
  owner?: TestUser;
  member?: TestUser;
  outsider?: TestUser;
  /** Plain members besides `member`: `members` lists `member` and these. */
  extraMembers?: number;
  /** A member with the built-in moderator role, in `moderator`. */
  moderator?: true | TestUser;
  /** A member with the built-in admin role, in `admin`. */
  admin?: true | TestUser;
  /** A voice channel ("Lounge", or these fields), its id in `voiceId`. */
  voice?: true | VoiceChannelFields;
  /** A bot of the owner's application, added to the server with the default permissions, in `bot`. */
  bot?: true;
  /** The server's name. */
  name?: string;
}

export interface Community {
  owner: TestUser;
  /** A plain member. */
  member: TestUser;
  /** `member` and the `extraMembers`. */
  members: TestUser[];
  /** Registered, but not in the server. */
  outsider: TestUser;
  serverId: string;
  /** The server's `general` text channel. */
  channelId: string;
  /** The server's @everyone role. */
  everyone: string;
}

/** What an option adds to the fixture, typed only when it was asked for. */
type Added<O extends CommunityOptions> = (O extends { voice: true | VoiceChannelFields } ? { voiceId: string } : unknown) &
  (O extends { bot: true } ? { bot: TestBot } : unknown) &
  (O extends { moderator: true | TestUser } ? { moderator: TestUser } : unknown) &
  (O extends { admin: true | TestUser } ? { admin: TestUser } : unknown);

/**
 * The one community fixture: a fresh server owned by `owner`, with `member` as a plain member
 * and `outsider` registered but not in it; `channelId` is its `general` text channel,
 * `everyone` its @everyone role. Options add members, a moderator or admin, a voice channel
 * and a bot (see CommunityOptions).
 */
export async function community<O extends CommunityOptions = {}>(server: TestServer, options: O = {} as O): Promise<Community & Added<O>> {
  const owner = options.owner ?? (await server.register());
  const member = options.member ?? (await server.register());
  const outsider = options.outsider ?? (await server.register());
  const serverId = await createServer(server, owner, options.name);
  await addMember(server, serverId, member);
  const members = [member];
  for (let i = 0; i < (options.extraMembers ?? 0); i++) {
    const extra = await server.register();
    await addMember(server, serverId, extra);
    members.push(extra);
  }
  const [general] = await server.app.store.channels.listByServer(serverId);
  const everyone = (await server.app.store.access.member(serverId, owner.id))!.everyone_id;
  const fixture: Record<string, unknown> = { owner, member, members, outsider, serverId, channelId: general!.id, everyone };
  for (const role of ["moderator", "admin"] as const) {
    const wanted = options[role];
    if (wanted === undefined) continue;
    const user = wanted === true ? await server.register() : wanted;
    await addMember(server, serverId, user, role);
    fixture[role] = user;
  }
  if (options.voice) fixture.voiceId = await createVoiceChannel(server, owner, serverId, options.voice === true ? {} : options.voice);
  if (options.bot) fixture.bot = await addBot(server, owner, serverId);
  return fixture as Community & Added<O>;
}
