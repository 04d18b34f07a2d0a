/**
 * Examples for the reference's main operations (accounts, servers, channels, messages, bots),
 * by operationId: a request body and/or the success answer, as a real server sends them (taken
 * from one, with readable values). One small world: alice owns "Dice night", whose
 * #announcements has her message and one of her bot Dice's. src/reference/openapi.ts puts them
 * in the document (`example` of the JSON media types) and refuses one it cannot place;
 * test/http/reference-lint.test.ts validates every example against its own schema.
 */

const ALICE = "01a23ade-f2da-716a-9da2-a466e05d7d1c";
const SERVER = "01a23ade-f5f0-76b9-82fc-8587b98896ee";
const GENERAL = "01a23ade-f5f1-70bc-bf79-7285363a4d75";
const ANNOUNCEMENTS = "01a23ade-f64b-7743-baa9-38dd9fd46a95";
const APP = "01a23ade-f6c0-7211-9241-9875e559149f";
const DICE = "01a23ade-f6c0-7210-bccc-2e19ec1a51ed";
const CREATED = 1796284020;
/** A token's shape (header.payload.signature); not a working token. */
const TOKEN = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMWEyM2FkZS1mMmRhLTcxNmEtOWRhMi1hNDY2ZTA1ZDdkMWMifQ.c2lnbmF0dXJl";

const me = {
  id: ALICE,
  username: "alice",
  email: "alice@example.com",
  avatar: null,
  banner: null,
  banner_offset: 0,
  bio: "",
  status: "offline",
  custom_status: null,
  is_bot: 0,
  two_factor_enabled: false,
  premium: false,
  platform_admin: false,
  created_at: CREATED,
};
const session = { token: TOKEN, user: me };

const server = {
  id: SERVER,
  name: "Dice night",
  description: "Board games on Fridays",
  icon: null,
  banner: null,
  banner_offset: 0,
  owner_id: ALICE,
  vanity_code: null,
  verified: false,
  settings: { system_channel_id: null, default_notifications: "all", welcome_message: "" },
  member_count: 1,
  created_at: CREATED,
  updated_at: CREATED,
};

const channel = (id: string, name: string, position: number) => ({
  id,
  server_id: SERVER,
  name,
  type: "text",
  category_id: null,
  position,
  topic: null,
  slowmode: 0,
  nsfw: false,
  is_meeting: false,
  chat_enabled: false,
});

const message = {
  id: "01a23ade-f680-77d7-afa2-b8b18bb98e07",
  channel_id: ANNOUNCEMENTS,
  user_id: ALICE,
  content: "Game starts at **8 pm**",
  created_at: CREATED,
  updated_at: null,
  username: "alice",
  avatar: null,
  is_bot: 0,
  embeds: [],
  attachments: [],
  reply_to: null,
  nonce: "42",
};
const botMessage = {
  id: "01a23adf-3420-779f-b2df-e8c33110d375",
  channel_id: ANNOUNCEMENTS,
  user_id: DICE,
  content: "You rolled",
  created_at: CREATED + 16,
  updated_at: null,
  username: "Dice",
  avatar: null,
  is_bot: 1,
  embeds: [{ title: "🎲 17", description: "d20", color: "#5865F2" }],
  attachments: [],
  reply_to: null,
};

const application = {
  id: APP,
  name: "Dice",
  description: "Rolls dice",
  bot_user_id: DICE,
  client_secret: "ec8963edeb0812696792ffcdc4b2b0a4c2e9b359f6e01972d7e28ddc8b96f049",
  default_permissions: 8895488,
  invite_permission_locked: false,
  public_invite: true,
  avatar: null,
  banner: null,
  banner_offset: 0,
  owner_id: ALICE,
  created_at: CREATED,
  updated_at: CREATED,
};

export interface OperationExample {
  /** The JSON request body. */
  body?: unknown;
  /** The first success status's JSON answer. */
  response?: unknown;
}

export const EXAMPLES: Record<string, OperationExample> = {
  register: { body: { username: "alice", email: "alice@example.com", password: "correct horse battery" }, response: session },
  login: { body: { login: "alice", password: "correct horse battery" }, response: session },
  getMe: { response: me },
  createServer: { body: { name: "Dice night", description: "Board games on Fridays" }, response: server },
  getServer: { response: server },
  listChannels: { response: { channels: [channel(GENERAL, "general", 0), channel(ANNOUNCEMENTS, "announcements", 1)], categories: [] } },
  createChannel: { body: { name: "announcements", type: "text" }, response: channel(ANNOUNCEMENTS, "announcements", 1) },
  getChannel: { response: channel(ANNOUNCEMENTS, "announcements", 1) },
  sendMessage: { body: { content: "Game starts at **8 pm**", nonce: "42" }, response: message },
  listMessages: { response: [botMessage, message] },
  editMessage: { body: { content: "Game starts at **9 pm**" } },
  createApplication: { body: { name: "Dice", description: "Rolls dice" }, response: { application, bot_token: TOKEN } },
  getApplication: { response: application },
  botSendMessage: { body: { content: "You rolled", embeds: [{ title: "🎲 17", description: "d20", color: "#5865F2" }] }, response: botMessage },
  botListMessages: { response: [botMessage, message] },
};
