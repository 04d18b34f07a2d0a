import type { Domain } from "../../domain/domain.ts";
import { ApiError } from "../../domain/shared/errors.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";
import {
  LowerHand,
  RaiseHand,
  ServerDeafen,
  ServerMute,
  SetMeetingRole,
  VoiceDisconnect,
  VoiceJoin,
  VoiceListen,
  VoiceMove,
  VoiceParticipants,
  VoiceQuery,
  VoiceSignal,
  VoiceSpeaking,
  VoiceState,
} from "../client-events.ts";

/** A voice event's refusal also arrives as `voice:error {error}` (SPEC.md Errors 9). */
const withVoiceError =
  (handler: ClientEventHandler): ClientEventHandler =>
  async (socket, payload) => {
    try {
      return await handler(socket, payload);
    } catch (error) {
      socket.emit("voice:error", { error: error instanceof ApiError ? error.message : "Internal error" });
      throw error;
    }
  };

/**
 * Voice rooms over the gateway (docs/voice.md). Every refusal answers the ack with
 * `{ok: false, error}` and also arrives as `voice:error {error}` (SPEC.md Errors 9).
 */
export function voiceEvents(domain: Domain): ClientEventTable {
  const voice = domain.voice;
  const table: ClientEventTable = {
    "voice:join": (socket, payload) => {
      const { channelId } = parseInput(VoiceJoin, payload, "payload");
      const { userId, username, isBot } = socket.data;
      return voice.join({ socketId: socket.id, userId, username, isBot }, channelId);
    },
    "voice:leave": (socket) => voice.leave(socket.id),
    "voice:state": (socket, payload) => voice.setState(socket.id, parseInput(VoiceState, payload ?? {}, "payload")),
    "voice:speaking": (socket, payload) => voice.setSpeaking(socket.id, parseInput(VoiceSpeaking, payload, "payload").speaking),
    "voice:signal": (socket, payload) => {
      const signal = parseInput(VoiceSignal, payload, "payload");
      return voice.signal(socket.id, signal.to, signal);
    },
    "voice:raise-hand": (socket, payload) => voice.raiseHand(socket.id, socket.data.userId, parseInput(RaiseHand, payload, "payload").channelId),
    "voice:lower-hand": (socket, payload) => {
      const { channelId, targetUserId } = parseInput(LowerHand, payload, "payload");
      return voice.lowerHand(socket.data.userId, channelId, targetUserId);
    },
    "voice:set-meeting-role": (socket, payload) => {
      const { channelId, userId: target, role } = parseInput(SetMeetingRole, payload, "payload");
      return voice.setMeetingRole(socket.data.userId, channelId, target, role);
    },
    "voice:server-mute": (socket, payload) => {
      const { userId: target, muted } = parseInput(ServerMute, payload, "payload");
      return voice.serverMute(socket.data.userId, target, muted);
    },
    "voice:server-deafen": (socket, payload) => {
      const { userId: target, deafened } = parseInput(ServerDeafen, payload, "payload");
      return voice.serverDeafen(socket.data.userId, target, deafened);
    },
    "voice:move": (socket, payload) => {
      const { userId: target, channelId } = parseInput(VoiceMove, payload, "payload");
      return voice.move(socket.data.userId, target, channelId);
    },
    "voice:disconnect": (socket, payload) => voice.disconnect(socket.data.userId, parseInput(VoiceDisconnect, payload, "payload").userId),
    "bot:voice-query": (socket, payload) => {
      const query = parseInput(VoiceQuery, payload, "payload");
      return voice.query(socket.data.userId, query.serverId, query.userId);
    },
    "voice:listen": (socket, payload) => {
      const { channelId, listening } = parseInput(VoiceListen, payload, "payload");
      const { userId, username, isBot } = socket.data;
      return voice.setListening({ socketId: socket.id, userId, username, isBot }, channelId, listening);
    },
    "bot:voice-participants": (socket, payload) => voice.participants(socket.data.userId, parseInput(VoiceParticipants, payload, "payload").channelId),
  };
  return Object.fromEntries(Object.entries(table).map(([event, handler]) => [event, withVoiceError(handler)]));
}
