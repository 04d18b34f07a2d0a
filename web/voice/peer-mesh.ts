/**
 * People's voices over WebRTC, peer to peer: one RTCPeerConnection per other person, audio
 * both ways, signalled through the gateway (`voice:signal` in voice rooms, `dm:call-signal` in
 * DM calls). The one who arrives second offers, so offers never cross. Each connection is
 * made with the host's ICE servers (STUN, TURN; web/voice/ice-servers.ts); with none
 * configured only host candidates, which is enough on one machine and on a LAN
 * (docs/web.md, "Voice").
 */

/** What travels in a signal, besides the addressing the gateway adds. */
export interface Signal {
  description?: RTCSessionDescriptionInit;
  candidate?: RTCIceCandidateInit;
}

interface MeshOptions {
  send(peer: string, signal: Signal): void;
  /** A peer's audio arrived (or changed). */
  onStream(peer: string, stream: MediaStream): void;
  /** The microphone track to send, or null for none yet. */
  track(): MediaStreamTrack | null;
  /** The ICE servers and transport policy a new connection is made with. */
  configuration(): RTCConfiguration;
}

class Peer {
  readonly pc: RTCPeerConnection;
  private transceiver: RTCRtpTransceiver | null = null;
  private queued: RTCIceCandidateInit[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly key: string,
    initiator: boolean,
    private readonly options: MeshOptions,
  ) {
    this.pc = new RTCPeerConnection(options.configuration());
    this.pc.onicecandidate = (event) => {
      if (event.candidate) options.send(key, { candidate: event.candidate.toJSON() });
    };
    this.pc.ontrack = (event) => options.onStream(key, event.streams[0] ?? new MediaStream([event.track]));
    if (initiator) {
      this.transceiver = this.pc.addTransceiver("audio", { direction: "sendrecv" });
      void this.transceiver.sender.replaceTrack(options.track());
      this.pc.onnegotiationneeded = () => this.serially(() => this.offer());
    }
  }

  private async offer(): Promise<void> {
    await this.pc.setLocalDescription();
    this.options.send(this.key, { description: this.pc.localDescription!.toJSON() });
  }

  /** Signals are handled one at a time, in the order they came. */
  receive(signal: Signal): Promise<void> {
    return this.serially(() => this.handle(signal));
  }

  private serially(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step, step).catch((error) => console.warn("voice: signalling failed", error));
    return this.chain;
  }

  private async handle({ description, candidate }: Signal): Promise<void> {
    if (description) {
      await this.pc.setRemoteDescription(description);
      if (description.type === "offer") {
        this.transceiver ??= this.pc.getTransceivers()[0] ?? null;
        if (this.transceiver) {
          this.transceiver.direction = "sendrecv";
          await this.transceiver.sender.replaceTrack(this.options.track());
        }
        await this.pc.setLocalDescription();
        this.options.send(this.key, { description: this.pc.localDescription!.toJSON() });
      }
      for (const queued of this.queued.splice(0)) await this.pc.addIceCandidate(queued);
    } else if (candidate) {
      if (this.pc.remoteDescription) await this.pc.addIceCandidate(candidate);
      else this.queued.push(candidate);
    }
  }

  setTrack(track: MediaStreamTrack | null): void {
    void this.transceiver?.sender.replaceTrack(track);
  }

  close(): void {
    this.pc.onicecandidate = null;
    this.pc.ontrack = null;
    this.pc.onnegotiationneeded = null;
    this.pc.close();
  }
}

export class PeerMesh {
  private readonly peers = new Map<string, Peer>();

  constructor(private readonly options: MeshOptions) {}

  /** Connects to `peer`, offering (this side arrived second). */
  connect(peer: string): void {
    if (!this.peers.has(peer)) this.peers.set(peer, new Peer(peer, true, this.options));
  }

  /** A signal from `peer`; an offer from someone new opens a connection that answers. */
  receive(peer: string, signal: Signal): void {
    let connection = this.peers.get(peer);
    if (!connection) {
      if (signal.description?.type !== "offer") return;
      this.peers.set(peer, (connection = new Peer(peer, false, this.options)));
    }
    void connection.receive(signal);
  }

  /** The microphone changed (granted later, or switched): every connection sends it, no renegotiation needed. */
  setTrack(track: MediaStreamTrack | null): void {
    for (const peer of this.peers.values()) peer.setTrack(track);
  }

  drop(peer: string): void {
    this.peers.get(peer)?.close();
    this.peers.delete(peer);
  }

  has(peer: string): boolean {
    return this.peers.has(peer);
  }

  keys(): string[] {
    return [...this.peers.keys()];
  }

  /** Each connection's state (for the diagnostics). */
  states(): Record<string, RTCPeerConnectionState> {
    return Object.fromEntries([...this.peers].map(([key, peer]) => [key, peer.pc.connectionState]));
  }

  close(): void {
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
  }
}
