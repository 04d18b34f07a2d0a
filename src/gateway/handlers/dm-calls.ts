import type { Domain } from "../../domain/domain.ts";
import type { ClientEventTable } from "../ack.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import { CallId, CallSignal, CallStart } from "../client-events.ts";

/**
 * DM calls, signaling only (docs/dm-calls.md): `dm:call-start {conversationId}`,
 * `dm:call-accept` / `dm:call-decline` / `dm:call-end {callId}`, and
 * `dm:call-signal {callId, to, ...payload}` relayed to that participant's call socket.
 * Refusals answer through the ack. Starting, accepting and signalling apply the DM send
 * rule (DmCalls). A socket that goes away leaves the calls it joined
 * (DmCalls.socketDisconnected, from the gateway's disconnect handler).
 */
export function dmCallEvents(domain: Domain): ClientEventTable {
  const calls = domain.dmCalls;
  return {
    "dm:call-start": async (socket, payload) => {
      const { conversationId } = parseInput(CallStart, payload, "payload");
      return calls.start(await domain.users.get(socket.data.userId), socket.id, conversationId);
    },
    "dm:call-accept": async (socket, payload) => {
      const { callId } = parseInput(CallId, payload, "payload");
      return calls.accept(await domain.users.get(socket.data.userId), socket.id, callId);
    },
    "dm:call-decline": (socket, payload) => calls.decline(socket.data.userId, parseInput(CallId, payload, "payload").callId),
    "dm:call-end": (socket, payload) => calls.end(socket.data.userId, parseInput(CallId, payload, "payload").callId),
    "dm:call-signal": async (socket, payload) => {
      const { callId, to, ...signal } = parseInput(CallSignal, payload, "payload");
      return calls.signal(await domain.users.get(socket.data.userId), callId, to, signal);
    },
  };
}
