import { createHmac, timingSafeEqual } from "node:crypto";
import { io as connectTo, type Socket as NodeLink } from "socket.io-client";
import { ApiError } from "../domain/shared/errors.ts";
import type { Logger } from "../log.ts";
import type { Handover, Voice } from "../domain/voice/voice.ts";
import type { ClientEventHandler, ClientEventTable } from "./ack.ts";
import type { GatewayServer, GatewaySocket } from "./socket-types.ts";

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
  /**
   * A link to the home at `url` failed or dropped: whether that node is dead (it refuses
   * connections). If so it is declared dead at once, not when its heartbeat runs out, so its
   * rooms can be claimed again and what it held is released (docs/audio.md, "Several nodes").
   */
  homeUnreachable(url: string): Promise<boolean>;
}

/** The client events that belong to a voice room (the ones that answer `voice:error`). */
const isVoiceEvent = (event: string) => event.startsWith("voice:") || event.startsWith("bot:voice-") || event === "bot:audio-data";
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

/** Redis keys of homes: a voice room, a DM's call, a call by id. */
export const homeKeys = {
  voice: (channelId: string) => `voice:${channelId}`,
  dmCall: (conversationId: string) => `dm-conversation:${conversationId}`,
  call: (callId: string) => `dm-call:${callId}`,
};

/**
 * What nodes ask each other over a voice link, besides the client's own events (never a
 * client's: only a link, which only a node can open, is listened to for them). Sent to the home:
 * `check` (may the user join this channel?), `hand-over` (take the user out of the room held
 * there; answers what they carry), `join` (join, carrying that). Sent by the home back to the
 * link's node: `moved` (a `voice:move` into a room another node holds: the client joins it).
 */
const LINK_EVENTS = { check: "link:voice-check", handOver: "link:voice-hand-over", join: "link:voice-join", moved: "link:voice-moved" } as const;
export const isLinkEvent = (event: string) => event.startsWith("link:");

/** This node's voice rooms, as the relay uses them (src/domain/voice/voice.ts). */
type LocalVoice = Pick<Voice, "rooms" | "admits" | "handOver" | "join">;

type LinkAnswer = { ok?: boolean; error?: string } & Record<string, unknown>;

const LINK_CONNECT_TIMEOUT_MS = 5000;
const LINK_ACK_TIMEOUT_MS = 10_000;

/** What a node presents, with the user's token, to open a voice link on another node. */
function voiceLinkProof(secret: string, token: string): string {
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

/** The `handover` a node sent with a link event (only nodes open links; src/domain/voice/voice.ts Handover). */
const handoverOf = (payload: unknown): Handover | undefined => {
  const handover = (payload as { handover?: unknown } | null)?.handover as Handover | null | undefined;
  if (!handover || typeof handover.serverId !== "string") return undefined;
  return { serverId: handover.serverId, moved: handover.moved === true };
};

export class VoiceRelay {
  /** Each client socket's links, by home address. */
  private readonly links = new Map<string, Map<string, Link>>();
  /**
   * Client sockets whose room's home just dropped, until they are told (`voice:error`): their
   * frames are dropped meanwhile, not each refused.
   */
  private readonly losingHome = new Set<string>();
  /** The home address of the voice room each client socket is relayed to. */
  private readonly voiceHomeOf = new Map<string, string>();
  private readonly renewal: ReturnType<typeof setInterval>;
  /** This node's sockets and voice rooms (given by `wrap`). */
  private io: GatewayServer | null = null;
  private local: LocalVoice | null = null;

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
  wrap(table: ClientEventTable, io: GatewayServer, local: LocalVoice): ClientEventTable {
    this.io = io;
    this.local = local;
    const wrapped: ClientEventTable = { ...table };
    for (const [event, handler] of Object.entries(table) as [string, ClientEventHandler][]) {
      if (!isVoiceEvent(event) && !isCallEvent(event)) continue;
      (wrapped as Record<string, ClientEventHandler>)[event] = async (socket, payload) => {
        // What arrives on a link is for this node: it is the home (no relaying twice).
        if (socket.data.voiceLink) return this.here(event, handler, socket, payload);
        if (event === "voice:join") return this.joinOnce(socket, payload, handler);
        if (isFrame(event) && this.losingHome.has(socket.id)) return {};
        const home = isVoiceEvent(event) ? await this.voiceHome(socket, event, payload) : await this.callHome(event, payload);
        if (home === null) return this.here(event, handler, socket, payload);
        return this.pass(socket, await this.link(socket, home), event, payload);
      };
    }
    return wrapped;
  }

  /** On the home: what another node asks over a voice link (LINK_EVENTS), answered on the link. */
  serveLink(socket: GatewaySocket): void {
    const local = this.local!;
    const client = { socketId: socket.id, userId: socket.data.userId, username: socket.data.username, isBot: socket.data.isBot };
    const on = socket.on.bind(socket) as unknown as (event: string, listener: (payload: unknown, ack?: (answer: LinkAnswer) => void) => void) => void;
    const serve = (event: string, work: (payload: unknown) => Promise<object | null | void>) =>
      on(event, (payload, ack) => {
        work(payload).then(
          (fields) => ack?.({ ok: true, ...(fields ?? {}) }),
          (error: unknown) => {
            if (!(error instanceof ApiError)) this.log.error("voice link request failed", { event, error });
            ack?.({ ok: false, error: error instanceof ApiError ? error.message : "Internal error" });
          },
        );
      });
    serve(LINK_EVENTS.check, (payload) => local.admits(client.userId, stringField(payload, "channelId") ?? "", client.isBot));
    serve(LINK_EVENTS.handOver, async (payload) => ({ handover: await local.handOver(client.userId, (payload as { otherDevice?: unknown } | null)?.otherDevice === true) }));
    serve(LINK_EVENTS.join, (payload) => local.join(client, stringField(payload, "channelId") ?? "", handoverOf(payload)));
  }

  /**
   * On the home of a moved member's room (`voice:move` into a room another node holds): the
   * member's socket joins `channelId` at its home, through the client's node when the socket is
   * a voice link. Throws the join's refusal.
   */
  async moveAcross(socketId: string, channelId: string, handover: Handover): Promise<void> {
    const socket = this.io?.of("/").sockets.get(socketId);
    if (!socket) throw new ApiError(404, "Member in voice not found");
    if (!socket.data.voiceLink) {
      await this.moveInto(socket, channelId, handover);
      return;
    }
    // An event of the nodes' own, not a client's (the socket's typed events do not list it).
    const link = socket as unknown as { timeout(ms: number): { emitWithAck(event: string, payload: unknown): Promise<LinkAnswer> } };
    let answer: LinkAnswer;
    try {
      answer = await link.timeout(LINK_ACK_TIMEOUT_MS).emitWithAck(LINK_EVENTS.moved, { channelId, handover });
    } catch {
      throw new ApiError(503, "The member's node did not answer; try again");
    }
    if (!answer?.ok) throw new ApiError(400, typeof answer?.error === "string" ? answer.error : "Internal error");
  }

  /** The client's socket closed: so do its links. */
  disconnected(socketId: string): void {
    this.voiceHomeOf.delete(socketId);
    this.losingHome.delete(socketId);
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

  /** Where a voice event other than `voice:join` goes. */
  private async voiceHome(socket: GatewaySocket, event: string, payload: unknown): Promise<string | null> {
    if (byTargetUser.has(event)) {
      // A malformed payload is refused by the local handler, with its usual message.
      const userId = stringField(payload, "userId");
      return userId === null ? null : ((await this.homes.userRoom(userId))?.url ?? null);
    }
    if (byChannel.has(event)) {
      const channelId = stringField(payload, "channelId");
      return channelId === null ? null : this.homes.find(homeKeys.voice(channelId));
    }
    return this.voiceHomeOf.get(socket.id) ?? null;
  }

  /**
   * A client's `voice:join`. Its room's home (chosen here) handles it, as on one node, when the
   * user is in no room or in one held by the same home. Otherwise the user's room is held by
   * another node than the new one's, and the join goes as on one node in three steps: the new
   * home checks it, the old home takes the user out (their leave events, and
   * `voice:force-leave` to another device), then the new home lets them in, carrying server
   * mute and deafen.
   */
  private async join(socket: GatewaySocket, payload: unknown, handler: ClientEventHandler) {
    const channelId = stringField(payload, "channelId");
    // A malformed join is refused by the local handler, with its usual message.
    if (channelId === null) return this.here("voice:join", handler, socket, payload);
    const home = await this.homes.claim(homeKeys.voice(channelId));
    const prior = await this.roomOf(socket);
    if (prior === null || prior.home === home) {
      if (home === null) return this.here("voice:join", handler, socket, payload);
      return this.relayTo(socket, home, prior?.sameSocket === true, async () => this.pass(socket, await this.link(socket, home), "voice:join", payload));
    }
    return this.joinAcross(socket, channelId, home, prior);
  }

  /** A join that met a dead home (declared dead on the way) is made once more: the room is free to claim now. */
  private async joinOnce(socket: GatewaySocket, payload: unknown, handler: ClientEventHandler) {
    try {
      return await this.join(socket, payload, handler);
    } catch (error) {
      if (!(error instanceof HomeLost)) throw error;
      return this.join(socket, payload, handler);
    }
  }

  /** Where the user of `socket` is in voice: the room's home (null: here), and whether it is this very socket. */
  private async roomOf(socket: GatewaySocket): Promise<{ home: string | null; sameSocket: boolean } | null> {
    const here = this.local!.rooms.ofUser(socket.data.userId);
    if (here) return { home: null, sameSocket: here.socketId === socket.id };
    const relayed = this.voiceHomeOf.get(socket.id);
    if (relayed !== undefined) return { home: relayed, sameSocket: true };
    const room = await this.homes.userRoom(socket.data.userId);
    return room?.url ? { home: room.url, sameSocket: false } : null;
  }

  /**
   * The user of `socket` joins `channelId`, whose home (`home`, null: here) is not that of the
   * room they are in (`prior`): the new home checks the join, the old one takes them out and
   * answers what they carry, then the new home lets them in.
   */
  private joinAcross(socket: GatewaySocket, channelId: string, home: string | null, prior: { home: string | null; sameSocket: boolean }): Promise<object> {
    const { userId, isBot } = socket.data;
    return this.reportingTo(socket, async () => {
      if (home === null) await this.local!.admits(userId, channelId, isBot);
      else await this.ask(socket, home, LINK_EVENTS.check, { channelId });
      const handover =
        prior.home === null
          ? await this.local!.handOver(userId, !prior.sameSocket)
          : (((await this.ask(socket, prior.home, LINK_EVENTS.handOver, { otherDevice: !prior.sameSocket })).handover as Handover | null) ?? null);
      return this.enter(socket, channelId, home, handover);
    });
  }

  /** `voice:move` into a room another node holds: the socket, out of its old room already, joins it at its home. */
  private moveInto(socket: GatewaySocket, channelId: string, handover: Handover): Promise<object> {
    return this.reportingTo(socket, async () => this.enter(socket, channelId, await this.homes.claim(homeKeys.voice(channelId)), handover));
  }

  /** Joins `channelId` at `home` (null: here) carrying `handover`; the socket's voice events go there from then on. */
  private async enter(socket: GatewaySocket, channelId: string, home: string | null, handover: Handover | null): Promise<object> {
    // Out of the old room: the socket's events no longer go to its home.
    this.voiceHomeOf.delete(socket.id);
    const client = { socketId: socket.id, userId: socket.data.userId, username: socket.data.username, isBot: socket.data.isBot };
    if (home === null) return this.local!.join(client, channelId, handover ?? undefined);
    const { ok: _ok, ...room } = await this.relayTo(socket, home, false, () => this.ask(socket, home, LINK_EVENTS.join, { channelId, handover }));
    return room;
  }

  /**
   * Runs `join`, a join at `home`, with the socket's voice events going there from the start (a
   * client may act in the room as soon as it is told it is in, before the join's answer).
   * Refused, they go where they went before when `stays` (still in a room at that home), nowhere otherwise.
   */
  private async relayTo<T>(socket: GatewaySocket, home: string, stays: boolean, join: () => Promise<T>): Promise<T> {
    this.voiceHomeOf.set(socket.id, home);
    try {
      return await join();
    } catch (error) {
      if (!stays && this.voiceHomeOf.get(socket.id) === home) this.voiceHomeOf.delete(socket.id);
      throw error;
    }
  }

  /** Runs `work`; its refusal also reaches the client as `voice:error` (a link that could not open has said so already). */
  private async reportingTo<T>(socket: GatewaySocket, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof LinkRefused)) socket.emit("voice:error", { error: error instanceof ApiError ? error.message : "Internal error" });
      throw error;
    }
  }

  /** Asks `url`, over the client's voice link there, one of LINK_EVENTS; throws its refusal. */
  private async ask(client: GatewaySocket, url: string, event: string, payload: unknown): Promise<LinkAnswer> {
    return accepted(await request(await this.link(client, url), event, payload));
  }

  /** Where a call event goes: the DM's call home for a start, the call's home otherwise. */
  private async callHome(event: string, payload: unknown): Promise<string | null> {
    if (event === "dm:call-start") {
      const conversationId = stringField(payload, "conversationId");
      return conversationId === null ? null : this.homes.claim(homeKeys.dmCall(conversationId));
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
    socket.onAny((event: string, ...args: unknown[]) => {
      if (!isLinkEvent(event)) toClient.emit(event, ...args);
    });
    // The home moved the client (`voice:move`) into a room another node holds.
    socket.on(LINK_EVENTS.moved, (payload: unknown, ack?: (answer: LinkAnswer) => void) => {
      const channelId = stringField(payload, "channelId") ?? "";
      const handover = handoverOf(payload);
      if (!handover) return ack?.({ ok: false, error: "handover: is required" });
      this.moveInto(client, channelId, { ...handover, moved: true }).then(
        () => ack?.({ ok: true }),
        (error: unknown) => ack?.({ ok: false, error: error instanceof ApiError ? error.message : "Internal error" }),
      );
    });
    socket.on("disconnect", () => {
      if (this.links.get(client.id)?.get(url) === link) this.links.get(client.id)!.delete(url);
      if (link.closing || !client.connected) return;
      // The home went away: the client is out of what it held, and may join again (a new home is chosen).
      this.log.warn("voice link lost", { socketId: client.id, url });
      if (this.voiceHomeOf.get(client.id) !== url) return;
      this.voiceHomeOf.delete(client.id);
      this.losingHome.add(client.id);
      // Told once the home is known dead (or not), so that the client's join again finds the room free.
      void this.homes
        .homeUnreachable(url)
        .catch(() => false)
        .then(() => {
          this.losingHome.delete(client.id);
          client.emit("voice:error", { error: HOME_WENT_AWAY });
        });
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
      if (await this.homes.homeUnreachable(url).catch(() => false)) throw new HomeLost();
      client.emit("voice:error", { error: LINK_REFUSED });
      throw new LinkRefused();
    }
    return link;
  }

  private async pass(client: GatewaySocket, link: Link, event: string, payload: unknown): Promise<object> {
    if (isFrame(event)) {
      link.socket.emit(event, payload);
      return {};
    }
    const answer = await request(link, event, payload);
    if (event === "voice:leave") this.voiceHomeOf.delete(client.id);
    const { ok: _ok, ...fields } = accepted(answer);
    return fields;
  }

  private close(link: Link): void {
    link.closing = true;
    link.socket.close();
  }
}

/** Sends `event` over a link and waits for the home's answer (503 when none comes). */
async function request(link: Link, event: string, payload: unknown): Promise<LinkAnswer> {
  try {
    return await link.socket.timeout(LINK_ACK_TIMEOUT_MS).emitWithAck(event, payload);
  } catch {
    throw new ApiError(503, "The node holding this room did not answer; try again");
  }
}

/** The home's answer when it is `{ok: true, ...}`; its refusal thrown otherwise. */
function accepted(answer: LinkAnswer): LinkAnswer {
  if (!answer?.ok) throw new ApiError(400, typeof answer?.error === "string" ? answer.error : "Internal error");
  return answer;
}

const LINK_REFUSED = "The node holding this room cannot be reached; try again";
const HOME_WENT_AWAY = "The voice room's node went away; join again";

/** A voice link that could not open (the client has been told with `voice:error`). */
class LinkRefused extends ApiError {
  constructor() {
    super(503, LINK_REFUSED);
  }
}

/** A voice link that could not open because its node is dead, now declared so: a join is made again. */
class HomeLost extends LinkRefused {}
