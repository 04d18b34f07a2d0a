import type { Participant, VoiceRoomMembership } from "../domain/voice/voice-rooms.ts";

/** Told of every join and leave (cluster mode: the user's voice channel, shared in Redis). */
interface MembershipWatcher {
  joined(participant: Participant): void;
  left(participant: Participant): void;
}

/**
 * Voice-room membership, in memory: who is in which voice channel, with which socket and
 * state. One voice channel per user at a time. No Socket.IO and no rules in here: the voice
 * domain decides who may do what (it defines the interface); the gateway and the audio relay
 * read and update this. (Scale-out: a voice room lives on one node, so this stays node-local.)
 */
export class VoiceRooms implements VoiceRoomMembership {
  private readonly bySocket = new Map<string, Participant>();
  private readonly byUser = new Map<string, string>();
  private readonly byChannel = new Map<string, Map<string, Participant>>();
  /** Listening participants by channel (bots that asked to hear the room's people). */
  private readonly listening = new Map<string, Set<Participant>>();
  private static readonly NONE: ReadonlySet<Participant> = new Set();

  constructor(private readonly watcher?: MembershipWatcher) {}

  /**
   * Adds the participant. A user is in one voice channel at a time: the participant they
   * had before (another channel, or another device) is removed and returned.
   */
  join(participant: Participant): { previous: Participant | null } {
    const existing = this.byUser.get(participant.userId);
    const previous = existing ? this.leave(existing) : null;
    this.bySocket.set(participant.socketId, participant);
    this.byUser.set(participant.userId, participant.socketId);
    let room = this.byChannel.get(participant.channelId);
    if (!room) this.byChannel.set(participant.channelId, (room = new Map()));
    room.set(participant.socketId, participant);
    if (participant.listening) this.setListening(participant, true);
    this.watcher?.joined(participant);
    return { previous };
  }

  /** Removes the socket's participant, if any, and returns it. */
  leave(socketId: string): Participant | null {
    const participant = this.bySocket.get(socketId);
    if (!participant) return null;
    this.bySocket.delete(socketId);
    if (this.byUser.get(participant.userId) === socketId) this.byUser.delete(participant.userId);
    const room = this.byChannel.get(participant.channelId);
    room?.delete(socketId);
    if (room && room.size === 0) this.byChannel.delete(participant.channelId);
    this.setListening(participant, false);
    this.watcher?.left(participant);
    return participant;
  }

  participant(socketId: string): Participant | null {
    return this.bySocket.get(socketId) ?? null;
  }

  ofUser(userId: string): Participant | null {
    const socketId = this.byUser.get(userId);
    return socketId ? (this.bySocket.get(socketId) ?? null) : null;
  }

  /** The channel's participants, in join order. */
  inChannel(channelId: string): Participant[] {
    return [...(this.byChannel.get(channelId)?.values() ?? [])];
  }

  /** Applies a change of state (not of channel: moving is leave + join). */
  update(socketId: string, patch: Partial<Omit<Participant, "socketId" | "userId" | "channelId" | "serverId">>): Participant | null {
    const participant = this.bySocket.get(socketId);
    if (!participant) return null;
    Object.assign(participant, patch);
    if (patch.listening !== undefined) this.setListening(participant, patch.listening);
    return participant;
  }

  listeners(channelId: string): ReadonlySet<Participant> {
    return this.listening.get(channelId) ?? VoiceRooms.NONE;
  }

  private setListening(participant: Participant, on: boolean): void {
    let set = this.listening.get(participant.channelId);
    if (on) {
      if (!set) this.listening.set(participant.channelId, (set = new Set()));
      set.add(participant);
    } else if (set?.delete(participant) && set.size === 0) {
      this.listening.delete(participant.channelId);
    }
  }

  /** Every participant (for presence-style lookups such as friends in voice). */
  all(): Participant[] {
    return [...this.bySocket.values()];
  }
}
