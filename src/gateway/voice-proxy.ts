import { createHmac, timingSafeEqual } from "node:crypto";
import { io as connectTo, type Socket as NodeLink } from "socket.io-client";
import { ApiError } from "../domain/shared/errors.ts";
import type { Logger } from "../log.ts";
import type { ClientEventHandler, ClientEventTable } from "./ack.ts";
import type { GatewaySocket } from "./socket-types.ts";

/**
 * Live rooms on several nodes (docs/audio.md, "Several nodes"; docs/dm-calls.md). Each voice
 * room, and each DM call, lives on one node, its home; PCM never goes through Redis. A client
 * whose socket is on another node is relayed node to node: its node opens one Socket.IO
 * connection of its own to the home on the client's behalf (a "voice link", authenticated with
 * the client's token and a proof that only a node holding JWT_SECRET can make), passes the
 * client's voice, audio and call events to it, and passes everything the home sends on that link
 * back to the client. Clients need no change.
 *
 * On the home a voice link is an ordinary socket of the user for the voice and call rules, but
 * it joins no room besides its voice room (not the user's, not servers') and counts for no
 * presence, so every event it gets is for its client alone and none reaches the client twice.
 */
export interface VoiceHomes {
  /** The home node's address for `key`'s room, or null when this node is (or now becomes) its home. */
  claim(key: string): Promise<string | null>;
  /** The living home's address for `key` when it is another node; null when here or none. */
  find(key: string): Promise<string | null>;
  /** Keeps this node the home of rooms and calls it holds. */
  renew(keys: string[]): Promise<void>;
  /** Written by a voice room's home: the user is now in voice in `channelId`. */
  userJoined(userId: string, channelId: string): Promise<void>;
  /** Written by a voice room's home: the user left `channelId` (kept if they are in another since). */
  userLeft(userId: string, channelId: string): Promise<void>;
  /** The voice channel the user is in, with its living home's address (null when this node). */
  userRoom(userId: string): Promise<{ channelId: string; url: string | null } | null>;
}

/** The client events that belong to a voice room (the ones that answer `voice:error`). */
export const isVoiceEvent = (event: string) => event.startsWith("voice:") || event.startsWith("bot:voice-") || event === "bot:audio-data";
const isCallEvent = (event: string) => event.startsWith("dm:call-");
/**
 * Events that act on, or read, a voice room other than the sender's own (moderation, meetings,
 * queries): they go to the home of the room they name, by its channel or by the user in it,
 * whatever room the sender is in (none, or one on another node).
 */
const byTargetUser = new Set(["voice:server-mute", "voice:server-deafen", "voice:move", "voice:disconnect", "bot:voice-query"]);
const byChannel = new Set(["voice:lower-hand", "voice:set-meeting-role", "bot:voice-participants"]);
/** Frames: passed on without waiting (a refusal still comes back as `voice:error`). */
const isFrame = (event: string) => event === "bot:audio-data" || event === "voice:audio-data";

/** Redis keys of homes: a voice room, a conversation's call, a call by id. */
export const homeKeys = {
  voice: (channelId: string) => `voice:${channelId}`,
  conversationCall: (conversationId: string) => `dm-conversation:${conversationId}`,
  call: (callId: string) => `dm-call:${callId}`,
};

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

const stringField = (payload: unknown, field: string): string | null => {
  const value = (payload as Record<string, unknown> | null)?.[field];
  return typeof value === "string" ? value.toLowerCase() : null;
};

export class VoiceRelay {
  /** Each client socket's links, by home address. */
  private readonly links = new Map<string, Map<string, Link>>();
  /** The home address of the voice room each client socket is relayed to. */
  private readonly voiceHomeOf = new Map<string, string>();
  private readonly renewal: ReturnType<typeof setInterval>;

  constructor(
    private readonly homes: VoiceHomes,
    private readonly secret: string,
    private readonly log: Logger,
    /** The voice rooms and calls held on this node (renewed as their home). */
    held: () => string[],
    renewEveryMs = 3000,
  ) {
    this.renewal = setInterval(() => {
      void this.homes.renew(held()).catch((error: Error) => log.warn("voice home renewal failed", { error: error.message }));
    }, renewEveryMs);
  }

  /** Wraps the voice and call events of `table`: relayed to the home when it is another node. */
  wrap(table: ClientEventTable, leaveHere: (socket: GatewaySocket) => Promise<unknown>): ClientEventTable {
    const wrapped: ClientEventTable = { ...table };
    for (const [event, handler] of Object.entries(table) as [string, ClientEventHandler][]) {
      if (!isVoiceEvent(event) && !isCallEvent(event)) continue;
      (wrapped as Record<string, ClientEventHandler>)[event] = async (socket, payload) => {
        // What arrives on a link is for this node: it is the home (no relaying twice).
        if (socket.data.voiceLink) return this.here(event, handler, socket, payload);
        const home = isVoiceEvent(event) ? await this.voiceHome(socket, event, payload, leaveHere) : await this.callHome(event, payload);
        if (home === null) return this.here(event, handler, socket, payload);
        return this.pass(socket, await this.link(socket, home), event, payload);
      };
    }
    return wrapped;
  }

  /** The client's socket closed: so do its links. */
  disconnected(socketId: string): void {
    this.voiceHomeOf.delete(socketId);
    for (const link of this.links.get(socketId)?.values() ?? []) this.close(link);
    this.links.delete(socketId);
  }

  stop(): void {
    clearInterval(this.renewal);
    for (const id of [...this.links.keys()]) this.disconnected(id);
  }

  /** Handled on this node; a call started here is recorded as held here. */
  private async here(event: string, handler: ClientEventHandler, socket: GatewaySocket, payload: unknown) {
    const result = await handler(socket, payload);
    const callId = event === "dm:call-start" ? (result as { callId?: string } | void)?.callId : undefined;
    if (callId) await this.homes.claim(homeKeys.call(callId));
    return result;
  }

  /** Where a voice event goes; a `voice:join` chooses (and may move the client between nodes). */
  private async voiceHome(socket: GatewaySocket, event: string, payload: unknown, leaveHere: (socket: GatewaySocket) => Promise<unknown>): Promise<string | null> {
    if (byTargetUser.has(event)) {
      // A malformed payload is refused by the local handler, with its usual message.
      const userId = stringField(payload, "userId");
      return userId === null ? null : ((await this.homes.userRoom(userId))?.url ?? null);
    }
    if (byChannel.has(event)) {
      const channelId = stringField(payload, "channelId");
      return channelId === null ? null : this.homes.find(homeKeys.voice(channelId));
    }
    const current = this.voiceHomeOf.get(socket.id) ?? null;
    if (event !== "voice:join") return current;
    const channelId = stringField(payload, "channelId");
    // A malformed join is refused by the local handler, with its usual message.
    if (channelId === null) return null;
    const home = await this.homes.claim(homeKeys.voice(channelId));
    if (home === current) return home;
    if (current !== null) {
      // Leaving the room elsewhere first (one voice room at a time).
      this.voiceHomeOf.delete(socket.id);
      const link = this.links.get(socket.id)?.get(current);
      await link?.socket.timeout(LINK_ACK_TIMEOUT_MS).emitWithAck("voice:leave", {}).catch(() => {});
    } else if (home !== null) {
      // Leaving a room here first.
      await leaveHere(socket);
    }
    if (home !== null) this.voiceHomeOf.set(socket.id, home);
    return home;
  }

  /** Where a call event goes: the conversation's call home for a start, the call's home otherwise. */
  private async callHome(event: string, payload: unknown): Promise<string | null> {
    if (event === "dm:call-start") {
      const conversationId = stringField(payload, "conversationId");
      return conversationId === null ? null : this.homes.claim(homeKeys.conversationCall(conversationId));
    }
    const callId = stringField(payload, "callId");
    return callId === null ? null : this.homes.find(homeKeys.call(callId));
  }

  private async link(client: GatewaySocket, url: string): Promise<Link> {
    let mine = this.links.get(client.id);
    const existing = mine?.get(url);
    if (existing) return existing;
    if (!mine) this.links.set(client.id, (mine = new Map()));
    const token = (client.handshake.auth as { token?: string }).token ?? "";
    const socket = connectTo(url, {
      auth: { token, voiceLink: voiceLinkProof(this.secret, token) },
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
    });
    const link: Link = { url, socket, closing: false };
    mine.set(url, link);
    // Everything the home sends on the link is for this client (the link is in no shared room).
    // Node-local, not `client.emit`: with resume on that goes through the cluster adapter (an XADD
    // to the Redis stream, stored for replay), and PCM never does; voice is not resumed anyway.
    const toClient = client.nsp.local.to(client.id) as unknown as { emit(event: string, ...args: unknown[]): boolean };
    socket.onAny((event: string, ...args: unknown[]) => toClient.emit(event, ...args));
    socket.on("disconnect", () => {
      if (this.links.get(client.id)?.get(url) === link) this.links.get(client.id)!.delete(url);
      if (link.closing || !client.connected) return;
      // The home went away: the client is out of what it held, and may join again (a new home is chosen).
      this.log.warn("voice link lost", { socketId: client.id, url });
      if (this.voiceHomeOf.get(client.id) === url) {
        this.voiceHomeOf.delete(client.id);
        client.emit("voice:error", { error: "The voice room's node went away; join again" });
      }
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timeout")), LINK_CONNECT_TIMEOUT_MS);
        socket.once("connect", () => (clearTimeout(timer), resolve()));
        socket.once("connect_error", (error) => (clearTimeout(timer), reject(error)));
      });
    } catch (error) {
      mine.delete(url);
      this.close(link);
      if (this.voiceHomeOf.get(client.id) === url) this.voiceHomeOf.delete(client.id);
      this.log.warn("voice link failed", { url, error: error instanceof Error ? error.message : String(error) });
      const refusal = "The node holding this room cannot be reached; try again";
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
      throw new ApiError(503, "The node holding this room did not answer; try again");
    }
    if (event === "voice:leave") this.voiceHomeOf.delete(client.id);
    if (!answer?.ok) throw new ApiError(400, typeof answer?.error === "string" ? answer.error : "Internal error");
    const { ok: _ok, ...fields } = answer;
    return fields;
  }

  private close(link: Link): void {
    link.closing = true;
    link.socket.close();
  }
}
