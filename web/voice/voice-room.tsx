/**
 * A voice channel's room, shown at the top of the channel's page (docs/web.md, "Voice"): who
 * is in it (asked before joining, live once in), joining and leaving, the controls, meetings'
 * speakers and audience, who is listening, and the soundboard.
 */
import { useEffect, useState } from "preact/hooks";
import type { Channel, MeUser, Server } from "../lib/wire-types.ts";
import { Avatar } from "../components/avatar.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";
import { basePermissionsOf, can } from "../lib/permissions.ts";
import { gateway, store } from "../state/app-state.ts";
import type { ServerState } from "../state/server-state.ts";
import { ParticipantTile, TileOptions, type TileContext } from "./participant-tile.tsx";
import { listeningBots, meetingSections } from "./room.ts";
import { SoundboardPanel } from "./soundboard-panel.tsx";
import type { VoiceParticipant } from "./types.ts";
import { VoiceControls } from "./voice-controls.tsx";
import { voice } from "./voice-state.ts";
import "./voice.css";

/** How often the room is asked who is in it while the reader has not joined. */
const PREVIEW_EVERY_MS = 10_000;

export function VoiceRoom({ server, state, channel, me }: { server: Server; state: ServerState; channel: Channel; me: MeUser }) {
  const session = voice;
  const inHere = session.isIn(channel.id);
  const [soundboard, setSoundboard] = useState(false);
  const permissions = basePermissionsOf(state.members.self.value, state.roles.value, server.owner_id);
  const elsewhere = session.status.value !== "idle" && !inHere ? session.channel.value : null;
  const ctx: TileContext = {
    session,
    meId: me.id,
    permissions,
    meeting: channel.is_meeting,
    // Someone in the room the app does not know yet (a large server) is looked up once.
    avatarOf: (userId) => state.members.lookup(userId)?.avatar ?? null,
    otherChannels: (state.channels.value ?? []).filter((c) => c.type === "voice" && c.id !== channel.id).map((c) => ({ id: c.id, name: c.name })),
  };
  const join = () => void session.join({ id: channel.id, serverId: server.id, name: channel.name, meeting: channel.is_meeting });
  return (
    <section class="voice-room" aria-label={`Voice: ${channel.name}`}>
      {session.notice.value && !inHere && (
        <p class="notice" role="status">
          {session.notice.value}
        </p>
      )}
      {inHere ? (
        <Joined ctx={ctx} soundboard={soundboard} setSoundboard={setSoundboard} canSoundboard={can(permissions, "USE_SOUNDBOARD")} premium={Boolean(me.premium)} />
      ) : (
        <div class="voice-join">
          <RoomPreview channelId={channel.id} avatarOf={ctx.avatarOf} />
          <p class="muted">
            {channel.is_meeting
              ? "This is a meeting: you join in the audience, and raise your hand to speak."
              : "Join to talk with the people here and hear its bots. Your browser will ask for your microphone."}
          </p>
          {elsewhere && <p class="muted small">You are in voice in {elsewhere.name}; joining here leaves it.</p>}
          <button type="button" class="primary" onClick={join} disabled={session.status.value === "joining" && session.channel.value?.id === channel.id}>
            Join voice
          </button>
        </div>
      )}
      <ErrorAlert message={session.error.value} />
    </section>
  );
}

function Joined({ ctx, soundboard, setSoundboard, canSoundboard, premium }: {
  ctx: TileContext;
  soundboard: boolean;
  setSoundboard: (open: boolean) => void;
  canSoundboard: boolean;
  premium: boolean;
}) {
  const session = ctx.session;
  const participants = session.participants.value;
  const bots = listeningBots(participants);
  const sound = session.lastSound.value;
  return (
    <>
      {session.status.value === "joining" && (
        <p class="muted" role="status">
          Connecting…
        </p>
      )}
      {session.status.value === "reconnecting" && (
        <p class="notice" role="status" aria-label="Reconnecting to voice">
          Reconnecting…
        </p>
      )}
      {session.notice.value && (
        <p class="notice" role="status">
          {session.notice.value}
        </p>
      )}
      {bots.length > 0 && (
        <p class="voice-listening" role="status">
          <strong>{bots.map((b) => b.username).join(", ")}</strong> {bots.length === 1 ? "is" : "are"} listening: your voice goes to{" "}
          {bots.length === 1 ? "this bot" : "these bots"} while you talk.
        </p>
      )}
      {/* While reconnecting the room's list is not known: no "Nobody" under "Reconnecting…". */}
      {session.status.value === "reconnecting" ? null : ctx.meeting ? (
        <MeetingLists participants={participants} ctx={ctx} />
      ) : (
        <Tiles label="In voice" participants={participants} ctx={ctx} />
      )}
      <MicStatus />
      <VoiceControls session={session} soundboard={canSoundboard ? { open: soundboard, toggle: () => setSoundboard(!soundboard) } : null} />
      {sound && (
        <p class="muted small" role="status">
          {sound.username} played {sound.sound.icon} {sound.sound.name}
        </p>
      )}
      {canSoundboard && soundboard && <SoundboardPanel premium={premium} />}
    </>
  );
}

function Tiles({ label, participants, ctx }: { label: string; participants: VoiceParticipant[]; ctx: TileContext }) {
  const [openFor, setOpenFor] = useState<string | null>(null);
  const open = participants.find((p) => p.socketId === openFor);
  return (
    <>
      <ul class="voice-tiles" aria-label={label}>
        {participants.map((p) => (
          <ParticipantTile key={p.socketId} p={p} ctx={ctx} open={p === open} onToggle={() => setOpenFor(p === open ? null : p.socketId)} />
        ))}
        {participants.length === 0 && <li class="empty">Nobody</li>}
      </ul>
      {open && <TileOptions key={open.socketId} p={open} ctx={ctx} onClose={() => setOpenFor(null)} />}
    </>
  );
}

function MeetingLists({ participants, ctx }: { participants: VoiceParticipant[]; ctx: TileContext }) {
  const { speakers, audience } = meetingSections(participants);
  const hands = audience.filter((p) => p.handRaised).length;
  return (
    <div class="meeting">
      <h3 class="voice-section">Speakers</h3>
      <Tiles label="Speakers" participants={speakers} ctx={ctx} />
      <h3 class="voice-section">
        Audience{hands > 0 && <span class="muted small"> · {hands === 1 ? "1 hand raised" : `${hands} hands raised`}</span>}
      </h3>
      <Tiles label="Audience" participants={audience} ctx={ctx} />
    </div>
  );
}

function MicStatus() {
  const mic = voice.mic;
  const state = mic.state.value;
  if (state === "asking") return <p class="muted small" role="status">Asking for your microphone…</p>;
  if (state === "denied") return <p class="notice small" role="status">Your microphone is blocked, so nobody hears you. Allow it in the browser's site settings, then join again.</p>;
  if (state === "unavailable") return <p class="notice small" role="status">No microphone is available here (voice needs HTTPS or localhost), so nobody hears you.</p>;
  if (state !== "on") return null;
  const level = Math.min(1, mic.level.value * 8);
  return (
    <div class="mic-status">
      <span class="muted small">Your microphone</span>
      <span class="mic-meter" role="meter" aria-label="Microphone level" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(level * 100)}>
        <span class="mic-meter-bar" style={{ width: `${Math.round(level * 100)}%` }} />
      </span>
      {voice.transmitting.value && <span class="mic-live small">Your voice is going out</span>}
    </div>
  );
}

/** Who is in the room, before joining (`bot:voice-participants`, asked now and then). */
function RoomPreview({ channelId, avatarOf }: { channelId: string; avatarOf: (userId: string) => string | null }) {
  const [people, setPeople] = useState<VoiceParticipant[] | null>(null);
  useEffect(() => {
    let alive = true;
    const ask = async () => {
      const ack = await gateway.emit("bot:voice-participants", { channelId }).catch(() => null);
      if (alive && ack) setPeople(ack.participants);
    };
    void ask();
    const timer = setInterval(ask, PREVIEW_EVERY_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [channelId, store.connected.value]);
  if (!people) return null;
  if (people.length === 0) return <p class="muted">Nobody is in voice here yet.</p>;
  return (
    <div class="voice-preview">
      <span class="muted">In voice now:</span>
      <ul aria-label="In voice now">
        {people.map((p) => (
          <li key={p.socketId} title={p.username}>
            <Avatar name={p.username} src={avatarOf(p.userId)} size={24} />
            <span>{p.username}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
