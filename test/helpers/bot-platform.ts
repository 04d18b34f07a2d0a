import type { TestBot } from "./bots.ts";
import type { TestServer } from "./server.ts";

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

/** The channel's stored messages, newest first. */
export async function history(server: TestServer, token: string, channelId: string): Promise<any[]> {
  const res = await server.api("GET", `/api/v1/messages/${channelId}`, { token });
  if (res.status !== 200) throw new Error(`history failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
