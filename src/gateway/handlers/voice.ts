import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { ApiError } from "../../domain/errors.ts";
import type { ClientToServerEvents } from "../../domain/events.ts";
import { parseInput } from "../../domain/validation.ts";
import type { Logger } from "../../log.ts";
import { onClientEvent } from "../ack.ts";
import type { GatewaySocket } from "../gateway.ts";

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

/**
 * Voice rooms over the gateway (docs/voice.md). Every refusal answers the ack with
 * `{ok: false, error}` and also arrives as `voice:error {error}` (SPEC.md Errors 9).
 */
export function registerVoiceEvents(socket: GatewaySocket, domain: Domain, log: Logger): void {
  const { userId, username, isBot } = socket.data;
  const voice = domain.voice;

  const on = (event: keyof ClientToServerEvents, handler: (payload: unknown) => Promise<object | void> | object | void) =>
    onClientEvent(socket, event, log, async (payload) => {
      try {
        return await handler(payload);
      } catch (error) {
        socket.emit("voice:error", { error: error instanceof ApiError ? error.message : "Internal error" });
        throw error;
      }
    });

  on("voice:join", (payload) => {
    const { channelId } = parseInput(Join, payload, "payload");
    return voice.join({ socketId: socket.id, userId, username, isBot }, channelId);
  });

  on("voice:leave", () => voice.leave(socket.id));

  on("voice:state", (payload) => voice.setState(socket.id, parseInput(State, payload ?? {}, "payload")));

  on("voice:speaking", (payload) => voice.setSpeaking(socket.id, parseInput(Speaking, payload, "payload").speaking));

  on("voice:signal", (payload) => {
    const signal = parseInput(Signal, payload, "payload");
    return voice.signal(socket.id, signal.to, signal);
  });

  on("voice:raise-hand", (payload) => voice.raiseHand(socket.id, userId, parseInput(RaiseHand, payload, "payload").channelId));

  on("voice:lower-hand", (payload) => {
    const { channelId, targetUserId } = parseInput(LowerHand, payload, "payload");
    return voice.lowerHand(userId, channelId, targetUserId);
  });

  on("voice:set-meeting-role", (payload) => {
    const { channelId, userId: target, role } = parseInput(SetRole, payload, "payload");
    return voice.setMeetingRole(userId, channelId, target, role);
  });

  on("voice:server-mute", (payload) => {
    const { userId: target, muted } = parseInput(ServerMute, payload, "payload");
    return voice.serverMute(userId, target, muted);
  });

  on("voice:server-deafen", (payload) => {
    const { userId: target, deafened } = parseInput(ServerDeafen, payload, "payload");
    return voice.serverDeafen(userId, target, deafened);
  });

  on("voice:move", (payload) => {
    const { userId: target, channelId } = parseInput(Move, payload, "payload");
    return voice.move(userId, target, channelId);
  });

  on("voice:disconnect", (payload) => voice.disconnect(userId, parseInput(Disconnect, payload, "payload").userId));

  on("bot:voice-query", (payload) => {
    const query = parseInput(VoiceQuery, payload, "payload");
    return voice.query(userId, query.serverId, query.userId);
  });

  on("bot:voice-participants", (payload) => voice.participants(userId, parseInput(Participants, payload, "payload").channelId));
}
