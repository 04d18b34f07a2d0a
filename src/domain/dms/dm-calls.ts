import type { Store } from "../../store/store.ts";
import { badRequest, conflict, notFound } from "../shared/errors.ts";
import { rooms, type EventBus, type GatewayPayload } from "../shared/events.ts";
import { isUuid } from "../shared/validation.ts";

/** How long a call rings before it ends unanswered. */
export const RING_TIMEOUT_MS = 60_000;

export type CallEndReason = "ended" | "declined" | "timeout" | "disconnect";

export interface CallUser {
  id: string;
  username: string;
  avatar: string | null;
}

interface DmCall {
  id: string;
  conversationId: string;
  callerId: string;
  /** The conversation's members when the call started: the only ones who may answer. */
  memberIds: string[];
  /** Who is in the call, and from which socket (the media is peer-to-peer, per device). */
  joined: Map<string, string>;
  /** Invited members who have neither accepted nor declined. */
  ringing: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
}

/**
 * DM and group DM calls, signaling only (docs/dm-calls.md). Calls live in memory on this
 * node: a call starts ringing for the other members, they accept or decline, the joined
 * participants exchange WebRTC signaling through `signal`, and the call ends when the caller
 * hangs up or disconnects, when fewer than two participants remain and nobody is still
 * ringing, or when nobody answers within `ringTimeoutMs`.
 */
export class DmCalls {
  /** Public so tests can ring for less than a minute. */
  ringTimeoutMs = RING_TIMEOUT_MS;
  private readonly calls = new Map<string, DmCall>();
  private readonly byConversation = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
  ) {}

  /** Starts a call in a conversation the caller belongs to; one call per conversation at a time. */
  async start(caller: CallUser, socketId: string, conversationId: unknown): Promise<{ callId: string; conversationId: string }> {
    const repo = this.store.dms;
    const id = isUuid(conversationId) ? conversationId.toLowerCase() : null;
    if (!id || !(await repo.isMember(id, caller.id))) throw notFound("Conversation");
    if (this.byConversation.has(id)) throw conflict("A call is already in progress in this conversation");
    const memberIds = await repo.memberIds(id);
    const others = memberIds.filter((m) => m !== caller.id);
    if (others.length === 0) throw badRequest("There is nobody else in this conversation to call");
    const call: DmCall = {
      id: Bun.randomUUIDv7(),
      conversationId: id,
      callerId: caller.id,
      memberIds,
      joined: new Map([[caller.id, socketId]]),
      ringing: new Set(others),
      timer: null,
    };
    call.timer = setTimeout(() => this.ringTimedOut(call.id), this.ringTimeoutMs);
    call.timer.unref?.();
    this.calls.set(call.id, call);
    this.byConversation.set(id, call.id);
    this.bus.publish(others.map(rooms.user), "dm:call-incoming", {
      callId: call.id,
      conversationId: id,
      from: { id: caller.id, username: caller.username, avatar: caller.avatar },
    });
    return { callId: call.id, conversationId: id };
  }

  /** A member joins from this socket (also after the ring timeout, while the call lasts). */
  accept(userId: string, socketId: string, callId: unknown): { callId: string } {
    const call = this.callOf(userId, callId);
    if (call.joined.has(userId)) throw conflict("You are already in this call");
    call.ringing.delete(userId);
    call.joined.set(userId, socketId);
    this.toMembers(call, "dm:call-accepted", { callId: call.id, userId });
    return { callId: call.id };
  }

  /** A member who is not in the call declines it; when nobody is left to answer, it ends. */
  decline(userId: string, callId: unknown): { callId: string } {
    const call = this.callOf(userId, callId);
    if (call.joined.has(userId)) throw badRequest("You are in this call; end it instead");
    call.ringing.delete(userId);
    this.toMembers(call, "dm:call-declined", { callId: call.id, userId });
    if (call.joined.size < 2 && call.ringing.size === 0) this.finish(call, userId, "declined");
    return { callId: call.id };
  }

  /** The caller hanging up ends the call for everyone; anyone else leaves it. */
  end(userId: string, callId: unknown): { callId: string } {
    const call = this.callOf(userId, callId);
    if (!call.joined.has(userId)) throw badRequest("You are not in this call");
    this.leave(call, userId, "ended");
    return { callId: call.id };
  }

  /** Relays a signaling payload between two participants of the call, to the target's call socket only. */
  signal(userId: string, callId: unknown, to: unknown, payload: Record<string, unknown>): { callId: string } {
    const call = this.callOf(userId, callId);
    if (!call.joined.has(userId)) throw badRequest("You are not in this call");
    const target = typeof to === "string" ? call.joined.get(to.toLowerCase()) : undefined;
    if (!target || to === userId) throw badRequest("to: must be another participant of this call");
    this.bus.publish(target, "dm:call-signal", { ...payload, callId: call.id, from: userId });
    return { callId: call.id };
  }

  /** A socket went away: its user leaves every call it joined from that socket. */
  socketDisconnected(userId: string, socketId: string): void {
    for (const call of [...this.calls.values()]) {
      if (call.joined.get(userId) === socketId) this.leave(call, userId, "disconnect");
    }
  }

  /** Clears every call's timer (server shutdown). */
  stop(): void {
    for (const call of this.calls.values()) this.stopRinging(call);
    this.calls.clear();
    this.byConversation.clear();
  }

  private callOf(userId: string, callId: unknown): DmCall {
    const call = typeof callId === "string" ? this.calls.get(callId.toLowerCase()) : undefined;
    if (!call || !call.memberIds.includes(userId)) throw notFound("Call");
    return call;
  }

  private leave(call: DmCall, userId: string, reason: CallEndReason): void {
    call.joined.delete(userId);
    if (userId === call.callerId || (call.joined.size < 2 && call.ringing.size === 0)) {
      this.finish(call, userId, reason);
    } else {
      this.toMembers(call, "dm:call-left", { callId: call.id, userId, reason });
    }
  }

  private ringTimedOut(callId: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    call.timer = null;
    call.ringing.clear();
    // Nobody answered: the call ends. If someone did, it goes on; the rest can still join.
    if (call.joined.size < 2) this.finish(call, null, "timeout");
  }

  private stopRinging(call: DmCall): void {
    if (call.timer) clearTimeout(call.timer);
    call.timer = null;
  }

  private finish(call: DmCall, endedBy: string | null, reason: CallEndReason): void {
    this.stopRinging(call);
    this.calls.delete(call.id);
    this.byConversation.delete(call.conversationId);
    this.toMembers(call, "dm:call-ended", { callId: call.id, endedBy, reason });
  }

  private toMembers<E extends "dm:call-accepted" | "dm:call-declined" | "dm:call-ended" | "dm:call-left">(
    call: DmCall,
    event: E,
    payload: GatewayPayload<E>,
  ): void {
    this.bus.publish(call.memberIds.map(rooms.user), event, payload);
  }
}
