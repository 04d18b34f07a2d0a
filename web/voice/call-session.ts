/**
 * DM calls in the page (docs/dm-calls.md, docs/web.md "Voice"): an incoming call rings
 * (`dm:call-incoming`) and can be answered or declined; starting one from a DM; the
 * voices go peer to peer over WebRTC like a voice room's, signalled with `dm:call-signal`
 * (addressed by user id). Whoever is already in the call offers to each person who answers.
 * A person is in one voice connection at a time: answering or starting a call leaves the
 * voice channel, and joining a voice channel hangs the call up.
 */
import { batch, effect, signal } from "@preact/signals";
import type { AudioEngine } from "../audio/audio-engine.ts";
import type { Gateway, GatewayEventName, Listener } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { Microphone } from "./microphone.ts";
import type { IceConfiguration } from "./ice-servers.ts";
import { PeerMesh, type Signal } from "./peer-mesh.ts";
import type { IncomingCall } from "./types.ts";
import type { VoiceSession } from "./voice-session.ts";

interface ActiveCall {
  callId: string;
  dmId: string;
  /** "calling": rung, nobody answered yet. */
  state: "calling" | "connected";
  /** The other people in the call, by user id. */
  peers: string[];
}

const REASONS: Record<string, string> = {
  ended: "The call ended.",
  declined: "The call was declined.",
  timeout: "Nobody answered the call.",
  disconnect: "The call ended: the other side lost their connection.",
  removed: "The call ended: you are no longer in this conversation.",
};

/** Speaker ids of call audio in the shared engine. */
export const callSpeaker = (userId: string) => `call:${userId}`;

export class CallSession {
  readonly incoming = signal<IncomingCall | null>(null);
  readonly call = signal<ActiveCall | null>(null);
  readonly muted = signal(false);
  readonly error = signal<string | null>(null);
  readonly notice = signal<string | null>(null);
  readonly mic = new Microphone(() => {});
  private mesh: PeerMesh;
  private stopRing: (() => void) | null = null;

  constructor(
    private readonly gateway: Gateway,
    private readonly engine: AudioEngine,
    private readonly userId: () => string | undefined,
    private readonly voice: VoiceSession,
    private readonly ice: IceConfiguration,
  ) {
    this.mesh = this.newMesh();
    this.bindEvents();
    effect(() => this.mic.setLive(this.call.value !== null && !this.muted.value && this.mic.state.value === "on"));
    // Joining a voice channel hangs up.
    effect(() => {
      if (this.voice.status.value !== "idle" && this.call.peek()) void this.hangUp();
    });
  }

  private newMesh(): PeerMesh {
    return new PeerMesh({
      send: (to, signal) => {
        const call = this.call.value;
        if (call) this.gateway.send("dm:call-signal", { callId: call.callId, to, ...signal }, { dropWhileDisconnected: true });
      },
      onStream: (peer, stream) => this.engine.attachStream(callSpeaker(peer), stream),
      track: () => this.mic.track,
      configuration: () => this.ice.current(),
    });
  }

  /** Calls the members of a DM. */
  async start(dmId: string): Promise<void> {
    if (this.call.value) return;
    await this.voice.leave();
    const audio = this.engine.start();
    this.error.value = null;
    this.notice.value = null;
    // Before anyone can answer (this side offers to each who does).
    await this.ice.ready();
    let callId: string;
    try {
      callId = (await this.gateway.emit("dm:call-start", { conversationId: dmId })).callId;
    } catch (error) {
      this.error.value = errorMessage(error);
      return;
    }
    this.call.value = { callId, dmId, state: "calling", peers: [] };
    await audio.catch(() => {});
    await this.openMic();
  }

  async answer(): Promise<void> {
    const ringing = this.incoming.value;
    if (!ringing) return;
    this.silence();
    await this.voice.leave();
    if (this.call.value) await this.hangUp();
    const audio = this.engine.start();
    // Before accepting: the caller's offer follows the accept at once.
    await this.ice.ready();
    const refusal = await this.gateway.emit("dm:call-accept", { callId: ringing.callId }).then(
      () => null,
      (error: unknown) => errorMessage(error),
    );
    this.incoming.value = null;
    if (refusal) {
      this.error.value = refusal;
      return;
    }
    batch(() => {
      this.error.value = null;
      this.notice.value = null;
      this.call.value = { callId: ringing.callId, dmId: ringing.conversationId, state: "connected", peers: [ringing.from.id] };
    });
    await audio.catch(() => {});
    await this.openMic();
  }

  async decline(): Promise<void> {
    const ringing = this.incoming.value;
    if (!ringing) return;
    this.silence();
    this.incoming.value = null;
    await this.gateway.emit("dm:call-decline", { callId: ringing.callId }).catch((error: unknown) => (this.error.value = errorMessage(error)));
  }

  async hangUp(): Promise<void> {
    const call = this.call.value;
    if (!call) return;
    this.end(null);
    await this.gateway.emit("dm:call-end", { callId: call.callId }).catch(() => {});
  }

  private async openMic(): Promise<void> {
    const track = await this.mic.open(this.engine);
    if (this.call.value) this.mesh.setTrack(track);
  }

  private end(notice: string | null): void {
    this.mesh.close();
    this.mesh = this.newMesh();
    this.mic.close();
    for (const peer of this.call.value?.peers ?? []) this.engine.detach(callSpeaker(peer));
    batch(() => {
      this.call.value = null;
      this.muted.value = false;
      this.notice.value = notice;
    });
  }

  /** Forgets everything (log out). */
  reset(): void {
    this.silence();
    this.incoming.value = null;
    if (this.call.value) this.end(null);
  }

  private silence(): void {
    this.stopRing?.();
    this.stopRing = null;
  }

  private bindEvents(): void {
    const on = <E extends GatewayEventName>(event: E, listener: Listener<E>) => this.gateway.on(event, listener);
    const mine = (p: { callId: string }) => this.call.value?.callId === p.callId;
    on("dm:call-incoming", (p: IncomingCall) => {
      if (this.incoming.value || this.call.value) return; // busy: it rings on elsewhere until answered or timed out
      this.incoming.value = p;
      this.stopRing = this.engine.ring();
    });
    on("dm:call-accepted", (p) => {
      if (this.incoming.value?.callId === p.callId && p.userId === this.userId()) {
        // Answered on another device.
        this.silence();
        this.incoming.value = null;
      }
      const call = this.call.value;
      if (!call || !mine(p) || p.userId === this.userId()) return;
      this.call.value = { ...call, state: "connected", peers: [...call.peers.filter((id) => id !== p.userId), p.userId] };
      this.mesh.connect(p.userId);
    });
    on("dm:call-declined", (p) => {
      if (this.incoming.value?.callId === p.callId && p.userId === this.userId()) {
        this.silence();
        this.incoming.value = null;
      }
    });
    on("dm:call-left", (p) => {
      const call = this.call.value;
      if (!call || !mine(p)) return;
      this.mesh.drop(p.userId);
      this.engine.detach(callSpeaker(p.userId));
      this.call.value = { ...call, peers: call.peers.filter((id) => id !== p.userId) };
    });
    on("dm:call-ended", (p) => {
      if (this.incoming.value?.callId === p.callId) {
        this.silence();
        this.incoming.value = null;
      }
      if (mine(p)) this.end(REASONS[p.reason] ?? "The call ended.");
    });
    on("dm:call-signal", (p) => {
      if (!mine(p) || typeof p.from !== "string") return;
      this.mesh.receive(p.from, { description: p.description, candidate: p.candidate } as Signal);
    });
  }

  diagnostics() {
    return { incoming: this.incoming.value, call: this.call.value, mic: this.mic.state.value, peers: this.mesh.states() };
  }
}
