import { admitFrame, deliverFrame } from "../../audio/relay.ts";
import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import type { ClientEventTable } from "../ack.ts";

/**
 * `bot:audio-data {channelId, pcm, sampleRate?, channels?}`: a valid frame from a participant
 * of that voice room who may speak goes to the room's other sockets (docs/audio.md). Anything
 * else is dropped and answered with `voice:error {error}` (and the ack `{ok: false, error}`).
 */
export function audioEvents(domain: Domain): ClientEventTable {
  return {
    "bot:audio-data": async (socket, payload) => {
      const admitted = await admitFrame(domain.voice, socket.id, payload);
      if (!admitted.ok) {
        socket.emit("voice:error", { error: admitted.error });
        throw badRequest(admitted.error);
      }
      deliverFrame(socket, admitted.sender.channelId, admitted.frame, admitted.sender.userId);
    },
  };
}
