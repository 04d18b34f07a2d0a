import { admitPersonFrame, deliverToListeners } from "../../audio/listen-relay.ts";
import { admitFrameNow, deliverFrame, type Admission } from "../../audio/relay.ts";
import type { Domain } from "../../domain/domain.ts";
import { badRequest } from "../../domain/shared/errors.ts";
import type { ClientEventTable } from "../ack.ts";

/**
 * `bot:audio-data {channelId, pcm, sampleRate?, channels?}`: a valid frame from a participant
 * of that voice room who may speak goes to the room's other sockets (docs/audio.md).
 * `voice:audio-data` (same payload): a person's microphone frame goes only to the room's bots
 * that listen (docs/audio.md, "Bots that listen"). Anything else is dropped and answered with
 * `voice:error {error}` (and the ack `{ok: false, error}`).
 */
export function audioEvents(domain: Domain): ClientEventTable {
  return {
    // Synchronous whenever the admission is (admitFrameNow): no promise per frame on the
    // relay's hot path; a promise only while the store is asked about the sender.
    "bot:audio-data": (socket, payload) => {
      const relay = (admitted: Admission): void => {
        if (!admitted.ok) {
          socket.emit("voice:error", { error: admitted.error });
          throw badRequest(admitted.error);
        }
        deliverFrame(socket, admitted.sender.channelId, admitted.frame, admitted.sender.userId);
      };
      const admitted = admitFrameNow(domain.voice, socket.id, payload);
      return admitted instanceof Promise ? admitted.then(relay) : relay(admitted);
    },
    "voice:audio-data": async (socket, payload) => {
      const admitted = await admitPersonFrame(domain.voice, socket.id, payload);
      if (!admitted.ok) {
        socket.emit("voice:error", { error: admitted.error });
        throw badRequest(admitted.error);
      }
      deliverToListeners(socket, domain.voice.rooms, admitted.sender.channelId, admitted.frame, admitted.sender.userId);
    },
  };
}
