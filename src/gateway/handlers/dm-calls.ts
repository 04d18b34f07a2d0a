import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/errors.ts";
import type { Logger } from "../../log.ts";
import { onClientEvent } from "../ack.ts";
import type { GatewaySocket } from "../gateway.ts";

const fields = (payload: unknown, shape: string): Record<string, unknown> => {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) throw badRequest(`payload: must be an object ${shape}`);
  return payload as Record<string, unknown>;
};

/**
 * DM calls, signaling only (docs/dm-calls.md): `dm:call-start {conversationId}`,
 * `dm:call-accept` / `dm:call-decline` / `dm:call-end {callId}`, and
 * `dm:call-signal {callId, to, ...payload}` relayed to that participant's call socket.
 * Refusals answer through the ack. A socket that goes away leaves the calls it joined.
 */
export function registerDmCallEvents(socket: GatewaySocket, domain: Domain, log: Logger): void {
  const { userId } = socket.data;
  const calls = domain.dmCalls;

  onClientEvent(socket, "dm:call-start", log, async (payload) => {
    const { conversationId } = fields(payload, "{conversationId}");
    const user = await domain.users.get(userId);
    return calls.start({ id: user.id, username: user.username, avatar: user.avatar }, socket.id, conversationId);
  });
  onClientEvent(socket, "dm:call-accept", log, (payload) => calls.accept(userId, socket.id, fields(payload, "{callId}").callId));
  onClientEvent(socket, "dm:call-decline", log, (payload) => calls.decline(userId, fields(payload, "{callId}").callId));
  onClientEvent(socket, "dm:call-end", log, (payload) => calls.end(userId, fields(payload, "{callId}").callId));
  onClientEvent(socket, "dm:call-signal", log, (payload) => {
    const { callId, to, ...signal } = fields(payload, "{callId, to, ...}");
    return calls.signal(userId, callId, to, signal);
  });

  socket.on("disconnect", () => calls.socketDisconnected(userId, socket.id));
}
