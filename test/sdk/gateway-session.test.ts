/**
 * The SDK's gateway as a person's page uses it (the web app does): a token asked at each
 * connection, rooms asked for while the connection is down, a Gateway that logs out and in again,
 * a first connection that keeps trying, requests refused at once while down, and where a
 * resync (`session:resync`) says to fetch from.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Gateway, HearthAckError, NOT_CONNECTED } from "../../sdk/src/client.ts";
import { idAtTime, RESYNC_MARGIN_MS } from "../../sdk/src/gateway.ts";
import { community, type Community } from "../helpers/community.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/wait.ts";

let server: TestServer;
let place: Community;

beforeAll(async () => {
  server = await startServer();
  place = await community(server);
});
afterAll(() => server.stop());

/** The unix milliseconds a UUIDv7 (a message id) was made at. */
const idTime = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);
const socketsIn = async (room: string) => (await server.app.io.in(room).fetchSockets()).length;
const reconnect = { initialDelayMs: 50, maxDelayMs: 200 };

test("rooms asked for before connecting are joined on connect; a closed Gateway connects again as a new session, token asked again, no rooms", async () => {
  let token = place.member.token;
  const gateway = new Gateway({ baseUrl: server.url, token: () => token, reconnect });
  await gateway.joinServer(place.serverId);
  await gateway.joinChannel(place.channelId);
  const ready = new Promise<void>((resolve) => gateway.on("ready", resolve));
  await gateway.connect();
  await ready;
  await eventually(async () => (await socketsIn(`server:${place.serverId}`)) === 1 && (await socketsIn(`channel:${place.channelId}`)) === 1, "the rooms to be joined");

  const closed = new Promise<{ reason: string }>((resolve) => gateway.on("closed", resolve));
  gateway.close("logged out");
  expect((await closed).reason).toBe("logged out");
  expect(gateway.rooms()).toEqual({ servers: [], channels: [] });
  await eventually(async () => (await socketsIn(`user:${place.member.id}`)) === 0, "the member's socket to close");

  token = place.owner.token;
  const readyAgain = new Promise<void>((resolve) => gateway.on("ready", resolve));
  await gateway.connect();
  await readyAgain;
  expect(await socketsIn(`user:${place.owner.id}`)).toBe(1);
  expect(await socketsIn(`server:${place.serverId}`)).toBe(0);
  gateway.close();
});

test("queueWhileDisconnected: false refuses a request at once while the connection is down", async () => {
  const gateway = new Gateway({ baseUrl: server.url, token: place.member.token, queueWhileDisconnected: false });
  const refused = await gateway.emit("server:join", place.serverId).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(HearthAckError);
  expect((refused as HearthAckError).error).toBe(NOT_CONNECTED);
  gateway.close();
});

test("retryFirstConnection keeps trying while the server cannot be reached, and a refused token still ends it", async () => {
  const away = new Gateway({ baseUrl: "http://127.0.0.1:9", token: "t", reconnect, retryFirstConnection: true });
  let settled = false;
  let failures = 0;
  away.socket.on("connect_error", () => failures++);
  away.connect().then(
    () => (settled = true),
    () => (settled = true),
  );
  await eventually(() => failures >= 3, "three failed tries");
  expect(settled).toBe(false);
  away.close();

  const refusedToken = new Gateway({ baseUrl: server.url, token: "not-a-token", reconnect, retryFirstConnection: true });
  const closed = new Promise<{ reason: string }>((resolve) => refusedToken.on("closed", resolve));
  expect(await refusedToken.connect().catch((e: unknown) => (e as Error).message)).toMatch(/Unauthorized/);
  expect((await closed).reason).toBe("Unauthorized");
});

test("a room left while the connection is down is left on return, though the resumed session still held it", async () => {
  const gateway = new Gateway({ baseUrl: server.url, token: place.member.token, reconnect: { initialDelayMs: 300, maxDelayMs: 300, jitter: 0 } });
  await gateway.connect();
  await gateway.joinChannel(place.channelId);
  const disconnected = new Promise<unknown>((resolve) => gateway.on("disconnected", resolve));
  const resumed = new Promise<{ recovered: boolean }>((resolve) => gateway.on("resumed", resolve));
  for (const socket of await server.app.io.in(`user:${place.member.id}`).fetchSockets()) (socket as unknown as { conn: { close(): void } }).conn.close();
  await disconnected;
  await gateway.leaveChannel(place.channelId);
  expect((await resumed).recovered).toBe(true);
  await eventually(async () => (await socketsIn(`channel:${place.channelId}`)) === 0, "the channel room to be left");
  expect(gateway.rooms().channels).toEqual([]);
  gateway.close();
});

test("resync: each channel's point to fetch from is its last message, or a little before the outage's start if that is earlier", async () => {
  const gateway = new Gateway({ baseUrl: server.url, token: place.member.token, reconnect });
  const resyncs: { reason: string; lastMessageIds: Record<string, string | null> }[] = [];
  gateway.on("resync", (info) => void resyncs.push(info));
  await gateway.joinChannel(place.channelId);
  await gateway.connect();
  await eventually(async () => (await socketsIn(`channel:${place.channelId}`)) === 1, "the channel room to be joined");
  const got = new Promise<{ id: string }>((resolve) => gateway.on("message:new", resolve));
  const sent = (await server.api("POST", `/api/v1/messages/${place.channelId}`, { token: place.owner.token, body: { content: "last before" } })).body;
  expect((await got).id).toBe(sent.id);
  const [socket] = await server.app.io.in(`user:${place.member.id}`).fetchSockets();
  const sentAt = Math.floor(idTime(sent.id) / 1000);

  // The outage began after the last message got: fetch from it.
  socket!.emit("session:resync", { reason: "cluster_outage", since: sentAt + 60 });
  // It began before (this node's messages of the outage came, others' did not): from before its start.
  socket!.emit("session:resync", { reason: "cluster_outage", since: sentAt - 60 });
  await eventually(() => resyncs.length === 2, "both resyncs");
  expect(resyncs[0]).toEqual({ reason: "cluster_outage", lastMessageIds: { [place.channelId]: sent.id } });
  const from = resyncs[1]!.lastMessageIds[place.channelId]!;
  expect(from).toBe(idAtTime((sentAt - 60) * 1000 - RESYNC_MARGIN_MS));
  expect(idTime(from)).toBe((sentAt - 60) * 1000 - RESYNC_MARGIN_MS);
  // A message id sorts after it; the listing from it brings the last message again.
  const page = (await server.api("GET", `/api/v1/messages/${place.channelId}?after=${from}&limit=100`, { token: place.member.token })).body as { id: string }[];
  expect(page.map((m) => m.id)).toContain(sent.id);
  gateway.close("done");
});
