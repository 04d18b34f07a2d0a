import type { Store } from "../../store/store.ts";
import type { DmRow } from "../../store/dms-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { DmListener, Dms } from "./dms.ts";
import { badRequest, conflict, notFound } from "../shared/errors.ts";
import { rooms, type CallEndReason, type EventBus, type GatewayPayload } from "../shared/events.ts";
import { isUuid } from "../shared/validation.ts";
import { requireSignalSize } from "../voice/signal-size.ts";

/** How long a call rings before it ends unanswered. */
const RING_TIMEOUT_MS = 60_000;

interface DmCall {
  id: string;
  dm: DmRow;
  callerId: string;
  /**
   * Who takes part: the DM's members when the call started, less those who had
   * muted the caller, less those taken out of the DM since. The only ones who are
   * rung, told about the call, and may answer.
   */
  memberIds: string[];
  /** Who is in the call, and from which socket (the media is peer-to-peer, per device). */
  joined: Map<string, string>;
  /** Invited members who have neither accepted nor declined. */
  ringing: Set<string>;
  /** What rings them (`dm:call-incoming`), again on each device they connect while it rings. */
  ring: GatewayPayload<"dm:call-incoming">;
  timer: ReturnType<typeof setTimeout> | null;
}

/**
 * Cluster mode (docs/dm-calls.md, "Several nodes"): the calls this node holds, with who takes
 * part, recorded where the other nodes find them if this node dies; absent on one node.
 */
export interface CallRecords {
  callHeld(callId: string, memberIds: string[]): void;
  callReleased(callId: string): void;
}

/** A call held by a node that died, as it was recorded. */
export interface LostCall {
  callId: string;
  memberIds: string[];
}

/**
 * DM and group DM calls, signaling only (docs/dm-calls.md). Calls live in memory on this
 * node: a call starts ringing for the other members, they accept or decline, the joined
 * participants exchange WebRTC signaling through `signal`, and the call ends when the caller
 * hangs up or disconnects, when fewer than two participants remain and nobody is still
 * ringing, or when nobody answers within `ringTimeoutMs`.
 *
 * Calling is messaging: starting, answering and signalling apply the DM's send rule
 * (`Dms.requireCanSend`: a 1:1 DM needs a shared server or a friendship, re-checked
 * each time), members who muted the caller are left out of the call as they are left out of
 * `dm:new`, and a member who leaves the DM leaves its call (DmListener).
 */
export class DmCalls implements DmListener {
  /** Public so tests can ring for less than a minute. */
  ringTimeoutMs = RING_TIMEOUT_MS;
  private readonly calls = new Map<string, DmCall>();
  private readonly byDm = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly dms: Pick<Dms, "requireCanSend">,
    private readonly records?: CallRecords,
  ) {}

  /** Starts a call in a DM the caller belongs to and may send to; one call per DM at a time. */
  async start(caller: UserRow, socketId: string, dmId: unknown): Promise<{ callId: string; conversationId: string }> {
    const repo = this.store.dms;
    const id = isUuid(dmId) ? dmId.toLowerCase() : null;
    const dm = id ? await repo.findById(id) : null;
    if (!id || !dm || !(await repo.isMember(id, caller.id))) throw notFound("Conversation");
    await this.dms.requireCanSend(dm, caller);
    const memberIds = await repo.memberIds(id);
    // Mutes silence: whoever muted the caller is not rung (the call then rings on unanswered, as if ignored).
    const muters = new Set(await repo.mutersOf(id, caller.id));
    // Checked after the last await, so two starts at once cannot both pass.
    if (this.byDm.has(id)) throw conflict("A call is already in progress in this conversation");
    if (memberIds.every((m) => m === caller.id)) throw badRequest("There is nobody else in this conversation to call");
    const others = memberIds.filter((m) => m !== caller.id && !muters.has(m));
    const callId = Bun.randomUUIDv7();
    const call: DmCall = {
      id: callId,
      dm,
      callerId: caller.id,
      memberIds: [caller.id, ...others],
      joined: new Map([[caller.id, socketId]]),
      ringing: new Set(others),
      ring: { callId, conversationId: id, from: { id: caller.id, username: caller.username, avatar: caller.avatar } },
      timer: null,
    };
    call.timer = setTimeout(() => this.ringTimedOut(call.id), this.ringTimeoutMs);
    call.timer.unref?.();
    this.calls.set(call.id, call);
    this.byDm.set(id, call.id);
    this.records?.callHeld(call.id, call.memberIds);
    if (others.length > 0) this.bus.publish(others.map(rooms.user), "dm:call-incoming", call.ring);
    return { callId: call.id, conversationId: id };
  }

  /** A member joins from this socket (also after the ring timeout, while the call lasts), if they may still send there. */
  async accept(user: UserRow, socketId: string, callId: unknown): Promise<{ callId: string }> {
    const call = this.callOf(user.id, callId);
    if (call.joined.has(user.id)) throw conflict("You are already in this call");
    await this.dms.requireCanSend(call.dm, user);
    // The call may have ended, or the user left it, while the rule was checked.
    if (this.calls.get(call.id) !== call || !call.memberIds.includes(user.id)) throw notFound("Call");
    if (call.joined.has(user.id)) throw conflict("You are already in this call");
    call.ringing.delete(user.id);
    call.joined.set(user.id, socketId);
    this.toMembers(call, "dm:call-accepted", { callId: call.id, userId: user.id });
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

  /**
   * Relays a signaling payload between two participants of the call, to the target's call
   * socket only, while the sender may still send in the DM; an oversized payload is
   * refused (requireSignalSize).
   */
  async signal(user: UserRow, callId: unknown, to: unknown, payload: Record<string, unknown>): Promise<{ callId: string }> {
    requireSignalSize(payload);
    const call = this.callOf(user.id, callId);
    if (!call.joined.has(user.id)) throw badRequest("You are not in this call");
    const targetId = typeof to === "string" ? to.toLowerCase() : undefined;
    if (!targetId || targetId === user.id || !call.joined.has(targetId)) throw badRequest("to: must be another participant of this call");
    await this.dms.requireCanSend(call.dm, user);
    // Read after the check: either side may have left meanwhile.
    const target = call.joined.get(targetId);
    if (!target || !call.joined.has(user.id)) throw badRequest("to: must be another participant of this call");
    this.bus.publish(target, "dm:call-signal", { ...payload, callId: call.id, from: user.id });
    return { callId: call.id };
  }

  /**
   * A member left the DM (removed by the owner, or leaving): they leave its call. They
   * hear `dm:call-ended` (reason `removed`) and nothing more of it; the others hear `dm:call-left`
   * when they had joined, and the call ends as if they had hung up. The caller leaving ends it.
   */
  memberLeft(dmId: string, userId: string, by: string): void {
    const call = this.callIn(dmId);
    if (!call || !call.memberIds.includes(userId)) return;
    call.memberIds = call.memberIds.filter((m) => m !== userId);
    this.records?.callHeld(call.id, call.memberIds);
    call.ringing.delete(userId);
    const wasJoined = call.joined.delete(userId);
    this.bus.publish(rooms.user(userId), "dm:call-ended", { callId: call.id, endedBy: by, reason: "removed" });
    if (userId === call.callerId || (call.joined.size < 2 && call.ringing.size === 0)) this.finish(call, by, "removed");
    else if (wasJoined) this.toMembers(call, "dm:call-left", { callId: call.id, userId, reason: "removed" });
  }

  /** The DM was deleted: its call ends for everyone. */
  dmDeleted(dmId: string, by: string): void {
    const call = this.callIn(dmId);
    if (call) this.finish(call, by, "removed");
  }

  /**
   * A device of `userId` connected, on this node or another: each call held here that still
   * rings for them rings on that socket too, so a page opened during the ring can answer it.
   */
  socketConnected(userId: string, socketId: string): void {
    for (const call of this.calls.values()) {
      if (call.ringing.has(userId)) this.bus.publish(socketId, "dm:call-incoming", call.ring);
    }
  }

  /** A socket went away: its user leaves every call it joined from that socket. */
  socketDisconnected(userId: string, socketId: string): void {
    for (const call of [...this.calls.values()]) {
      if (call.joined.get(userId) === socketId) this.leave(call, userId, "disconnect");
    }
  }

  /**
   * The node that held these calls died (cluster mode): nobody can hang up or leave them any
   * more, so they end for their members as when the caller's socket goes away, with
   * `reason: "disconnect"` and `endedBy: null` (no member ended them).
   */
  homeLost(calls: LostCall[]): void {
    for (const call of calls) {
      this.bus.publish(call.memberIds.map(rooms.user), "dm:call-ended", { callId: call.callId, endedBy: null, reason: "disconnect" });
    }
  }

  /** The calls held here, with their DMs (cluster mode renews this node's claim on them). */
  held(): { callId: string; dmId: string }[] {
    return [...this.calls.values()].map((call) => ({ callId: call.id, dmId: call.dm.id }));
  }

  /** Clears every call's timer (server shutdown). */
  stop(): void {
    for (const call of this.calls.values()) {
      this.stopRinging(call);
      this.records?.callReleased(call.id);
    }
    this.calls.clear();
    this.byDm.clear();
  }

  private callIn(dmId: string): DmCall | undefined {
    const callId = this.byDm.get(dmId);
    return callId === undefined ? undefined : this.calls.get(callId);
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
    this.byDm.delete(call.dm.id);
    this.records?.callReleased(call.id);
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
