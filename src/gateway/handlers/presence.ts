import type { Domain } from "../../domain/domain.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventTable } from "../ack.ts";
import { StatusSet } from "../client-events.ts";

/** `status:set {status}`: ack `{ok, status}`. */
export function presenceEvents(domain: Domain): ClientEventTable {
  return {
    "status:set": (socket, payload) => domain.presence.setStatus(socket.data.userId, parseInput(StatusSet, payload, "payload").status),
  };
}
