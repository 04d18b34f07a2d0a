/**
 * People's audio in voice rooms through Janus's VideoRoom (docs/voice.md, "Janus"). One Janus
 * room per voice channel with people in it, named by the channel's id (the plugin's
 * `string_ids`), on one of the configured instances (the same on every node: rendezvous
 * hashing over the instances that answer). Who gets in is Hearth's to say:
 *
 * - each join gets a token of its own, stored in Janus's core (`token_auth`, `add_token`) and in
 *   the room's allow list (`allowed`); leaving kicks the participant and revokes both;
 * - a person who may not publish (server mute, a meeting's audience, SPEAK taken away) is
 *   muted by Janus's moderation (`moderate`, the page's one audio stream at mid "0"), again at
 *   every reconcile until allowed back, so a page that publishes anyway is not heard;
 * - every few seconds each room's participants are compared with Hearth's: a participant
 *   Janus has and Hearth does not (a leaked or replayed token, an id taken over) is kicked.
 *
 * Everything goes through the Admin API with JANUS_SECRET (Janus's `admin_secret`, also the
 * VideoRoom's `admin_key`), so no browser can create, change or destroy a room. Changes to one
 * room run one at a time (KeyedQueue); a Janus that stops answering is taken out of the choice
 * until it answers again, and its rooms are made again elsewhere as their people rejoin.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Logger } from "../log.ts";
import type { MediaGrant, MediaServer } from "../domain/voice/media-server.ts";
import type { Participant } from "../domain/voice/voice-rooms.ts";
import { KeyedQueue } from "../domain/shared/keyed-queue.ts";
import { JanusAdmin, JanusError, VIDEOROOM_ERRORS } from "./janus-admin.ts";
import type { JanusSettings } from "./janus-settings.ts";

/** The mid of the one audio stream a Hearth page publishes (its only transceiver). */
const AUDIO_MID = "0";
const HEALTH_INTERVAL_MS = 5000;
const RECONCILE_INTERVAL_MS = 5000;
/** The VideoRoom's cap on publishers in one room; Hearth's own rules decide who publishes. */
const MAX_PUBLISHERS = 1000;

interface Instance {
  url: string;
  admin: JanusAdmin;
  alive: boolean;
}

interface Room {
  instance: Instance;
  /** The join token of each socket let in. */
  tokens: Map<string, string>;
  /** Sockets whose audio Janus holds back. */
  muted: Set<string>;
}

export class JanusRooms implements MediaServer {
  readonly urls: readonly string[];
  private readonly instances: Instance[];
  private readonly rooms = new Map<string, Room>();
  private readonly perRoom = new KeyedQueue();
  private timers: ReturnType<typeof setInterval>[] = [];

  constructor(
    private readonly settings: JanusSettings,
    private readonly log: Logger,
  ) {
    this.urls = settings.urls;
    this.instances = settings.urls.map((url, at) => ({ url, admin: new JanusAdmin(settings.adminUrls[at]!, settings.secret), alive: true }));
  }

  /** Starts the health checks and the reconcile. */
  start(): void {
    this.timers.push(setInterval(() => this.once("health", () => this.checkHealth()), HEALTH_INTERVAL_MS), setInterval(() => this.once("reconcile", () => this.reconcileAll()), RECONCILE_INTERVAL_MS));
    for (const timer of this.timers) timer.unref?.();
  }

  /** A periodic pass that is still running (a slow Janus: each call waits up to 3 s) is not started again beside itself. */
  private readonly passes = new Set<string>();
  private once(name: string, pass: () => Promise<void>): void {
    if (this.passes.has(name)) return;
    this.passes.add(name);
    void pass().finally(() => this.passes.delete(name));
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  admit(participant: Participant, mayPublish: boolean): Promise<MediaGrant> {
    return this.perRoom.run(participant.channelId, async () => {
      try {
        return await this.let(participant, mayPublish);
      } catch (error) {
        // The instance did not answer: out of the choice, and the room made again on another.
        if (!(error instanceof JanusError) || error.code !== null) throw this.refused(participant, error);
        this.lost(this.rooms.get(participant.channelId)?.instance ?? this.choose(participant.channelId), error);
        return await this.let(participant, mayPublish).catch((again) => {
          throw this.refused(participant, again);
        });
      }
    });
  }

  release(participant: Participant): Promise<void> {
    return this.perRoom.run(participant.channelId, async () => {
      const room = this.rooms.get(participant.channelId);
      const token = room?.tokens.get(participant.socketId);
      if (!room || !token) return;
      room.tokens.delete(participant.socketId);
      room.muted.delete(participant.socketId);
      await this.quietly("kick", () => this.revoke(room, participant.channelId, participant.socketId, token));
      if (room.tokens.size === 0) {
        this.rooms.delete(participant.channelId);
        await this.quietly("destroy", () => room.instance.admin.videoRoom({ request: "destroy", room: participant.channelId, secret: this.roomSecret(participant.channelId) }));
      }
    });
  }

  setPublishing(participant: Participant, mayPublish: boolean): Promise<void> {
    return this.perRoom.run(participant.channelId, async () => {
      const room = this.rooms.get(participant.channelId);
      if (!room?.tokens.has(participant.socketId)) return;
      if (mayPublish === !room.muted.has(participant.socketId)) return;
      if (mayPublish) room.muted.delete(participant.socketId);
      else room.muted.add(participant.socketId);
      await this.moderate(room, participant.channelId, participant.socketId, !mayPublish);
    });
  }

  private async let(participant: Participant, mayPublish: boolean): Promise<MediaGrant> {
    const { channelId, socketId } = participant;
    const room = await this.roomFor(channelId);
    // The same socket again (it lost its media connection and joins again): its old token goes.
    const earlier = room.tokens.get(socketId);
    if (earlier) await this.quietly("kick", () => this.revoke(room, channelId, socketId, earlier));
    const token = randomBytes(24).toString("base64url");
    await room.instance.admin.addToken(token);
    await room.instance.admin.videoRoom({ request: "allowed", room: channelId, secret: this.roomSecret(channelId), action: "add", allowed: [token] });
    room.tokens.set(socketId, token);
    if (mayPublish) room.muted.delete(socketId);
    else room.muted.add(socketId);
    return { channelId, server: "janus", url: room.instance.url, room: channelId, token, id: socketId };
  }

  /** The channel's Janus room, made on the chosen instance when there is none. */
  private async roomFor(channelId: string): Promise<Room> {
    const known = this.rooms.get(channelId);
    if (known?.instance.alive) return known;
    if (known) this.rooms.delete(channelId);
    const instance = this.choose(channelId);
    try {
      await instance.admin.videoRoom({
        request: "create",
        room: channelId,
        admin_key: this.settings.secret,
        secret: this.roomSecret(channelId),
        description: `Hearth voice channel ${channelId}`,
        is_private: true,
        permanent: false,
        publishers: MAX_PUBLISHERS,
        audiocodec: "opus",
        // An empty allow list turns the check on: only the tokens Hearth adds get in.
        allowed: [],
        notify_joining: false,
      });
    } catch (error) {
      // Left from before a restart of this node: the secret is derived, so it is still Hearth's.
      if (!(error instanceof JanusError) || error.code !== VIDEOROOM_ERRORS.ROOM_EXISTS) throw error;
    }
    const room: Room = { instance, tokens: new Map(), muted: new Set() };
    this.rooms.set(channelId, room);
    return room;
  }

  /** The living instance with the highest hash of (channel, instance): the same answer on every node. */
  private choose(channelId: string): Instance {
    const living = this.instances.filter((instance) => instance.alive);
    const candidates = living.length > 0 ? living : this.instances;
    let best = candidates[0]!;
    let bestScore = "";
    for (const instance of candidates) {
      const score = createHash("sha1").update(`${channelId}|${instance.url}`).digest("hex");
      if (score > bestScore) [best, bestScore] = [instance, score];
    }
    return best;
  }

  private async revoke(room: Room, channelId: string, socketId: string, token: string): Promise<void> {
    const secret = this.roomSecret(channelId);
    await room.instance.admin.videoRoom({ request: "kick", room: channelId, secret, id: socketId }).catch((error) => {
      // Not in the Janus room (never joined, or already gone): nothing to kick.
      if (!(error instanceof JanusError) || error.code === null) throw error;
    });
    await room.instance.admin.videoRoom({ request: "allowed", room: channelId, secret, action: "remove", allowed: [token] });
    await room.instance.admin.removeToken(token);
  }

  private async moderate(room: Room, channelId: string, socketId: string, mute: boolean): Promise<void> {
    await room.instance.admin
      .videoRoom({ request: "moderate", room: channelId, secret: this.roomSecret(channelId), id: socketId, mid: AUDIO_MID, mute })
      .catch((error) => {
        // Not publishing yet: the reconcile mutes the stream once it exists.
        if (error instanceof JanusError && error.code !== null) return;
        this.log.warn("janus: moderation failed", { channelId, socketId, error });
      });
  }

  /** Kicks participants Hearth did not let in, and holds back the audio of those who may not publish. */
  private async reconcile(channelId: string): Promise<void> {
    const room = this.rooms.get(channelId);
    if (!room?.instance.alive) return;
    const answer = await room.instance.admin.videoRoom({ request: "listparticipants", room: channelId });
    const participants = (answer.participants ?? []) as { id?: unknown; publisher?: unknown }[];
    const secret = this.roomSecret(channelId);
    for (const { id, publisher } of participants) {
      if (typeof id !== "string") continue;
      if (!room.tokens.has(id)) {
        this.log.warn("janus: a participant Hearth did not let in was kicked", { channelId, id });
        await this.quietly("kick", () => room.instance.admin.videoRoom({ request: "kick", room: channelId, secret, id }));
      } else if (publisher === true && room.muted.has(id)) {
        await this.moderate(room, channelId, id, true);
      }
    }
  }

  private async reconcileAll(): Promise<void> {
    for (const channelId of [...this.rooms.keys()]) {
      await this.perRoom.run(channelId, () => this.reconcile(channelId)).catch((error) => this.log.warn("janus: reconcile failed", { channelId, error }));
    }
  }

  private async checkHealth(): Promise<void> {
    for (const instance of this.instances) {
      try {
        await instance.admin.info();
        if (!instance.alive) this.log.info("janus: instance answers again", { url: instance.url });
        instance.alive = true;
      } catch (error) {
        if (instance.alive) this.lost(instance, error);
      }
    }
  }

  /** An instance stopped answering: its rooms are forgotten (their people's pages join again, and get rooms elsewhere). */
  private lost(instance: Instance, error: unknown): void {
    instance.alive = false;
    const rooms = [...this.rooms].filter(([, room]) => room.instance === instance).map(([channelId]) => channelId);
    for (const channelId of rooms) this.rooms.delete(channelId);
    this.log.error("janus: instance lost", { url: instance.url, rooms: rooms.length, error });
  }

  /** Logged once here: the join is refused with the voice domain's own message. */
  private refused(participant: Participant, error: unknown): unknown {
    this.log.warn("janus: a join could not be let in", { channelId: participant.channelId, error });
    return error;
  }

  /** A room's secret, derived from JANUS_SECRET: the same on every node and after a restart. */
  private roomSecret(channelId: string): string {
    return createHmac("sha256", this.settings.secret).update(`hearth-janus-room:${channelId}`).digest("base64url");
  }

  private async quietly(what: string, step: () => Promise<unknown>): Promise<void> {
    await step().catch((error) => this.log.warn(`janus: ${what} failed`, { error }));
  }
}
