import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";

/**
 * A socket.io-client socket that asked to resume (`auth.resume: true`), connected to `url`, with
 * reconnection off: a test drops it with `drop()` and brings it back with `reconnect()`, so the
 * gap is under the test's control. Rejects with the connect_error message.
 */
export function connectResumable(url: string, token: string, transports: ("websocket" | "polling")[] = ["websocket"]): Promise<ClientSocket> {
  const socket = connectClient(url, { auth: { token, resume: true }, transports, reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", (error) => reject(error));
  });
}

/** Loses the connection without a clean Socket.IO disconnect (the transport closes under it). */
export async function drop(socket: ClientSocket): Promise<void> {
  const gone = new Promise<void>((resolve) => socket.once("disconnect", () => resolve()));
  socket.io.engine.close();
  await gone;
}

/** Connects again (to `url` when given: another node), resolving once connected, or rejecting with the connect_error. */
export function reconnect(socket: ClientSocket, url?: string): Promise<ClientSocket> {
  // The manager parses its `uri` again on each open.
  if (url) (socket.io as unknown as { uri: string }).uri = url;
  return new Promise((resolve, reject) => {
    const onConnect = () => {
      socket.off("connect_error", onError);
      resolve(socket);
    };
    const onError = (error: Error) => {
      socket.off("connect", onConnect);
      reject(error);
    };
    socket.once("connect", onConnect);
    socket.once("connect_error", onError);
    socket.connect();
  });
}

/** Every event's arguments as received (the payload, then the offset when the client resumes). */
export function recordArgs(socket: ClientSocket): [string, unknown[]][] {
  const seen: [string, unknown[]][] = [];
  socket.onAny((event: string, ...args: unknown[]) => seen.push([event, args]));
  return seen;
}
