/**
 * People's voices through Janus's VideoRoom (docs/voice.md, "Janus"), when the server hands the
 * page a grant (`voice:media`): one connection to Janus, a publisher handle joined with the
 * socket's id (it learns who publishes), one peer connection that sends the microphone once
 * whatever the room's size (none for a meeting's audience), and one multistream subscription
 * that receives every other publisher's audio. Feeds are named by socket ids, so each stream
 * reaches the person's own volume and speaking indicator. Both peer connections use the host's
 * ICE servers and transport policy, like the mesh.
 */
import type { ServerEvents } from "../../sdk/src/client.ts";
import { JanusConnection, type JanusHandle, type PluginMessage } from "./janus-client.ts";

/** `voice:media`'s payload: what the page joins the room's media with. */
export type MediaGrant = ServerEvents["voice:media"];

interface JanusRoomOptions {
  /** A publisher's audio arrived (or changed): `feed` is their socket id. */
  onStream(feed: string, stream: MediaStream): void;
  /** Janus went away, or dropped this page: the page joins the room again. */
  onLost(): void;
  configuration(): RTCConfiguration;
}

interface Publisher {
  id?: unknown;
}
interface SubscribedStream {
  mid?: unknown;
  feed_id?: unknown;
  active?: unknown;
}

export class JanusRoom {
  private connection: JanusConnection | null = null;
  private publisherHandle: JanusHandle | null = null;
  private subscriberHandle: JanusHandle | null = null;
  private sending: RTCPeerConnection | null = null;
  private sender: RTCRtpSender | null = null;
  private receiving: RTCPeerConnection | null = null;
  /** The feeds subscribed to, and which mid carries which feed. */
  private readonly feeds = new Set<string>();
  private midFeeds = new Map<string, string>();
  private track: MediaStreamTrack | null = null;
  private wantPublish = false;
  private closed = false;
  /** Publishing and subscription changes, one at a time. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly grant: MediaGrant,
    private readonly options: JanusRoomOptions,
  ) {}

  /** Connects, joins, subscribes to the publishers already there, and publishes when asked to. */
  async start(): Promise<void> {
    const { url, token, room, id } = this.grant;
    const connection = await JanusConnection.open(url, token);
    if (this.closed) return connection.close();
    this.connection = connection;
    connection.onLost = () => this.lost();
    const handle = await connection.attach();
    this.publisherHandle = handle;
    handle.onEvent = (message) => this.publisherEvent(message);
    handle.onHangup = () => {
      // Janus closed the publishing connection (it kicked us, or ICE failed): join again.
      if (this.sending) this.lost();
    };
    const joined = await handle.request({ request: "join", ptype: "publisher", room, id, display: id, token });
    this.added((joined.data.publishers ?? []) as Publisher[]);
    this.serially(() => this.updatePublishing());
  }

  /** The microphone track to send (or none yet). */
  setTrack(track: MediaStreamTrack | null): void {
    this.track = track;
    void this.sender?.replaceTrack(track);
    this.serially(() => this.updatePublishing());
  }

  /** Whether this page sends audio at all (a meeting's audience does not). */
  setPublishing(publish: boolean): void {
    if (publish === this.wantPublish) return;
    this.wantPublish = publish;
    this.serially(() => this.updatePublishing());
  }

  private serially(step: () => Promise<void>): void {
    this.chain = this.chain.then(step, step).catch((error) => {
      if (!this.closed) console.warn("voice: Janus", error);
    });
  }

  private async updatePublishing(): Promise<void> {
    const handle = this.publisherHandle;
    if (!handle || this.closed) return;
    if (this.wantPublish && !this.sending) {
      const pc = new RTCPeerConnection(this.options.configuration());
      this.sending = pc;
      const transceiver = pc.addTransceiver("audio", { direction: "sendonly" });
      this.sender = transceiver.sender;
      await transceiver.sender.replaceTrack(this.track);
      pc.onicecandidate = (event) => handle.trickle(event.candidate ? event.candidate.toJSON() : null);
      await pc.setLocalDescription(await pc.createOffer());
      const answer = await handle.request({ request: "publish", audiocodec: "opus" }, pc.localDescription!.toJSON());
      if (answer.jsep) await pc.setRemoteDescription(answer.jsep);
    } else if (!this.wantPublish && this.sending) {
      const pc = this.sending;
      this.sending = null;
      this.sender = null;
      pc.close();
      await handle.request({ request: "unpublish" }).catch(() => {});
    }
  }

  private publisherEvent({ data }: PluginMessage): void {
    if (Array.isArray(data.publishers)) this.added(data.publishers as Publisher[]);
    const gone = data.leaving ?? data.unpublished;
    if (typeof gone === "string" && gone !== "ok") this.removed(gone);
    // Kicked by Hearth (or the room destroyed): this page joins again, if it is still let in.
    if (data.leaving === "ok" || data.videoroom === "destroyed") this.lost();
  }

  private added(publishers: Publisher[]): void {
    const fresh = publishers.map((p) => p.id).filter((id): id is string => typeof id === "string" && id !== this.grant.id && !this.feeds.has(id));
    if (fresh.length === 0) return;
    for (const feed of fresh) this.feeds.add(feed);
    this.serially(() => this.subscribe(fresh));
  }

  private removed(feed: string): void {
    if (!this.feeds.delete(feed)) return;
    this.serially(async () => {
      if (!this.subscriberHandle) return;
      // Janus may have dropped the feed from the subscription by itself already (then it refuses this).
      const answer = await this.subscriberHandle.request({ request: "unsubscribe", streams: [{ feed }] }).catch(() => null);
      if (answer) await this.answer(answer);
    });
  }

  private async subscribe(feeds: string[]): Promise<void> {
    if (this.closed || !this.connection) return;
    const streams = feeds.map((feed) => ({ feed }));
    if (!this.subscriberHandle) {
      const handle = await this.connection.attach();
      this.subscriberHandle = handle;
      handle.onEvent = (message) => {
        // An offer Janus makes by itself (a publisher it carries changed its streams).
        if (message.jsep) this.serially(() => this.answer(message));
      };
      const attached = await handle.request({ request: "join", ptype: "subscriber", room: this.grant.room, streams, token: this.grant.token });
      await this.answer(attached);
    } else {
      await this.answer(await this.subscriberHandle.request({ request: "subscribe", streams }));
    }
  }

  /** Answers an offer of the subscription, and names each active mid's feed. */
  private async answer({ data, jsep }: PluginMessage): Promise<void> {
    if (Array.isArray(data.streams)) {
      this.midFeeds = new Map(
        (data.streams as SubscribedStream[])
          .filter((s) => s.active !== false && typeof s.mid === "string" && typeof s.feed_id === "string")
          .map((s) => [s.mid as string, s.feed_id as string]),
      );
    }
    const handle = this.subscriberHandle;
    if (!jsep || !handle || this.closed) return;
    if (!this.receiving) {
      const pc = new RTCPeerConnection(this.options.configuration());
      this.receiving = pc;
      pc.onicecandidate = (event) => handle.trickle(event.candidate ? event.candidate.toJSON() : null);
      pc.ontrack = (event) => {
        const feed = event.transceiver.mid ? this.midFeeds.get(event.transceiver.mid) : undefined;
        if (feed) this.options.onStream(feed, new MediaStream([event.track]));
      };
    }
    const pc = this.receiving;
    await pc.setRemoteDescription(jsep);
    await pc.setLocalDescription(await pc.createAnswer());
    await handle.request({ request: "start" }, pc.localDescription!.toJSON());
    // A reused m-line fires no new track: give every active mid's track to its feed again.
    for (const transceiver of pc.getTransceivers()) {
      const feed = transceiver.mid ? this.midFeeds.get(transceiver.mid) : undefined;
      if (feed) this.options.onStream(feed, new MediaStream([transceiver.receiver.track]));
    }
  }

  private lost(): void {
    if (this.closed) return;
    this.close();
    this.options.onLost();
  }

  /** The state of this page's two peer connections (for the diagnostics). */
  states(): Record<string, RTCPeerConnectionState> {
    const states: Record<string, RTCPeerConnectionState> = {};
    if (this.sending) states["janus:publish"] = this.sending.connectionState;
    if (this.receiving) states["janus:subscribe"] = this.receiving.connectionState;
    return states;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sending?.close();
    this.receiving?.close();
    this.sending = this.receiving = this.sender = null;
    this.connection?.close();
    this.connection = null;
  }
}
