import { admitPersonFrame, deliverToListeners } from "../../audio/listen-relay.ts";
import { admitFrame, deliverFrame } from "../../audio/relay.ts";
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
    "bot:audio-data": async (socket, payload) => {
      const admitted = await admitFrame(domain.voice, socket.id, payload);
      if (!admitted.ok) {
        socket.emit("voice:error", { error: admitted.error });
        throw badRequest(admitted.error);
      }
      deliverFrame(socket, admitted.sender.channelId, admitted.frame, admitted.sender.userId);
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
