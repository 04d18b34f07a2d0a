import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  recordEvents,
  startServer,
  waitForDisconnect,
  waitForEvent,
  type ClientSocket,
  type TestServer,
} from "../helpers/server.ts";
import { eventually, quietWindow } from "../helpers/wait.ts";
import { addMember, createServer } from "../helpers/community.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const statusOf = async (token: string, id: string) => (await server.api("GET", `/api/v1/users/${id}`, { token })).body.status;


describe("handshake", () => {
  test.each([["websocket"], ["polling"]] as const)("a valid token connects over %s", async (transport) => {
    const user = await server.register();
    const socket = await server.connect(user.token, { transports: [transport] });
    expect(socket.connected).toBe(true);
    expect(socket.io.engine.transport.name).toBe(transport);
    socket.close();
  });

  test.each([
    ["no token", undefined],
    ["a garbage token", "garbage"],
    ["an empty token", ""],
  ])("%s fails with connect_error Unauthorized", async (_name, token) => {
    const error = await server.connect(token).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toBe("Unauthorized");
  });

  test("a token revoked by a password change cannot connect", async () => {
    const user = await server.register();
    const changed = await server.api("PUT", "/api/v1/users/me/password", {
      token: user.token,
      body: { currentPassword: user.password, newPassword: "a brand new password" },
    });
    expect(changed.status).toBe(200);
    const error = await server.connect(user.token).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toBe("Unauthorized");
    const fresh = await server.connect(changed.body.token);
    expect(fresh.connected).toBe(true);
    fresh.close();
  });

  test("a password change disconnects the account's open sockets, and only those", async () => {
    const user = await server.register();
    const other = await server.register();
    const mine = [await server.connect(user.token), await server.connect(user.token, { transports: ["polling"] })];
    const theirs = await server.connect(other.token);
    const disconnected = mine.map((socket) => waitForDisconnect(socket));
    await server.api("PUT", "/api/v1/users/me/password", {
      token: user.token,
      body: { currentPassword: user.password, newPassword: "another new password" },
    });
    expect(await Promise.all(disconnected)).toEqual(["io server disconnect", "io server disconnect"]);
    await quietWindow(); // another user's socket stays
    expect(theirs.connected).toBe(true);
    theirs.close();
  });
});

describe("presence", () => {
  test("online while connected, offline once the last socket closes", async () => {
    const user = await server.register();
    // A server-mate: presence is shown to friends and people who share a server (docs/users.md).
    const watcher = await server.register();
    const serverId = await createServer(server, user);
    await addMember(server, serverId, watcher);
    expect(await statusOf(watcher.token, user.id)).toBe("offline");
    const first = await server.connect(user.token);
    const second = await server.connect(user.token, { transports: ["polling"] });
    await eventually(async () => (await statusOf(watcher.token, user.id)) === "online", "status online");
    first.close();
    await eventually(async () => (await server.app.io.in(`user:${user.id}`).fetchSockets()).length === 1, "the server to see the first socket close");
    expect(await statusOf(watcher.token, user.id)).toBe("online");
    const started = Date.now();
    second.close();
    await eventually(async () => (await statusOf(watcher.token, user.id)) === "offline", "offline once the last socket closes", { timeoutMs: 3000 });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test("status:set acks, announces user:status to the user's room, and is remembered", async () => {
    const user = await server.register();
    const stranger = await server.register();
    const socket = await server.connect(user.token);
    const otherDevice = await server.connect(user.token);
    const strangerSocket = await server.connect(stranger.token);
    const strangerSaw = recordEvents(strangerSocket, "user:status");
    await eventually(async () => (await statusOf(user.token, user.id)) === "online", "status online");

    const announced = waitForEvent(otherDevice, "user:status", { filter: (p) => p.status === "dnd" });
    const ack = await socket.emitWithAck("status:set", { status: "dnd" });
    expect(ack).toEqual({ ok: true, status: "dnd" });
    expect(await announced).toEqual({ userId: user.id, status: "dnd" });
    expect(await statusOf(user.token, user.id)).toBe("dnd");
    // A stranger (no friendship, no shared server) is shown offline (docs/users.md#presence-privacy).
    expect(await statusOf(stranger.token, user.id)).toBe("offline");

    // The choice survives reconnecting.
    socket.close();
    otherDevice.close();
    await eventually(async () => (await statusOf(user.token, user.id)) === "offline", "status offline");
    const back = await server.connect(user.token);
    await eventually(async () => (await statusOf(user.token, user.id)) === "dnd", "status dnd");

    // Invisible: offline while connected.
    const invisible = waitForEvent(back, "user:status", { filter: (p) => p.status === "offline" });
    expect(await back.emitWithAck("status:set", { status: "offline" })).toEqual({ ok: true, status: "offline" });
    await invisible;
    expect(await statusOf(user.token, user.id)).toBe("offline");
    expect(await back.emitWithAck("status:set", { status: "idle" })).toEqual({ ok: true, status: "idle" });
    expect(await statusOf(user.token, user.id)).toBe("idle");
    expect(await statusOf(stranger.token, user.id)).toBe("offline");

    // Presence goes to the rooms that should see it: so far, only the user's own.
    expect(strangerSaw.filter((p) => p.userId === user.id)).toEqual([]);
    back.close();
    strangerSocket.close();
  });

  test.each([
    ["an unknown status", { status: "busy" }, "status: must be one of online, idle, dnd, offline"],
    ["a number", { status: 1 }, "status: must be one of online, idle, dnd, offline"],
    ["no payload", undefined, "payload: must be an object"],
    ["a string", "online", "payload: must be an object"],
  ])("status:set with %s acks {ok: false, error}", async (_name, payload, error) => {
    const user = await server.register();
    const socket: ClientSocket = await server.connect(user.token);
    const ack = payload === undefined ? await socket.emitWithAck("status:set") : await socket.emitWithAck("status:set", payload);
    expect(ack).toEqual({ ok: false, error });
    expect(socket.connected).toBe(true);
    socket.close();
  });

  test("a status:set sent the moment a socket connects is what stays shown (the connect's own update comes first)", async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => server.register()));
    const sockets = await Promise.all(users.map((user) => server.connect(user.token)));
    // No wait for the connect's presence update: the event races it on the server.
    const acks = await Promise.all(sockets.map((socket) => socket.emitWithAck("status:set", { status: "dnd" })));
    expect(acks).toEqual(users.map(() => ({ ok: true, status: "dnd" })));
    await quietWindow(100);
    expect(await Promise.all(users.map((user) => statusOf(user.token, user.id)))).toEqual(users.map(() => "dnd"));
    for (const socket of sockets) socket.close();
  });

  test("status:set without an ack callback still applies", async () => {
    const user = await server.register();
    const socket = await server.connect(user.token);
    await eventually(async () => (await statusOf(user.token, user.id)) === "online", "status online");
    socket.emit("status:set", { status: "idle" });
    await eventually(async () => (await statusOf(user.token, user.id)) === "idle", "status idle");
    socket.close();
  });
});
