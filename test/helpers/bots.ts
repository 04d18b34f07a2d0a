import type { TestServer, TestUser } from "./server.ts";

export interface TestBot {
  appId: string;
  botUserId: string;
  token: string;
  name: string;
  application: Record<string, unknown>;
}

/** Creates an application (and its bot user) owned by `owner`. */
export async function createBot(server: TestServer, owner: TestUser, name = `Bot${Math.random().toString(36).slice(2, 8)}`): Promise<TestBot> {
  const res = await server.api("POST", "/api/v1/oauth2/applications", {
    token: owner.token,
    body: { name, description: `${name} does things` },
  });
  if (res.status !== 201) throw new Error(`create application failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { appId: res.body.application.id, botUserId: res.body.application.bot_user_id, token: res.body.bot_token, name, application: res.body.application };
}

/** A new bot of `owner`'s, added to the server (it gets the default role's permissions). */
export async function addBot(server: TestServer, owner: TestUser, serverId: string, name?: string): Promise<TestBot> {
  const bot = await createBot(server, owner, name);
  const res = await server.api("POST", `/api/v1/oauth2/applications/${bot.appId}/servers/${serverId}`, { token: owner.token, body: {} });
  if (res.status >= 300) throw new Error(`add bot failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bot;
}
