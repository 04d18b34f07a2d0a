import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { PRESENCE_STATUSES } from "../../domain/shared/shapes.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventTable } from "../ack.ts";

const StatusSet = v.object(
  { status: v.picklist(PRESENCE_STATUSES, `must be one of ${PRESENCE_STATUSES.join(", ")}`) },
  "must be an object",
);

/** `status:set {status}`: ack `{ok, status}`. */
export function presenceEvents(domain: Domain): ClientEventTable {
  return {
    "status:set": (socket, payload) => domain.presence.setStatus(socket.data.userId, parseInput(StatusSet, payload, "payload").status),
  };
}
