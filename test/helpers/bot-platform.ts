import { createBot, type TestBot } from "./bots.ts";
import { addMember, createServer } from "./community.ts";
import type { ClientSocket, TestServer, TestUser } from "./server.ts";

/** An owner's server with one plain member; `channelId` is its `general` text channel. */
export async function community(server: TestServer) {
  const owner = await server.register();
  const member = await server.register();
  const serverId = await createServer(server, owner);
  await addMember(server, serverId, member);
  const [general] = await server.app.store.channels.listByServer(serverId);
  return { owner, member, serverId, channelId: general!.id };
}

/** A new bot of `owner`'s, added to the server (it gets the default role's permissions). */
export async function addBot(server: TestServer, owner: TestUser, serverId: string, name?: string): Promise<TestBot> {
  const bot = await createBot(server, owner, name);
  const res = await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: {} });
  if (res.status >= 300) throw new Error(`add bot failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bot;
}

/** Replaces the bot's global commands (POST /api/v1/oauth2/commands with the bot token). */
export async function registerCommands(server: TestServer, bot: TestBot, commands: unknown[]) {
  const res = await server.api("POST", "/api/v1/oauth2/commands", { token: bot.token, body: commands });
  if (res.status >= 300) throw new Error(`register commands failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Sends a channel message as `user` over REST. */
export function say(server: TestServer, user: { token: string }, channelId: string, content: string, extra: Record<string, unknown> = {}) {
  return server.api("POST", `/api/v1/messages/${channelId}`, { token: user.token, body: { content, ...extra } });
}

/** A connected socket that has joined `channelId`. */
export async function joinedSocket(server: TestServer, token: string, channelId: string): Promise<ClientSocket> {
  const socket = await server.connect(token);
  const ack = await socket.emitWithAck("channel:join", channelId);
  if (!ack.ok) throw new Error(`channel:join failed: ${ack.error}`);
  return socket;
}

/** The channel's stored messages, newest first. */
export async function history(server: TestServer, token: string, channelId: string): Promise<any[]> {
  const res = await server.api("GET", `/api/v1/messages/${channelId}`, { token });
  if (res.status !== 200) throw new Error(`history failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
