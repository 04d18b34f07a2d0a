/**
 * Display names with NUL, other control, line-separator and bidi-override characters (issue 14,
 * point 13), and with zero-width characters, fillers and towers of combining marks (issue 39,
 * point 9): every kind of name is stored and shown normalised (docs/README.md#display-names);
 * a name of nothing visible is 400 naming the field; real names in other scripts and emoji
 * sequences survive.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBot } from "../helpers/bots.ts";
import { community } from "../helpers/community.ts";
import { startServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
let owner: TestUser;
let serverId: string;
let channelId: string;
let friends: TestUser[];
beforeAll(async () => {
  server = await startServer();
  const c = await community(server);
  // The first account registered is the platform administrator (AI keys).
  owner = c.owner;
  serverId = c.serverId;
  channelId = c.channelId;
  friends = [c.member, await server.register()];
  await server.app.store.members.add(serverId, friends[1]!.id, "member");
});
afterAll(() => server.stop());

/** What a client sent, and what must be stored and shown. */
const DIRTY = "\u0000\u202e Ni\u200bce\u0007 \u2066Na\u200dm\u2060e\ufeff\u2069\u200f\u2028\u3164\u2800 ";
const CLEAN = "Nice Name";
const ONLY_UNPRINTABLE = "\u0000\u202e\u2066\u0007 \u200f";
/** Blank to the eye: zero-width characters, fillers, a lone combining mark (issue 39, row 13). */
const ONLY_INVISIBLE = "\u200b\u200d\u2060\ufeff\u3164\u2800\u115f\u1160\uffa0\u00ad\u0301";
/** A name in other scripts with an emoji ZWJ sequence: kept as typed. */
const REAL = "👨\u200d👩\u200d👧 नमस्ते می\u200cخواهم";

const WAV = new Uint8Array([..."RIFF"].map((c) => c.charCodeAt(0)).concat([36, 0, 0, 0], [..."WAVEfmt "].map((c) => c.charCodeAt(0))));

interface NameCase {
  kind: string;
  /** Sends `name` and answers the name as stored, read back where clients read it. */
  send(name: string): Promise<{ status: number; body: any }>;
  field: string;
  /** The name as shown in the answer. */
  pick(body: any): unknown;
  /** Whether an all-unprintable name is refused (400 naming `field`); names that may be empty clear instead. */
  required: boolean;
}

/** A connected bot (the activity lives only while it is) sets its presence. */
async function botPresence(activity: Record<string, unknown>) {
  const bot = await createBot(server, owner);
  const socket = await server.connect(bot.token);
  try {
    return await server.api("PUT", "/api/v1/oauth2/bot/presence", { token: bot.token, body: { status: "online", activity } });
  } finally {
    socket.close();
  }
}

const cases: NameCase[] = [
  {
    kind: "server name",
    send: (name) => server.api("POST", "/api/v1/servers", { token: owner.token, body: { name } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "voice channel name",
    send: (name) => server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name, type: "voice" } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "category name",
    send: (name) => server.api("POST", `/api/v1/channels/${serverId}/categories`, { token: owner.token, body: { name } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "role name",
    send: (name) => server.api("POST", `/api/v1/roles/${serverId}`, { token: owner.token, body: { name } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "webhook name",
    send: (name) => server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "webhook message username",
    send: async (username) => {
      const hook = await server.api("POST", `/api/v1/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "Hook" } });
      return server.api("POST", `/api/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { body: { content: "hi", username } });
    },
    field: "username",
    pick: (b) => b.username,
    required: true,
  },
  {
    kind: "application name",
    send: (name) => server.api("POST", "/api/v1/oauth2/applications", { token: owner.token, body: { name, description: "d" } }),
    field: "name",
    pick: (b) => b.application.name,
    required: true,
  },
  {
    kind: "group DM name",
    send: (name) => server.api("POST", "/api/v1/dm/groups", { token: owner.token, body: { name, member_ids: friends.map((f) => f.id) } }),
    field: "name",
    pick: (b) => b.name,
    required: false,
  },
  {
    kind: "slash command choice name",
    send: async (name) => {
      const bot = await createBot(server, owner);
      const options = [{ name: "pick", type: "string", choices: [{ name, value: "v" }] }];
      return server.api("POST", "/api/v1/oauth2/commands", { token: bot.token, body: [{ name: "choose", options }] });
    },
    field: "0.options.0.choices.0.name",
    pick: (b) => b[0].options[0].choices[0].name,
    required: true,
  },
  {
    kind: "connection name",
    send: (name) => server.api("POST", "/api/v1/users/me/connections", { token: owner.token, body: { type: "github", name } }),
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "soundboard sound name",
    send: (name) => {
      const form = new FormData();
      form.append("sound", new File([WAV], "clip.wav"));
      form.append("name", name);
      return server.api("POST", `/api/v1/servers/${serverId}/soundboard`, { token: owner.token, raw: form });
    },
    field: "name",
    pick: (b) => b.name,
    required: true,
  },
  {
    kind: "AI provider key name",
    send: (name) =>
      server.api("POST", "/api/v1/admin/ai/keys", {
        token: owner.token,
        body: { name, base_url: "http://127.0.0.1:9/v1", models: [{ id: "m1", name }] },
      }),
    field: "name",
    pick: (b) => [b.name, b.models[0].name],
    required: true,
  },
  {
    kind: "bot activity name",
    send: (name) => botPresence({ type: "playing", name }),
    field: "activity.name",
    pick: (b) => b.activity.name,
    required: true,
  },
];

describe.each(cases)("$kind", (c) => {
  test("control and bidi characters are stripped before it is stored", async () => {
    const res = await c.send(DIRTY);
    expect(res.status).toBeLessThan(300);
    const shown = c.pick(res.body);
    if (Array.isArray(shown)) for (const name of shown) expect(name).toBe(CLEAN);
    else expect(shown).toBe(CLEAN);
  });

  test("a name of nothing but such characters is 400 naming the field", async () => {
    const res = await c.send(ONLY_UNPRINTABLE);
    expect(res.status).toBe(400);
    expect(res.body.error).toStartWith(`${c.field}: `);
  });

  test("a name blank to the eye (zero-width characters, fillers, a lone mark) is 400: must contain visible characters", async () => {
    const res = await c.send(ONLY_INVISIBLE);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`${c.field}: must contain visible characters`);
  });

  test("a name in other scripts with an emoji ZWJ sequence is kept as typed", async () => {
    const res = await c.send(REAL);
    expect(res.status).toBeLessThan(300);
    const shown = c.pick(res.body);
    if (Array.isArray(shown)) for (const name of shown) expect(name).toBe(REAL);
    else expect(shown).toBe(REAL);
  });

  test("a tower of combining marks is cut to 4 per character", async () => {
    const res = await c.send(`Z${"\u0336".repeat(40)}algo`);
    expect(res.status).toBeLessThan(300);
    const shown = c.pick(res.body);
    for (const name of Array.isArray(shown) ? shown : [shown]) expect(name).toBe(`Z${"\u0336".repeat(4)}algo`);
  });

  if (!c.required) {
    test("an empty name clears it", async () => {
      const res = await c.send("");
      expect(res.status).toBeLessThan(300);
      expect(c.pick(res.body)).toBeNull();
    });
  }
});

test("a bot's activity details and state are cleaned too", async () => {
  const res = await botPresence({ type: "playing", name: "game", details: "a\u0000b\u202ec", state: "\u2066x\u2069" });
  expect(res.status).toBe(200);
  expect(res.body.activity).toMatchObject({ details: "abc", state: "x" });
});

test("stored rows hold no control or bidi character in any name", async () => {
  const names = [
    ...(await server.app.store.channels.listByServer(serverId)).map((row) => row.name),
    ...(await server.app.store.webhooks.listByChannel(channelId)).map((row) => row.name),
  ];
  for (const name of names) expect(name).not.toMatch(/[\p{Cc}\u202a-\u202e\u2066-\u2069\u200e\u200f\u2028]/u);
});

test("a text channel's name is normalised before its Discord-style lowercasing; nothing visible is 400", async () => {
  const create = (name: string) => server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name, type: "text" } });
  const made = await create(DIRTY);
  expect(made.status).toBe(201);
  expect(made.body.name).toBe("nice-name");
  expect((await create(ONLY_INVISIBLE)).body).toEqual({ error: "name: must contain visible characters" });
});

test("a sound named after its file: a stem with nothing visible falls back to `sound`", async () => {
  const form = new FormData();
  form.append("sound", new File([WAV], "\u200b\u3164\u2800.wav"));
  const res = await server.api("POST", `/api/v1/servers/${serverId}/soundboard`, { token: owner.token, raw: form });
  expect(res.status).toBe(201);
  expect(res.body.name).toBe("sound");
});
