import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventTable } from "../ack.ts";
import { PresenceSubscribe, StatusSet } from "../client-events.ts";
import { subscribePresence } from "../presence-subscriptions.ts";

/** `status:set {status}`: ack `{ok, status}`; `presence:subscribe {server_id, user_ids}`: ack `{ok, server_id, user_ids}`. */
export function presenceEvents(domain: Domain): ClientEventTable {
  return {
    "status:set": (socket, payload) => domain.presence.setStatus(socket.data.userId, parseInput(StatusSet, payload, "payload").status),
    "presence:subscribe": async (socket, payload) => {
      const { server_id, user_ids } = parseInput(PresenceSubscribe, payload, "payload");
      return { server_id, user_ids: await subscribePresence(domain, socket, server_id, user_ids) };
    },
  };
}
