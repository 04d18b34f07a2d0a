import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { ApiError } from "../../domain/shared/errors.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { ClientEventHandler, ClientEventTable } from "../ack.ts";

const Id = (what: string) => v.pipe(v.string(`must be a ${what} id`), v.uuid(`must be a ${what} id`));
const Flag = v.boolean("must be a boolean");

const Join = v.object({ channelId: Id("channel") });
const State = v.object({ muted: v.optional(Flag), deafened: v.optional(Flag), video: v.optional(Flag) });
const Speaking = v.object({ speaking: Flag });
const Signal = v.looseObject({ to: v.pipe(v.string("must be a socket id"), v.minLength(1, "must be a socket id")) });
const RaiseHand = v.object({ channelId: Id("channel") });
const LowerHand = v.object({ channelId: Id("channel"), targetUserId: v.optional(Id("user")) });
const SetRole = v.object({ channelId: Id("channel"), userId: Id("user"), role: v.picklist(["audience", "speaker"], "must be audience or speaker") });
const ServerMute = v.object({ userId: Id("user"), muted: Flag });
const ServerDeafen = v.object({ userId: Id("user"), deafened: Flag });
const Move = v.object({ userId: Id("user"), channelId: Id("channel") });
const Disconnect = v.object({ userId: Id("user") });
const VoiceQuery = v.object({ userId: Id("user"), serverId: Id("server") });
const Participants = v.object({ channelId: Id("channel") });

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
      const { channelId } = parseInput(Join, payload, "payload");
      const { userId, username, isBot } = socket.data;
      return voice.join({ socketId: socket.id, userId, username, isBot }, channelId);
    },
    "voice:leave": (socket) => voice.leave(socket.id),
    "voice:state": (socket, payload) => voice.setState(socket.id, parseInput(State, payload ?? {}, "payload")),
    "voice:speaking": (socket, payload) => voice.setSpeaking(socket.id, parseInput(Speaking, payload, "payload").speaking),
    "voice:signal": (socket, payload) => {
      const signal = parseInput(Signal, payload, "payload");
      return voice.signal(socket.id, signal.to, signal);
    },
    "voice:raise-hand": (socket, payload) => voice.raiseHand(socket.id, socket.data.userId, parseInput(RaiseHand, payload, "payload").channelId),
    "voice:lower-hand": (socket, payload) => {
      const { channelId, targetUserId } = parseInput(LowerHand, payload, "payload");
      return voice.lowerHand(socket.data.userId, channelId, targetUserId);
    },
    "voice:set-meeting-role": (socket, payload) => {
      const { channelId, userId: target, role } = parseInput(SetRole, payload, "payload");
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
      const { userId: target, channelId } = parseInput(Move, payload, "payload");
      return voice.move(socket.data.userId, target, channelId);
    },
    "voice:disconnect": (socket, payload) => voice.disconnect(socket.data.userId, parseInput(Disconnect, payload, "payload").userId),
    "bot:voice-query": (socket, payload) => {
      const query = parseInput(VoiceQuery, payload, "payload");
      return voice.query(socket.data.userId, query.serverId, query.userId);
    },
    "bot:voice-participants": (socket, payload) => voice.participants(socket.data.userId, parseInput(Participants, payload, "payload").channelId),
  };
  return Object.fromEntries(Object.entries(table).map(([event, handler]) => [event, withVoiceError(handler)]));
}
