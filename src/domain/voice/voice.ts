import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { ChannelRow } from "../../store/channels-repo.ts";
import { missingPermission, type Access, type ChannelContext, type MemberContext } from "../access/access.ts";
import type { Audit } from "../access/audit.ts";
import { badRequest, forbidden, notFound } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import { ImageUrl, Uuid, type VoiceParticipant } from "../shared/shapes.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import type { MeetingRole, Participant, VoiceRoomMembership } from "./voice-rooms.ts";
import { requireSignalSize } from "./signal-size.ts";
import type { VoiceRoomChanges } from "./voice-occupants.ts";
import { DEFAULT_MESH_CAPS, meshRefusal, type MeshCaps, type MeshChange } from "./mesh-caps.ts";
import type { MediaServer } from "./media-server.ts";

/** The store's part of the right to speak: a refusal, or whether the channel is a meeting. */
interface SpeakStanding {
  error: string | null;
  meeting: boolean;
}

/** Who is joining: the socket and the account behind it (the gateway's socket data). */
interface VoiceClient {
  socketId: string;
  userId: string;
  username: string;
  isBot: boolean;
}

/** A friend in voice, as `GET /api/v1/friends/voice-activity` lists them. */
export const FriendVoiceActivity = v.object({
  user_id: Uuid,
  username: v.string(),
  avatar: ImageUrl,
  channel_id: Uuid,
  channel_name: v.string(),
  server_id: Uuid,
  server_name: v.string(),
});
export type FriendVoiceActivity = v.InferOutput<typeof FriendVoiceActivity>;

/**
 * Voice rooms held by other nodes (cluster mode; docs/audio.md, "Several nodes"). On one node
 * there are none: `ONE_NODE`.
 */
export interface VoiceElsewhere {
  /** Tells the other nodes that the user is now in voice here: each takes them out of the room it holds. */
  joined(userId: string, socketId: string): void;
  /** The voice channel the user is in on another node, or null. */
  channelOf(userId: string): Promise<string | null>;
  /** Whether this node holds, or may now hold, the channel's room (false: another living node does). */
  mayHold(channelId: string): Promise<boolean>;
  /**
   * `voice:move` into a room another living node holds: the moved member's socket (here, or a
   * voice link whose client is on another node) joins `channelId` at that room's home, carrying
   * `handover`. Resolves once that join is answered; throws its refusal.
   */
  moveAcross(socketId: string, channelId: string, handover: Handover): Promise<void>;
}

/** Only reached when another node holds a room: one node holds them all (`mayHold` is always true). */
const NO_OTHER_NODE = () => Promise.reject(new Error("one node holds every voice room"));

export const ONE_NODE: VoiceElsewhere = {
  joined: () => {},
  channelOf: async () => null,
  mayHold: async () => true,
  moveAcross: NO_OTHER_NODE,
};

/**
 * What a member takes from the room they leave into the one they join when the two rooms have
 * different homes (cluster mode; docs/audio.md, "Several nodes"): the server they were in voice
 * in and, for a `voice:move`, that the join is a move (no VOICE_JOIN, as on one node). Server
 * mute and deafen need no carrying: the store keeps them per member, and every join reads them.
 */
export interface Handover {
  serverId: string;
  moved?: boolean;
}

const FORCE_LEAVE_OTHER_DEVICE = "joined from another device";
const FORCE_DISCONNECT_MODERATOR = "Disconnected by a moderator";
const FORCE_DISCONNECT_REMOVED = "You are no longer a member of this server";
const FORCE_DISCONNECT_ACCESS = "You can no longer connect to this voice channel";
const FORCE_DISCONNECT_DELETED = "The voice channel was deleted";
const FORCE_DISCONNECT_TIMED_OUT = "You are timed out in this server";

const NOT_IN_VOICE = "You are not in a voice channel";
/** The audio relay's refusal too (src/audio/relay.ts). */
export const NOT_IN_THIS_VOICE_CHANNEL = "You are not in this voice channel";
const ONLY_BOTS_LISTEN = "Only bots can listen to a voice room";
const AUDIENCE_CANNOT_SPEAK = "Audience members cannot speak in a meeting";
const SERVER_MUTED = "You are server muted";
export const MEDIA_SERVER_UNAVAILABLE = "The voice media server is unavailable; try again in a moment";

/** The participant as clients see it (no server/channel ids, no join time). */
const toVoiceParticipant = (p: Participant): VoiceParticipant => ({
  socketId: p.socketId,
  userId: p.userId,
  username: p.username,
  isBot: p.isBot,
  muted: p.muted,
  deafened: p.deafened,
  video: p.video,
  serverMuted: p.serverMuted,
  serverDeafened: p.serverDeafened,
  speaking: p.speaking,
  meetingRole: p.meetingRole,
  handRaised: p.handRaised,
  listening: p.listening,
});

/**
 * Voice channels: who may join, speak, signal and moderate. Membership lives in `rooms`
 * (VoiceRoomMembership, in memory); this class holds the rules and says who hears what through the
 * event bus, addressing single sockets by their id (every Socket.IO socket is in a room named
 * after its id). See docs/voice.md.
 */
export class Voice {
  constructor(
    /** Who is in which voice room: implemented by the audio layer, read by the relay for every frame. */
    readonly rooms: VoiceRoomMembership,
    private readonly store: Store,
    private readonly access: Access,
    private readonly audit: Audit,
    private readonly bus: EventBus,
    /** Told of every change the channel list shows (src/domain/voice/voice-occupants.ts). */
    private readonly occupants: VoiceRoomChanges,
    private readonly elsewhere: VoiceElsewhere = ONE_NODE,
    /** How big a room may grow while audio goes peer to peer (src/domain/voice/mesh-caps.ts). */
    private readonly meshCaps: MeshCaps = DEFAULT_MESH_CAPS,
    /** People's audio through a media server (Janus) instead of the mesh; its rooms have no mesh caps. */
    private readonly media: MediaServer | null = null,
  ) {}

  /**
   * Per-participant memo of what the store says about speaking (`standing`), for the per-frame
   * admission check. An entry holds while no permission-changing write happened
   * (Access.permissionsEpoch) and for at most STANDING_TTL_MS, so a timeout that simply runs
   * out is noticed too. Participant fields (server mute, meeting role) are always read live.
   */
  private standingMemo = new WeakMap<Participant, { standing: Promise<SpeakStanding>; epoch: number; until: number; settled?: SpeakStanding }>();
  private static readonly STANDING_TTL_MS = 1000;

  /**
   * Null when the participant may transmit audio now: SPEAK in the channel, a speaker if the
   * channel is a meeting, not server-muted and not timed out. Otherwise the error message.
   * `memo` lets the audio relay reuse the store's answer between permission changes.
   */
  async speakError(participant: Participant, memo = false): Promise<string | null> {
    if (participant.serverMuted) return SERVER_MUTED;
    if (participant.meetingRole === "audience") return AUDIENCE_CANNOT_SPEAK;
    return this.speakVerdict(participant, memo ? await this.memoStanding(participant) : await this.standing(participant));
  }

  /**
   * `speakError` with the memo, answered at once when the memo holds an answer the store has
   * already given (the relay's per-frame path: no promise per frame); undefined when the store
   * must be asked (then `speakError(participant, true)`). The same rules, read the same way.
   */
  speakErrorNow(participant: Participant): string | null | undefined {
    if (participant.serverMuted) return SERVER_MUTED;
    if (participant.meetingRole === "audience") return AUDIENCE_CANNOT_SPEAK;
    const hit = this.standingMemo.get(participant);
    if (!hit?.settled || hit.epoch !== this.access.permissionsEpoch || hit.until <= performance.now()) return undefined;
    return this.speakVerdict(participant, hit.settled);
  }

  private speakVerdict(participant: Participant, { error, meeting }: SpeakStanding): string | null {
    if (error) return error;
    if (meeting && participant.meetingRole !== "speaker") return AUDIENCE_CANNOT_SPEAK;
    return null;
  }

  private async memoStanding(participant: Participant): Promise<SpeakStanding> {
    const now = performance.now();
    const epoch = this.access.permissionsEpoch;
    const hit = this.standingMemo.get(participant);
    if (hit && hit.epoch === epoch && hit.until > now) return hit.standing;
    // The promise is kept, not only its answer: frames arriving while the store is asked wait
    // for the same answer, so they are admitted in the order they came (the store may answer
    // concurrent questions in any order). Once it has answered, `speakErrorNow` reads the
    // answer without a promise; the frames that waited are through by then (their continuations
    // run in the same microtask checkpoint as the answer, before any later frame is read).
    const standing = this.standing(participant);
    const entry: { standing: Promise<SpeakStanding>; epoch: number; until: number; settled?: SpeakStanding } = { standing, epoch, until: now + Voice.STANDING_TTL_MS };
    this.standingMemo.set(participant, entry);
    standing.then(
      (answer) => {
        entry.settled = answer;
      },
      () => {},
    );
    return standing;
  }

  /** What the store says: the channel, membership, VIEW_CHANNEL and SPEAK (which a timeout takes away). */
  private async standing(participant: Participant): Promise<SpeakStanding> {
    const refuse = (error: string): SpeakStanding => ({ error, meeting: false });
    const channel = await this.store.channels.findById(participant.channelId);
    if (!channel || channel.type !== "voice") return refuse("Voice channel not found");
    const server = await this.store.servers.findById(channel.server_id);
    if (!server) return refuse("Server not found");
    const member = await this.access.memberOf(server, participant.userId);
    if (!member) return refuse("You are not a member of this server");
    const permissions = await this.access.channelPermissions(channel, member);
    if (!hasPermission(permissions, PERMISSIONS.VIEW_CHANNEL)) return refuse(missingPermission(PERMISSIONS.VIEW_CHANNEL).message);
    if (!hasPermission(permissions, PERMISSIONS.SPEAK)) return refuse(missingPermission(PERMISSIONS.SPEAK, member).message);
    return { error: null, meeting: channel.is_meeting === 1 };
  }

  // ---- joining and leaving ----

  /**
   * Joins a voice channel the user can see with CONNECT. The user's earlier voice channel is
   * left first; an earlier socket of the same user gets `voice:force-leave`. Answers the room.
   * `handover`: the user comes from a room held by another node, already left (cluster mode).
   */
  async join(client: VoiceClient, channelId: string, handover?: Handover): Promise<{ channelId: string; participants: VoiceParticipant[] }> {
    const { channel } = await this.requireVoiceChannel(channelId, client.userId, PERMISSIONS.CONNECT);
    const current = this.rooms.ofUser(client.userId);
    if (current && current.socketId === client.socketId && current.channelId === channel.id) {
      // Joining the room it is in: a page whose media connection was lost asks for a new grant.
      await this.grantMedia(current);
      return { channelId: channel.id, participants: this.rooms.inChannel(channel.id).map(toVoiceParticipant) };
    }
    this.requireRoomFor(client.userId, client.isBot, channel);
    if (current) {
      if (current.socketId !== client.socketId) {
        this.bus.publish(current.socketId, "voice:force-leave", { reason: FORCE_LEAVE_OTHER_DEVICE, channelId: current.channelId });
      }
      await this.removeParticipant(current, { audit: true });
    }
    await this.enter(client, channel);
    if (!handover?.moved) {
      await this.audit.record(channel.server_id, client.userId, "VOICE_JOIN", { type: "member", id: client.userId }, {
        channelId: channel.id,
        channelName: channel.name,
      });
    }
    return { channelId: channel.id, participants: this.rooms.inChannel(channel.id).map(toVoiceParticipant) };
  }

  /**
   * Whether the user may join the channel (`voice:join`'s checks, nothing done): asked of a
   * room's home before the user's room held by another node is left (cluster mode).
   */
  async admits(userId: string, channelId: string, isBot: boolean): Promise<void> {
    const { channel } = await this.requireVoiceChannel(channelId, userId, PERMISSIONS.CONNECT);
    this.requireRoomFor(userId, isBot, channel);
  }

  /** Refuses a join that would take the room past its mesh caps (the user's own earlier place in it aside). */
  private requireRoomFor(userId: string, isBot: boolean, channel: ChannelRow): void {
    this.requireMeshRoom(channel.id, userId, { kind: "join", meeting: channel.is_meeting === 1, isBot });
  }

  private requireMeshRoom(channelId: string, userId: string, change: MeshChange): void {
    if (this.media) return;
    const present = this.rooms.inChannel(channelId).filter((p) => p.userId !== userId);
    const refusal = meshRefusal(this.meshCaps, present, change);
    if (refusal) throw forbidden(refusal);
  }

  /**
   * The user joins a room held by another node (cluster mode): their room held here is left
   * first, as a join on one node leaves it (`voice:user-left`, VOICE_LEAVE, and
   * `voice:force-leave` when the join comes from another device). Answers what they carry.
   */
  async handOver(userId: string, otherDevice: boolean): Promise<Handover | null> {
    const current = this.rooms.ofUser(userId);
    if (!current) return null;
    if (otherDevice) this.bus.publish(current.socketId, "voice:force-leave", { reason: FORCE_LEAVE_OTHER_DEVICE, channelId: current.channelId });
    await this.removeParticipant(current, { audit: true });
    return { serverId: current.serverId };
  }

  /**
   * Another node let the user join a room it holds (cluster mode): one voice room per user, so
   * the one held here is left as when they join from another device (`voice:force-leave`).
   */
  async joinedElsewhere(userId: string, socketId: string): Promise<void> {
    const current = this.rooms.ofUser(userId);
    if (!current || current.socketId === socketId) return;
    // A signal that arrives after a later join here (the user went back and forth quickly) is
    // stale: the room named for the user (written before the signal is sent) is then held here.
    if ((await this.elsewhere.channelOf(userId)) === null) return;
    this.bus.publish(current.socketId, "voice:force-leave", { reason: FORCE_LEAVE_OTHER_DEVICE, channelId: current.channelId });
    await this.removeParticipant(current, { audit: true });
  }

  /** Leaves the socket's voice channel (a no-op answer when it is in none). */
  async leave(socketId: string): Promise<{ channelId: string | null }> {
    const participant = this.rooms.participant(socketId);
    if (!participant) return { channelId: null };
    await this.removeParticipant(participant, { audit: true });
    return { channelId: participant.channelId };
  }

  /**
   * Server mute and deafen come from the store (kept per member of the server, so leaving and
   * joining again does not lift them: only a moderator does).
   */
  private async enter(client: VoiceClient, channel: ChannelRow): Promise<Participant> {
    const meeting = channel.is_meeting === 1;
    const moderated = await this.store.moderation.voiceModeration(channel.server_id, client.userId);
    const participant: Participant = {
      socketId: client.socketId,
      userId: client.userId,
      username: client.username,
      isBot: client.isBot,
      serverId: channel.server_id,
      channelId: channel.id,
      muted: meeting,
      deafened: false,
      video: false,
      serverMuted: moderated?.server_muted === 1,
      serverDeafened: moderated?.server_deafened === 1,
      speaking: false,
      meetingRole: meeting ? "audience" : null,
      handRaised: false,
      listening: false,
      joinedAt: Date.now(),
    };
    const room = rooms.voice(channel.id);
    const others = this.rooms.inChannel(channel.id).filter((p) => p.socketId !== client.socketId);
    // Again, with no await between the count and the join: joins that were checked at once
    // (above, before their awaits) cannot together take the room past its caps.
    this.requireRoomFor(client.userId, client.isBot, channel);
    this.rooms.join(participant);
    this.elsewhere.joined(participant.userId, participant.socketId);
    this.bus.addToRoom(client.socketId, room);
    this.bus.publish(client.socketId, "voice:existing", others.map(toVoiceParticipant));
    this.bus.publish(room, "voice:user-joined", toVoiceParticipant(participant), [client.socketId]);
    this.occupants.changed(participant);
    await this.grantMedia(participant);
    return participant;
  }

  /**
   * With a media server, a person's page gets what it joins the room's media with
   * (`voice:media`); a media server that cannot let them in takes them out of the room again.
   */
  private async grantMedia(participant: Participant): Promise<void> {
    if (!this.media || participant.isBot) return;
    try {
      const grant = await this.media.admit(participant, (await this.speakError(participant)) === null);
      this.bus.publish(participant.socketId, "voice:media", grant);
    } catch {
      await this.removeParticipant(participant, { audit: false });
      throw forbidden(MEDIA_SERVER_UNAVAILABLE);
    }
  }

  /** Tells the media server whether the participant's audio may reach the others now. */
  private async updatePublishing(participant: Participant): Promise<void> {
    if (!this.media || participant.isBot || this.rooms.participant(participant.socketId) !== participant) return;
    await this.media.setPublishing(participant, (await this.speakError(participant)) === null);
  }

  /** Takes the participant out of the room: `voice:user-left` to those who stay; VOICE_LEAVE. */
  private async removeParticipant(participant: Participant, options: { audit: boolean }): Promise<void> {
    if (this.rooms.participant(participant.socketId) !== participant) return;
    this.rooms.leave(participant.socketId);
    const room = rooms.voice(participant.channelId);
    this.bus.removeFromRoom(participant.socketId, room);
    this.bus.publish(room, "voice:user-left", { socketId: participant.socketId });
    this.occupants.changed(participant);
    if (this.media && !participant.isBot) void this.media.release(participant).catch(() => {});
    if (options.audit && (await this.store.servers.findById(participant.serverId))) {
      await this.audit.record(participant.serverId, participant.userId, "VOICE_LEAVE", { type: "member", id: participant.userId }, {
        channelId: participant.channelId,
      });
    }
  }

  // ---- own state ----

  /** Own mute/deafen/video flags. An audience member of a meeting cannot unmute. */
  async setState(socketId: string, patch: { muted?: boolean; deafened?: boolean; video?: boolean }) {
    const participant = this.requireParticipant(socketId);
    if (patch.muted === false && participant.meetingRole === "audience") {
      throw forbidden("Audience members cannot unmute in a meeting; raise your hand to speak");
    }
    const next: Partial<Participant> = {};
    if (patch.muted !== undefined) next.muted = patch.muted;
    if (patch.deafened !== undefined) next.deafened = patch.deafened;
    if (patch.video !== undefined) next.video = patch.video;
    if (next.muted) next.speaking = false;
    this.rooms.update(socketId, next);
    const payload = this.statePayload(participant);
    this.bus.publish(rooms.voice(participant.channelId), "voice:state-update", payload);
    this.occupants.changed(participant);
    return payload;
  }

  /** The speaking indicator; turning it on needs the right to speak now and no self-mute. */
  async setSpeaking(socketId: string, speaking: boolean): Promise<{ speaking: boolean }> {
    const participant = this.requireParticipant(socketId);
    if (speaking) {
      const error = await this.speakError(participant);
      if (error) throw forbidden(error);
      if (participant.muted) throw forbidden("You are muted");
    }
    this.rooms.update(socketId, { speaking });
    this.bus.publish(rooms.voice(participant.channelId), "voice:speaking", { socketId, speaking });
    this.occupants.changed(participant);
    return { speaking };
  }

  /**
   * The voice channel the user is in (held here or, in cluster mode, by another node) with
   * their access there, when they may make themselves heard in it now: CONNECT and SPEAK (both
   * of which a timeout takes away), not server-muted (kept in the store, so read on any node),
   * and not in a meeting's audience (known where the room is held). The soundboard asks it.
   */
  async requireSpeaker(userId: string): Promise<ChannelContext> {
    const here = this.rooms.ofUser(userId);
    const channelId = here?.channelId ?? (await this.elsewhere.channelOf(userId));
    if (!channelId) throw badRequest("Join a voice channel first");
    const context = await this.access.requireChannel(channelId, userId);
    for (const bit of [PERMISSIONS.CONNECT, PERMISSIONS.SPEAK]) {
      if (!hasPermission(context.permissions, bit)) throw missingPermission(bit, context.member);
    }
    const moderated = await this.store.moderation.voiceModeration(context.channel.server_id, userId);
    if (moderated?.server_muted === 1) throw forbidden(SERVER_MUTED);
    if (here && context.channel.is_meeting === 1 && here.meetingRole !== "speaker") throw forbidden(AUDIENCE_CANNOT_SPEAK);
    return context;
  }

  /**
   * Relays a signaling payload to one peer of the sender's voice room, and nobody else; an
   * oversized payload is refused and relayed to no one (requireSignalSize).
   */
  signal(socketId: string, to: string, payload: Record<string, unknown>): { to: string } {
    requireSignalSize(payload);
    const sender = this.requireParticipant(socketId);
    const peer = this.rooms.participant(to);
    if (to === socketId) throw badRequest("to: cannot signal yourself");
    if (!peer || peer.channelId !== sender.channelId) throw notFound("Peer in your voice channel");
    const { to: _to, from: _from, userId: _userId, ...rest } = payload;
    this.bus.publish(to, "voice:signal", { ...rest, from: socketId, userId: sender.userId });
    return { to };
  }

  /**
   * A bot starts or stops hearing the people of the voice room it is in (docs/audio.md, "Bots
   * that listen"): their microphone frames (`voice:audio-data`) are delivered to it from then
   * on. Only bots may listen, only in the room they are in; the room is told with
   * `voice:listening` when the flag changes, so the people know who hears them.
   */
  setListening(client: VoiceClient, channelId: string, listening: boolean): { channelId: string; listening: boolean } {
    if (!client.isBot) throw forbidden(ONLY_BOTS_LISTEN);
    const participant = this.rooms.participant(client.socketId);
    if (!participant || participant.channelId !== channelId.toLowerCase()) throw forbidden(NOT_IN_THIS_VOICE_CHANNEL);
    if (participant.listening !== listening) {
      this.rooms.update(participant.socketId, { listening });
      this.bus.publish(rooms.voice(participant.channelId), "voice:listening", { socketId: participant.socketId, userId: participant.userId, listening });
    }
    return { channelId: participant.channelId, listening };
  }

  // ---- meetings ----

  /** Raises the caller's hand in the meeting they are in; needs SPEAK. */
  async raiseHand(socketId: string, userId: string, channelId: string) {
    const participant = this.requireParticipant(socketId);
    await this.requireMeeting(channelId, userId, PERMISSIONS.SPEAK);
    if (participant.channelId !== channelId) throw forbidden("You are not in this meeting");
    if (participant.meetingRole === "speaker") throw badRequest("You are already a speaker");
    this.rooms.update(socketId, { handRaised: true });
    return this.publishMeeting(participant);
  }

  /** Lowers the caller's hand, or another participant's with MUTE_MEMBERS. */
  async lowerHand(userId: string, channelId: string, targetUserId?: string) {
    const { permissions, member } = await this.requireMeeting(channelId, userId);
    const targetId = targetUserId ?? userId;
    if (targetId !== userId && !hasPermission(permissions, PERMISSIONS.MUTE_MEMBERS)) throw missingPermission(PERMISSIONS.MUTE_MEMBERS, member);
    const target = this.participantIn(channelId, targetId);
    this.rooms.update(target.socketId, { handRaised: false });
    return this.publishMeeting(target);
  }

  /**
   * Sets a participant's meeting role; needs MUTE_MEMBERS in the channel, and a higher rank to
   * make someone else audience. Becoming speaker lowers the hand; becoming audience mutes.
   */
  async setMeetingRole(actorId: string, channelId: string, targetUserId: string, role: MeetingRole) {
    const { member } = await this.requireMeeting(channelId, actorId, PERMISSIONS.MUTE_MEMBERS);
    const target = this.participantIn(channelId, targetUserId);
    if (role === "audience" && targetUserId !== actorId) await this.requireOutranks(member, targetUserId);
    if (role === "speaker" && target.meetingRole !== "speaker" && !target.isBot) this.requireMeshRoom(channelId, targetUserId, { kind: "speak" });
    const wasMuted = target.muted;
    this.rooms.update(target.socketId, role === "speaker" ? { meetingRole: role, handRaised: false } : { meetingRole: role, muted: true, speaking: false });
    const update = this.publishMeeting(target);
    if (target.muted !== wasMuted) this.bus.publish(rooms.voice(channelId), "voice:state-update", this.statePayload(target));
    await this.updatePublishing(target);
    return update;
  }

  // ---- moderation ----

  /**
   * MUTE_MEMBERS in the target's channel and a higher rank (or oneself). Kept in the store until
   * lifted: leaving and joining again does not end it.
   */
  async serverMute(actorId: string, targetUserId: string, muted: boolean) {
    const { target, member } = await this.moderate(actorId, targetUserId, PERMISSIONS.MUTE_MEMBERS);
    await this.store.moderation.setServerMuted(target.serverId, target.userId, muted);
    this.rooms.update(target.socketId, muted ? { serverMuted: true, speaking: false } : { serverMuted: false });
    const payload = { socketId: target.socketId, userId: target.userId, serverMuted: target.serverMuted };
    this.bus.publish(rooms.voice(target.channelId), "voice:admin-mute-update", payload);
    this.occupants.changed(target);
    await this.updatePublishing(target);
    await this.audit.record(member.server.id, actorId, muted ? "VOICE_SERVER_MUTE" : "VOICE_SERVER_UNMUTE", { type: "member", id: target.userId }, {
      channelId: target.channelId,
    });
    return payload;
  }

  /** DEAFEN_MEMBERS in the target's channel and a higher rank (or oneself); kept as server mute is. */
  async serverDeafen(actorId: string, targetUserId: string, deafened: boolean) {
    const { target, member } = await this.moderate(actorId, targetUserId, PERMISSIONS.DEAFEN_MEMBERS);
    await this.store.moderation.setServerDeafened(target.serverId, target.userId, deafened);
    this.rooms.update(target.socketId, { serverDeafened: deafened });
    const payload = { socketId: target.socketId, userId: target.userId, serverDeafened: target.serverDeafened };
    this.bus.publish(rooms.voice(target.channelId), "voice:admin-deafen-update", payload);
    this.occupants.changed(target);
    await this.audit.record(member.server.id, actorId, deafened ? "VOICE_SERVER_DEAFEN" : "VOICE_SERVER_UNDEAFEN", { type: "member", id: target.userId }, {
      channelId: target.channelId,
    });
    return payload;
  }

  /**
   * MOVE_MEMBERS in both channels and a higher rank (or oneself); the target channel is a voice
   * channel of the same server that the target can see and connect to. The target's socket gets
   * `voice:force-move`, then leaves and joins with the usual events. VOICE_MOVE.
   */
  async move(actorId: string, targetUserId: string, channelId: string) {
    const { target, member } = await this.moderate(actorId, targetUserId, PERMISSIONS.MOVE_MEMBERS);
    const { channel } = await this.requireVoiceChannel(channelId, actorId, PERMISSIONS.MOVE_MEMBERS);
    if (channel.server_id !== target.serverId) throw badRequest("channelId: must be a voice channel of the same server");
    if (channel.id === target.channelId) throw badRequest("channelId: the member is already in that channel");
    const targetMember = await this.access.memberOf(member.server, target.userId);
    const allowed = targetMember && (await this.access.channelPermissions(channel, targetMember));
    if (!allowed || !hasPermission(allowed, PERMISSIONS.VIEW_CHANNEL | PERMISSIONS.CONNECT)) {
      throw forbidden("That member cannot connect to the target channel");
    }
    const from = target.channelId;
    // Another living node holds the target room (cluster mode): the member joins it there.
    const across = !(await this.elsewhere.mayHold(channel.id));
    // The room's home checks its caps (across: the join there); checked first here, so a refused move leaves the member where they are.
    if (!across) this.requireRoomFor(target.userId, target.isBot, channel);
    this.bus.publish(target.socketId, "voice:force-move", { channelId: channel.id, fromChannelId: from });
    await this.removeParticipant(target, { audit: false });
    if (across) {
      const handover = { serverId: target.serverId, moved: true };
      await this.elsewhere.moveAcross(target.socketId, channel.id, handover);
    } else await this.enter(target, channel);
    await this.audit.record(member.server.id, actorId, "VOICE_MOVE", { type: "member", id: target.userId }, {
      fromChannelId: from,
      toChannelId: channel.id,
    });
    return { userId: target.userId, channelId: channel.id };
  }

  /** MOVE_MEMBERS in the target's channel and a higher rank (or oneself). VOICE_DISCONNECT. */
  async disconnect(actorId: string, targetUserId: string) {
    const { target, member } = await this.moderate(actorId, targetUserId, PERMISSIONS.MOVE_MEMBERS);
    this.bus.publish(target.socketId, "voice:force-disconnect", { reason: FORCE_DISCONNECT_MODERATOR, channelId: target.channelId });
    await this.removeParticipant(target, { audit: false });
    await this.audit.record(member.server.id, actorId, "VOICE_DISCONNECT", { type: "member", id: target.userId }, {
      channelId: target.channelId,
    });
    return { userId: target.userId, channelId: target.channelId };
  }

  // ---- queries ----

  /** Where a user is in voice in a server the caller belongs to (null when not, or not visible). */
  async query(callerId: string, serverId: string, userId: string) {
    const caller = await this.access.member(serverId, callerId);
    const participant = this.rooms.ofUser(userId);
    if (!participant || participant.serverId !== caller.server.id || !(await this.canSee(caller, participant.channelId))) {
      return { channelId: null, participant: null };
    }
    return { channelId: participant.channelId, participant: toVoiceParticipant(participant) };
  }

  /** A voice channel's participants; needs VIEW_CHANNEL. */
  async participants(callerId: string, channelId: string) {
    const { channel } = await this.requireVoiceChannel(channelId, callerId);
    return { channelId: channel.id, participants: this.rooms.inChannel(channel.id).map(toVoiceParticipant) };
  }

  /** The voice channel the user is in, in a room held here or (cluster mode) by another node; null when none. */
  async channelOf(userId: string): Promise<string | null> {
    return this.rooms.ofUser(userId)?.channelId ?? (await this.elsewhere.channelOf(userId));
  }

  /** The caller's accepted friends in voice, in channels the caller can see. */
  async friendsActivity(userId: string): Promise<FriendVoiceActivity[]> {
    const activity: FriendVoiceActivity[] = [];
    for (const friendId of await this.store.friends.friendIds(userId)) {
      const channelId = await this.channelOf(friendId);
      if (!channelId) continue;
      const channel = await this.store.channels.findById(channelId);
      const [server, friend] = await Promise.all([channel ? this.store.servers.findById(channel.server_id) : null, this.store.users.findById(friendId)]);
      if (!server || !channel || !friend) continue;
      const caller = await this.access.memberOf(server, userId);
      if (!caller || !hasPermission(await this.access.channelPermissions(channel, caller), PERMISSIONS.VIEW_CHANNEL)) continue;
      activity.push({
        user_id: friend.id,
        username: friend.username,
        avatar: friend.avatar,
        channel_id: channel.id,
        channel_name: channel.name,
        server_id: server.id,
        server_name: server.name,
      });
    }
    return activity;
  }

  // ---- losing access ----

  /** A member left, was kicked or banned: out of that server's voice (`voice:force-disconnect`). */
  async memberRemoved(serverId: string, userId: string): Promise<void> {
    const participant = this.rooms.ofUser(userId);
    if (!participant || participant.serverId !== serverId) return;
    await this.forceOut(participant, FORCE_DISCONNECT_REMOVED);
  }

  /**
   * After permissions changed: participants who can no longer see or connect are taken out
   * (a timeout takes CONNECT away: Discord disconnects a member it times out, too).
   */
  async accessChanged(serverId: string, userIds?: string[]): Promise<void> {
    const server = await this.store.servers.findById(serverId);
    if (!server) return;
    for (const participant of this.rooms.all()) {
      if (participant.serverId !== serverId || (userIds && !userIds.includes(participant.userId))) continue;
      const channel = await this.store.channels.findById(participant.channelId);
      const member = await this.access.memberOf(server, participant.userId);
      const permissions = channel && member ? await this.access.channelPermissions(channel, member) : 0;
      if (!hasPermission(permissions, PERMISSIONS.VIEW_CHANNEL | PERMISSIONS.CONNECT)) {
        await this.forceOut(participant, member?.timedOut ? FORCE_DISCONNECT_TIMED_OUT : FORCE_DISCONNECT_ACCESS);
      } else await this.updatePublishing(participant);
    }
  }

  /** A voice channel was deleted: everyone in it is disconnected. */
  async channelDeleted(channel: { id: string }): Promise<void> {
    for (const participant of this.rooms.inChannel(channel.id)) {
      await this.forceOut(participant, FORCE_DISCONNECT_DELETED);
    }
  }

  private async forceOut(participant: Participant, reason: string): Promise<void> {
    this.bus.publish(participant.socketId, "voice:force-disconnect", { reason, channelId: participant.channelId });
    await this.removeParticipant(participant, { audit: true });
  }

  // ---- helpers ----

  private requireParticipant(socketId: string): Participant {
    const participant = this.rooms.participant(socketId);
    if (!participant) throw badRequest(NOT_IN_VOICE);
    return participant;
  }

  private participantIn(channelId: string, userId: string): Participant {
    const participant = this.rooms.ofUser(userId);
    if (!participant || participant.channelId !== channelId) throw notFound("Participant");
    return participant;
  }

  /** A voice channel the user can see, with `bit` too; a text channel is a 400. */
  private async requireVoiceChannel(channelId: string, userId: string, bit = 0): Promise<ChannelContext> {
    const context = await this.access.requireChannel(channelId, userId);
    if (context.channel.type !== "voice") throw badRequest("Not a voice channel");
    if (bit && !hasPermission(context.permissions, bit)) throw missingPermission(bit, context.member);
    return context;
  }

  private async requireMeeting(channelId: string, userId: string, bit = 0): Promise<ChannelContext> {
    const context = await this.requireVoiceChannel(channelId, userId, bit);
    if (context.channel.is_meeting !== 1) throw badRequest("Not a meeting channel");
    return context;
  }

  /** The target's participant and the actor's standing, with `bit` in the target's channel. */
  private async moderate(actorId: string, targetUserId: string, bit: number): Promise<{ target: Participant; member: MemberContext }> {
    const target = this.rooms.ofUser(targetUserId);
    if (!target) throw notFound("Member in voice");
    const channel = await this.access.channel(target.channelId);
    const member = await this.access.member(channel.server_id, actorId);
    const permissions = await this.access.channelPermissions(channel, member);
    if (!hasPermission(permissions, PERMISSIONS.VIEW_CHANNEL)) throw notFound("Member in voice");
    if (!hasPermission(permissions, bit)) throw missingPermission(bit, member);
    if (targetUserId !== actorId) await this.requireOutranks(member, targetUserId);
    return { target, member };
  }

  private async requireOutranks(actor: MemberContext, targetUserId: string): Promise<void> {
    const target = await this.access.memberOf(actor.server, targetUserId);
    if (!target) throw notFound("Member");
    this.access.requireOutranks(actor, target);
  }

  private async canSee(member: MemberContext, channelId: string): Promise<boolean> {
    const channel = await this.store.channels.findById(channelId);
    return !!channel && hasPermission(await this.access.channelPermissions(channel, member), PERMISSIONS.VIEW_CHANNEL);
  }

  private statePayload(p: Participant) {
    return { socketId: p.socketId, userId: p.userId, muted: p.muted, deafened: p.deafened, video: p.video };
  }

  private publishMeeting(p: Participant) {
    const payload = { socketId: p.socketId, userId: p.userId, meetingRole: p.meetingRole ?? "audience", handRaised: p.handRaised };
    this.bus.publish(rooms.voice(p.channelId), "voice:meeting-update", payload);
    this.occupants.changed(p);
    return payload;
  }
}
