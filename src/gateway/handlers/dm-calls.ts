import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import type { ClientEventTable } from "../ack.ts";

const fields = (payload: unknown, shape: string): Record<string, unknown> => {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) throw badRequest(`payload: must be an object ${shape}`);
  return payload as Record<string, unknown>;
};

/**
 * DM calls, signaling only (docs/dm-calls.md): `dm:call-start {conversationId}`,
 * `dm:call-accept` / `dm:call-decline` / `dm:call-end {callId}`, and
 * `dm:call-signal {callId, to, ...payload}` relayed to that participant's call socket.
 * Refusals answer through the ack. A socket that goes away leaves the calls it joined
 * (DmCalls.socketDisconnected, from the gateway's disconnect handler).
 */
export function dmCallEvents(domain: Domain): ClientEventTable {
  const calls = domain.dmCalls;
  return {
    "dm:call-start": async (socket, payload) => {
      const { conversationId } = fields(payload, "{conversationId}");
      const user = await domain.users.get(socket.data.userId);
      return calls.start({ id: user.id, username: user.username, avatar: user.avatar }, socket.id, conversationId);
    },
    "dm:call-accept": (socket, payload) => calls.accept(socket.data.userId, socket.id, fields(payload, "{callId}").callId),
    "dm:call-decline": (socket, payload) => calls.decline(socket.data.userId, fields(payload, "{callId}").callId),
    "dm:call-end": (socket, payload) => calls.end(socket.data.userId, fields(payload, "{callId}").callId),
    "dm:call-signal": (socket, payload) => {
      const { callId, to, ...signal } = fields(payload, "{callId, to, ...}");
      return calls.signal(socket.data.userId, callId, to, signal);
    },
  };
}
