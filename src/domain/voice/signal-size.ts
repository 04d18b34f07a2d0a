import { badRequest } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";

/**
 * Refuses a WebRTC signaling payload (`voice:signal`, `dm:call-signal`) larger than
 * LIMITS.voice.signalBytes once serialized, before anything is relayed: a relay forwards what
 * it is given to a peer, so an oversized one costs the server and the peer memory for nothing.
 */
export function requireSignalSize(payload: unknown): void {
  if (Buffer.byteLength(JSON.stringify(payload) ?? "") > LIMITS.voice.signalBytes) {
    throw badRequest(`payload: must be at most ${LIMITS.voice.signalBytes} bytes as JSON`);
  }
}
