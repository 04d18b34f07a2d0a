/**
 * The reader in a voice channel (docs/web.md, "Voice"): joining and leaving, the room's
 * participants kept current by the gateway's voice events, the microphone (voice activity or
 * push-to-talk), people's voices over a WebRTC mesh (`voice:signal`), bots' PCM frames played
 * by the audio worklet, the frames sent to bots that listen (`voice:audio-data`), meetings,
 * moderation and the soundboard. One voice channel at a time, as the server allows.
 *
 * The room lost without the reader choosing to leave (the gateway dropped and comes back, or
 * the node holding the room died: `voice:error`, docs/audio.md "Several nodes"): the page shows
 * "Reconnecting…" and joins the same channel again by itself, with backoff, keeping the
 * microphone; a gateway closed for good ends voice as before.
 */
import { batch, computed, effect, signal } from "@preact/signals";
import { isVoiceRoomLost, rejoinDelayMs, type ClientEventName, type Gateway, type GatewayEventName, type Listener, type PayloadArgs } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import type { AudioEngine } from "../audio/audio-engine.ts";
import { Microphone } from "./microphone.ts";
import type { IceConfiguration } from "./ice-servers.ts";
import { PeerMesh, type Signal } from "./peer-mesh.ts";
import type { JanusRoom, MediaGrant } from "./janus-room.ts";
import { applyRoomEvent, listeningBots, maySpeak, ROOM_EVENTS, transmitting, type RoomEvent, type TalkMode } from "./room.ts";
import type { MeetingRole, SoundboardPlayed, VoiceParticipant } from "./types.ts";

/** The channel the reader is in, as the page names it. */
interface VoiceChannelInfo {
  id: string;
  serverId: string;
  name: string;
  meeting: boolean;
}

const MODE_KEY = "hearth.voice.mode";

/** Janus's client, loaded the first time a room goes through Janus (most hosts have none: the first load stays lean). */
let janusClient: Promise<typeof import("./janus-room.ts")> | null = null;
const loadJanus = () => (janusClient ??= import("./janus-room.ts"));

/** Frames, signals and the speaking switch are of the moment: dropped, never queued, while the connection is down. */
const LIVE = { dropWhileDisconnected: true };

export class VoiceSession {
  readonly channel = signal<VoiceChannelInfo | null>(null);
  readonly status = signal<"idle" | "joining" | "connected" | "reconnecting">("idle");
  readonly participants = signal<VoiceParticipant[]>([]);
  /** The last refusal (`voice:error`, or a request that failed). */
  readonly error = signal<string | null>(null);
  /** Why the reader is no longer in voice, or where they were moved. */
  readonly notice = signal<string | null>(null);
  readonly mode = signal<TalkMode>(localStorage.getItem(MODE_KEY) === "push-to-talk" ? "push-to-talk" : "voice-activity");
  readonly talkHeld = signal(false);
  readonly lastSound = signal<SoundboardPlayed | null>(null);
  readonly mic: Microphone;
  readonly me = computed(() => this.participants.value.find((p) => p.userId === this.userId()));
  /** Set from a click on Mute (or Deafen) until the server answers: nothing goes out meanwhile. */
  private readonly muting = signal(false);
  readonly transmitting = computed(() =>
    transmitting({
      me: this.muting.value && this.me.value ? { ...this.me.value, muted: true } : this.me.value,
      micLive: this.mic.state.value === "on",
      mode: this.mode.value,
      voiceDetected: this.mic.voiceDetected.value,
      talkHeld: this.talkHeld.value,
    }),
  );
  private mesh: PeerMesh;
  /** With a media server (the server sent `voice:media`): people's voices through Janus instead of the mesh. */
  private janus: JanusRoom | null = null;
  /** The last grant the server sent, until the page is connected to its room. */
  private grant: MediaGrant | null = null;
  /** The grant being started while Janus's client loads (a later grant, or leaving, supersedes it). */
  private starting: MediaGrant | null = null;
  private speakingSent = false;

  constructor(
    private readonly gateway: Gateway,
    readonly engine: AudioEngine,
    private readonly userId: () => string | undefined,
    /** Looks up a channel of a server (after being moved there). */
    private readonly channelInfo: (serverId: string, channelId: string) => VoiceChannelInfo | undefined,
    private readonly ice: IceConfiguration,
  ) {
    this.mic = new Microphone((pcm, sampleRate) => {
      const channel = this.channel.value;
      if (channel) this.gateway.send("voice:audio-data", { channelId: channel.id, pcm, sampleRate, channels: 1 }, LIVE);
    });
    this.mesh = this.newMesh();
    this.bindEvents();
    // What goes out follows the state: the WebRTC track, the speaking indicator, frames for listening bots.
    effect(() => {
      const on = this.transmitting.value;
      const bots = listeningBots(this.participants.value).length > 0;
      this.mic.setLive(on);
      this.mic.capture(on && bots);
      if (this.status.value === "connected" && on !== this.speakingSent) {
        this.speakingSent = on;
        this.gateway.send("voice:speaking", { speaking: on }, LIVE);
      }
    });
    effect(() => {
      const me = this.me.value;
      this.engine.setDeafened(Boolean(me && (me.deafened || me.serverDeafened)));
    });
    // Through Janus a meeting's audience sends nothing at all (the server's moderation holds back the rest).
    effect(() => {
      const me = this.me.value;
      this.janus?.setPublishing(Boolean(me && me.meetingRole !== "audience"));
    });
    // A lost connection takes the socket out of voice on the server: joined again once it is back, unless it is gone for good.
    const lost = () => {
      if (this.status.peek() !== "idle") this.end("You lost the connection to the server, so you left voice.");
    };
    this.gateway.on("disconnected", ({ willReconnect }) => (willReconnect ? this.roomLost() : lost()));
    this.gateway.on("resumed", () => {
      if (this.status.peek() === "reconnecting") void this.rejoin();
    });
    this.gateway.on("closed", lost);
  }

  private newMesh(): PeerMesh {
    return new PeerMesh({
      send: (to, signal) => void this.gateway.send("voice:signal", { to, ...signal }, LIVE),
      onStream: (peer, stream) => {
        const person = this.participants.value.find((p) => p.socketId === peer);
        if (person) this.engine.attachStream(person.userId, stream);
      },
      track: () => this.mic.track,
      configuration: () => this.ice.current(),
    });
  }

  isIn(channelId: string): boolean {
    return this.channel.value?.id === channelId && this.status.value !== "idle";
  }

  /** Joins (from a click: the audio context may start then), then asks for the microphone. */
  async join(channel: VoiceChannelInfo): Promise<void> {
    if (this.isIn(channel.id)) return;
    this.reset();
    batch(() => {
      this.error.value = null;
      this.notice.value = null;
      this.channel.value = channel;
      this.status.value = "joining";
    });
    const audio = this.engine.start();
    // Asked while the join is: both are needed before this page offers to the people in the room.
    const ice = this.ice.ready();
    let participants: VoiceParticipant[];
    try {
      participants = (await this.gateway.emit("voice:join", { channelId: channel.id })).participants;
    } catch (error) {
      if (this.channel.value !== channel) return;
      this.error.value = errorMessage(error);
      this.reset();
      return;
    }
    if (this.channel.value !== channel) return;
    try {
      await audio;
    } catch {
      this.error.value = "This browser could not start audio for voice.";
    }
    await ice;
    if (this.channel.value !== channel) return;
    batch(() => {
      this.participants.value = participants;
      this.status.value = "connected";
    });
    this.connectPeople();
    const track = await this.mic.open(this.engine);
    if (this.channel.value === channel) this.setTrack(track);
  }

  private setTrack(track: MediaStreamTrack | null): void {
    this.mesh.setTrack(track);
    this.janus?.setTrack(track);
  }

  /** Out of the people's media: the mesh's connections, or the Janus room. */
  private closeMedia(): void {
    this.mesh.close();
    this.mesh = this.newMesh();
    this.janus?.close();
    this.janus = null;
    this.starting = null;
  }

  /** Into the room's media through Janus, with the grant the server sent for this channel. */
  private startJanus(): void {
    const grant = this.grant;
    const channel = this.channel.peek();
    if (!grant || !channel || grant.channelId !== channel.id || this.status.peek() !== "connected") return;
    this.grant = null;
    this.janus?.close();
    this.janus = null;
    this.starting = grant;
    loadJanus().then(
      ({ JanusRoom }) => {
        if (this.starting !== grant || this.channel.peek()?.id !== grant.channelId || this.status.peek() !== "connected") return;
        this.starting = null;
        const room: JanusRoom = new JanusRoom(grant, {
          onStream: (feed, stream) => {
            const person = this.participants.value.find((p) => p.socketId === feed);
            if (person) this.engine.attachStream(person.userId, stream);
          },
          onLost: () => {
            if (this.janus === room) this.roomLost();
          },
          configuration: () => this.ice.current(),
        });
        this.janus = room;
        const me = this.me.peek();
        room.setPublishing(Boolean(me && me.meetingRole !== "audience"));
        room.setTrack(this.mic.track);
        room.start().catch((error: Error) => {
          if (this.janus !== room) return;
          console.warn("voice: Janus", error);
          this.roomLost();
        });
      },
      () => {
        // The client could not be loaded (the page's files changed under it): join again.
        if (this.starting === grant) this.roomLost();
      },
    );
  }

  /** Out of the room without leaving: "Reconnecting…", the people's connections dropped, the microphone kept. */
  private roomLost(): void {
    if (this.status.peek() === "idle" || this.status.peek() === "reconnecting") return;
    this.closeMedia();
    for (const id of this.engine.speakerIds()) this.engine.detach(id);
    this.speakingSent = false;
    batch(() => {
      this.participants.value = [];
      this.status.value = "reconnecting";
    });
    if (this.gateway.connected) void this.rejoin();
  }

  private rejoining = false;
  /** Joins the same channel again, with backoff, while the page is reconnecting to it (a leave or another join stops it). */
  private async rejoin(): Promise<void> {
    const channel = this.channel.peek();
    if (this.rejoining || !channel) return;
    this.rejoining = true;
    try {
      for (let attempt = 1; this.status.peek() === "reconnecting" && this.channel.peek() === channel; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, rejoinDelayMs(attempt)));
        if (this.status.peek() !== "reconnecting" || this.channel.peek() !== channel) return;
        // While the gateway is down it comes back on `resumed`.
        if (!this.gateway.connected) return;
        let participants: VoiceParticipant[];
        try {
          participants = (await this.gateway.emit("voice:join", { channelId: channel.id })).participants;
        } catch {
          continue;
        }
        if (this.status.peek() !== "reconnecting" || this.channel.peek() !== channel) return;
        batch(() => {
          this.error.value = null;
          this.participants.value = participants;
          this.status.value = "connected";
        });
        this.connectPeople();
        this.setTrack(this.mic.track);
        return;
      }
    } finally {
      this.rejoining = false;
    }
  }

  /**
   * Offers to every person already in the room (this page arrived after them). How many that
   * may be is the server's to decide (its mesh caps, docs/voice.md "Room sizes"), not the page's.
   */
  private connectPeople(): void {
    if (this.grant) return this.startJanus();
    const people = this.participants.value.filter((p) => !p.isBot && p.userId !== this.userId());
    for (const person of people) this.mesh.connect(person.socketId);
  }

  async leave(): Promise<void> {
    if (this.status.value === "idle") return;
    this.reset();
    await this.gateway.emit("voice:leave").catch(() => {});
  }

  /** Out of voice with a reason the page shows. */
  private end(reason: string): void {
    this.reset();
    this.error.value = null;
    this.notice.value = reason;
  }

  private reset(): void {
    // Out of the room first, so that nothing below (the microphone closing) is sent to it.
    this.speakingSent = false;
    batch(() => {
      this.participants.value = [];
      this.channel.value = null;
      this.status.value = "idle";
      this.talkHeld.value = false;
    });
    this.grant = null;
    this.closeMedia();
    this.mic.close();
    this.engine.stop();
  }

  // Own state -------------------------------------------------------------------------

  setMode(mode: TalkMode): void {
    localStorage.setItem(MODE_KEY, mode);
    this.mode.value = mode;
  }

  /** Own mute (`voice:state`); the server's answer reaches the room, this page included. */
  async setMuted(muted: boolean): Promise<void> {
    if (muted) this.muting.value = true;
    try {
      await this.request("voice:state", { muted });
    } finally {
      this.muting.value = false;
    }
  }

  /** Deafening also mutes (nobody talks without hearing); undeafening restores the mute as it was. */
  private mutedBeforeDeafen = false;
  async setDeafened(deafened: boolean): Promise<void> {
    const me = this.me.value;
    if (!me) return;
    if (deafened) {
      this.mutedBeforeDeafen = me.muted;
      this.muting.value = true;
      try {
        await this.request("voice:state", { deafened: true, muted: true });
      } finally {
        this.muting.value = false;
      }
    } else {
      await this.request("voice:state", me.meetingRole === "audience" ? { deafened: false } : { deafened: false, muted: this.mutedBeforeDeafen });
    }
  }

  // Meetings and moderation ---------------------------------------------------------------

  raiseHand = () => this.request("voice:raise-hand", { channelId: this.channel.value?.id ?? "" });
  lowerHand = (userId?: string) => this.request("voice:lower-hand", userId ? { channelId: this.channel.value?.id ?? "", targetUserId: userId } : { channelId: this.channel.value?.id ?? "" });
  setMeetingRole = (userId: string, role: MeetingRole) => this.request("voice:set-meeting-role", { channelId: this.channel.value?.id ?? "", userId, role });
  serverMute = (userId: string, muted: boolean) => this.request("voice:server-mute", { userId, muted });
  serverDeafen = (userId: string, deafened: boolean) => this.request("voice:server-deafen", { userId, deafened });
  move = (userId: string, channelId: string) => this.request("voice:move", { userId, channelId });
  disconnect = (userId: string) => this.request("voice:disconnect", { userId });

  /** A request whose refusal is shown (it also arrives as voice:error). */
  private async request<E extends ClientEventName>(event: E, ...payload: PayloadArgs<E>): Promise<boolean> {
    try {
      await this.gateway.emit(event, ...payload);
      return true;
    } catch (error) {
      this.error.value = errorMessage(error);
      return false;
    }
  }

  /** Whether the server lets the reader's voice out (their own mute aside). */
  maySpeak(): boolean {
    const me = this.me.value;
    return Boolean(me && maySpeak(me));
  }

  // Gateway events -------------------------------------------------------------------------

  private bindEvents(): void {
    const on = <E extends GatewayEventName>(event: E, listener: Listener<E>) => this.gateway.on(event, listener);
    for (const type of ROOM_EVENTS) {
      on(type, (payload) => {
        if (this.status.value !== "connected") return;
        const event = { type, payload } as RoomEvent;
        this.participants.value = applyRoomEvent(this.participants.value, event);
        if (type === "voice:user-left") this.forget(payload.socketId);
      });
    }
    on("voice:media", (grant) => {
      if (this.status.value === "idle") return;
      this.grant = grant;
      // Sent after the page is in the room (a move answered late): connect now, in place of any
      // earlier grant; else once the join is answered.
      if (this.status.value === "connected") this.startJanus();
    });
    on("voice:signal", (p) => {
      if (this.status.value !== "connected" || typeof p.from !== "string") return;
      this.mesh.receive(p.from, { description: p.description, candidate: p.candidate } as Signal);
    });
    on("bot:audio-data", (p) => {
      if (this.status.value !== "connected") return;
      const pcm: unknown = p.pcm;
      const bytes = pcm instanceof ArrayBuffer ? pcm : ArrayBuffer.isView(pcm) ? pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength) : null;
      if (bytes && bytes instanceof ArrayBuffer) this.engine.playFrame(p.botUserId, bytes, p.sampleRate, p.channels);
    });
    on("voice:error", (p) => {
      // Once out of voice (another device took over, a moderator disconnected us), a refusal of
      // something sent just before (a speaking update, a frame) is no news: the status says it.
      if (this.status.value === "idle" || this.status.value === "reconnecting") return;
      if (typeof p.error !== "string") return;
      // The room is gone (its node died): not a refusal to show, a room to join again.
      if (this.status.value === "connected" && isVoiceRoomLost(p.error)) return this.roomLost();
      this.error.value = p.error;
    });
    on("voice:force-leave", () => this.end("You joined voice from another device, so you left here."));
    on("voice:force-disconnect", (p) => this.end(p.reason === "Disconnected by a moderator" ? "A moderator disconnected you from voice." : String(p.reason)));
    on("voice:force-move", (p) => void this.moved(p.channelId));
    on("voice:soundboard", (p: SoundboardPlayed) => {
      if (this.channel.value?.id !== p.channelId) return;
      this.lastSound.value = p;
      this.engine.playSound(p.sound.file_url).catch((error: Error) => (this.error.value = error.message));
    });
  }

  /** Someone left: their connection and their sound go. */
  private forget(socketId: string): void {
    this.mesh.drop(socketId);
    const still = new Set(this.participants.value.map((p) => p.userId));
    for (const id of this.engine.speakerIds()) if (!still.has(id)) this.engine.detach(id);
  }

  /** A moderator moved the reader: a new room, the same microphone and own choices. */
  private async moved(channelId: string): Promise<void> {
    const from = this.channel.value;
    if (!from) return;
    const me = this.me.value;
    const target = this.channelInfo(from.serverId, channelId) ?? { id: channelId, serverId: from.serverId, name: "another channel", meeting: false };
    this.closeMedia();
    for (const id of this.engine.speakerIds()) this.engine.detach(id);
    batch(() => {
      this.channel.value = target;
      this.status.value = "joining";
      this.notice.value = `A moderator moved you to ${target.name}.`;
    });
    const participants = await this.gateway.emit("bot:voice-participants", { channelId }).then(
      (ack) => ack.participants,
      () => [],
    );
    if (this.channel.value !== target) return;
    batch(() => {
      this.participants.value = participants;
      this.status.value = "connected";
    });
    this.connectPeople();
    this.setTrack(this.mic.track);
    // The server starts the moved socket's own flags afresh; keep the reader's choices.
    if (me && (me.muted || me.deafened) && !target.meeting) await this.request("voice:state", { muted: me.muted, deafened: me.deafened });
  }

  /** What the room's diagnostics hook shows (window.hearthVoice). */
  diagnostics() {
    return {
      status: this.status.value,
      channelId: this.channel.value?.id ?? null,
      mic: { state: this.mic.state.value, level: this.mic.level.value, voiceDetected: this.mic.voiceDetected.value, framesSent: this.mic.framesSent },
      transmitting: this.transmitting.value,
      peers: { ...this.mesh.states(), ...(this.janus?.states() ?? {}) },
      media: this.janus ? "janus" : "mesh",
      audio: this.engine.diagnostics(),
    };
  }
}
