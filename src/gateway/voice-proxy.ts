import { createHmac, timingSafeEqual } from "node:crypto";
import { io as connectTo, type Socket as NodeLink } from "socket.io-client";
import { ApiError } from "../domain/shared/errors.ts";
import type { Logger } from "../log.ts";
import type { ClientEventHandler, ClientEventTable } from "./ack.ts";
import type { GatewaySocket } from "./socket-types.ts";

/**
 * Voice on several nodes (docs/audio.md, "Several nodes"). Each voice room lives on one node,
 * its home; PCM never goes through Redis. A client whose socket is on another node is relayed
 * node to node: its node opens one Socket.IO connection of its own to the home node on the
 * client's behalf (a "voice link", authenticated with the client's token and a proof that only
 * a node holding JWT_SECRET can make), passes the client's voice and audio events to it, and
 * passes everything the home node sends on that link back to the client. Clients need no change.
 *
 * On the home node a voice link is an ordinary socket of the user for the voice domain, but it
 * joins no room besides its voice room (not the user's, not servers') and counts for no
 * presence, so every event it gets is about voice and none reaches the client twice.
 */
export interface VoiceHomes {
  /** The home node's address for `channelId`'s room, or null when this node is (or becomes) its home. */
  claim(channelId: string): Promise<string | null>;
  /** Keeps this node the home of rooms it has participants in. */
  renew(channelIds: string[]): Promise<void>;
}

/** The client events that belong to a voice room (the ones that answer `voice:error`). */
export const isVoiceEvent = (event: string) => event.startsWith("voice:") || event.startsWith("bot:voice-") || event === "bot:audio-data";
/** Frames: passed on without waiting (a refusal still comes back as `voice:error`). */
const isFrame = (event: string) => event === "bot:audio-data" || event === "voice:audio-data";

const LINK_CONNECT_TIMEOUT_MS = 5000;
const LINK_ACK_TIMEOUT_MS = 10_000;

/** What a node presents, with the user's token, to open a voice link on another node. */
export function voiceLinkProof(secret: string, token: string): string {
  return createHmac("sha256", secret).update(`hearth-voice-link:${token}`).digest("base64url");
}

export function isVoiceLinkHandshake(secret: string, auth: unknown): boolean {
  const { token, voiceLink } = (auth ?? {}) as { token?: unknown; voiceLink?: unknown };
  if (typeof token !== "string" || typeof voiceLink !== "string") return false;
  const expected = Buffer.from(voiceLinkProof(secret, token));
  const given = Buffer.from(voiceLink);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

interface Link {
  url: string;
  socket: NodeLink;
  closing: boolean;
}

export class VoiceRelay {
  private readonly links = new Map<string, Link>();
  private readonly renewal: ReturnType<typeof setInterval>;

  constructor(
    private readonly homes: VoiceHomes,
    private readonly secret: string,
    private readonly log: Logger,
    /** The voice rooms with participants on this node (renewed as their home). */
    localRooms: () => string[],
    renewEveryMs = 3000,
  ) {
    this.renewal = setInterval(() => {
      void this.homes.renew(localRooms()).catch((error: Error) => log.warn("voice home renewal failed", { error: error.message }));
    }, renewEveryMs);
  }

  /** Wraps the voice events of `table`: relayed to the room's home when it is another node. */
  wrap(table: ClientEventTable, leaveHere: (socket: GatewaySocket) => Promise<unknown>): ClientEventTable {
    const wrapped: ClientEventTable = { ...table };
    for (const [event, handler] of Object.entries(table) as [string, ClientEventHandler][]) {
      if (!isVoiceEvent(event)) continue;
      (wrapped as Record<string, ClientEventHandler>)[event] = async (socket, payload) => {
        const link = await this.linkFor(socket, event, payload, leaveHere);
        if (!link) return handler(socket, payload);
        return this.pass(socket, link, event, payload);
      };
    }
    return wrapped;
  }

  /** The client's socket closed: so does its link. */
  disconnected(socketId: string): void {
    this.close(socketId);
  }

  stop(): void {
    clearInterval(this.renewal);
    for (const id of [...this.links.keys()]) this.close(id);
  }

  /** The link to use for this event, opening or closing one on `voice:join`; null: handle here. */
  private async linkFor(socket: GatewaySocket, event: string, payload: unknown, leaveHere: (socket: GatewaySocket) => Promise<unknown>): Promise<Link | null> {
    const current = this.links.get(socket.id) ?? null;
    if (event !== "voice:join") return current;
    const channelId = (payload as { channelId?: unknown } | null)?.channelId;
    // A malformed join is refused by the local handler, with its usual message.
    if (typeof channelId !== "string") return null;
    const home = await this.homes.claim(channelId.toLowerCase());
    if (home === null) {
      // Moving from a room elsewhere to one here: leave there first.
      if (current) await this.leaveThere(socket.id, current);
      return null;
    }
    if (current && current.url === home) return current;
    if (current) await this.leaveThere(socket.id, current);
    // Moving from a room here to one elsewhere: leave here first (one voice room at a time).
    await leaveHere(socket);
    return this.open(socket, home);
  }

  private async open(client: GatewaySocket, url: string): Promise<Link> {
    const token = (client.handshake.auth as { token?: string }).token ?? "";
    const socket = connectTo(url, {
      auth: { token, voiceLink: voiceLinkProof(this.secret, token) },
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
    });
    const link: Link = { url, socket, closing: false };
    this.links.set(client.id, link);
    // Everything the home node sends on the link is for this client (the link is in no shared room).
    const emit = client.emit.bind(client) as (event: string, ...args: unknown[]) => boolean;
    socket.onAny((event: string, ...args: unknown[]) => emit(event, ...args));
    socket.on("disconnect", () => {
      if (this.links.get(client.id) === link) this.links.delete(client.id);
      if (link.closing || !client.connected) return;
      // The home node went away: the client is out of that room and may join again (a new home is chosen).
      this.log.warn("voice link lost", { socketId: client.id, url });
      client.emit("voice:error", { error: "The voice room's node went away; join again" });
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timeout")), LINK_CONNECT_TIMEOUT_MS);
        socket.once("connect", () => (clearTimeout(timer), resolve()));
        socket.once("connect_error", (error) => (clearTimeout(timer), reject(error)));
      });
    } catch (error) {
      this.close(client.id);
      this.log.warn("voice link failed", { url, error: error instanceof Error ? error.message : String(error) });
      const refusal = "The voice room's node cannot be reached; try again";
      client.emit("voice:error", { error: refusal });
      throw new ApiError(503, refusal);
    }
    return link;
  }

  private async pass(client: GatewaySocket, link: Link, event: string, payload: unknown): Promise<object> {
    if (isFrame(event)) {
      link.socket.emit(event, payload);
      return {};
    }
    let answer: { ok?: boolean; error?: string } & Record<string, unknown>;
    try {
      answer = await link.socket.timeout(LINK_ACK_TIMEOUT_MS).emitWithAck(event, payload);
    } catch {
      throw new ApiError(503, "The voice room's node did not answer; try again");
    }
    if (event === "voice:leave") this.close(client.id);
    if (!answer?.ok) throw new ApiError(400, typeof answer?.error === "string" ? answer.error : "Internal error");
    const { ok: _ok, ...fields } = answer;
    return fields;
  }

  private async leaveThere(socketId: string, link: Link): Promise<void> {
    await link.socket.timeout(LINK_ACK_TIMEOUT_MS).emitWithAck("voice:leave", {}).catch(() => {});
    this.close(socketId);
  }

  private close(socketId: string): void {
    const link = this.links.get(socketId);
    if (!link) return;
    this.links.delete(socketId);
    link.closing = true;
    link.socket.close();
  }
}
