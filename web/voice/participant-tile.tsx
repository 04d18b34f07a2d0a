/**
 * One participant of a voice room: avatar with the speaking ring, name, flags, and an options
 * panel with their volume and, for those with the bits, meeting and moderation actions.
 */
import { useState } from "preact/hooks";
import { Avatar } from "../components/avatar.tsx";
import { can } from "../lib/permissions.ts";
import { VoiceIcon, type VoiceIconName } from "./voice-icons.tsx";
import type { VoiceParticipant } from "./types.ts";
import type { VoiceSession } from "./voice-session.ts";

export interface TileContext {
  session: VoiceSession;
  meId: string;
  /** Server-wide permission bits of the reader (the server still decides). */
  permissions: number;
  meeting: boolean;
  avatarOf(userId: string): string | null;
  /** The server's other voice channels, for "Move to". */
  otherChannels: { id: string; name: string }[];
}

function Flag({ icon, label, tone }: { icon: VoiceIconName; label: string; tone?: "danger" | "accent" | "ok" }) {
  return (
    <span class={`voice-flag${tone ? ` ${tone}` : ""}`} role="img" aria-label={label} title={label}>
      <VoiceIcon name={icon} size={14} />
    </span>
  );
}

/**
 * A tile; its options open in a panel under the room's list (`TileOptions`), so the grid keeps
 * its shape.
 */
export function ParticipantTile({ p, ctx, open, onToggle }: { p: VoiceParticipant; ctx: TileContext; open: boolean; onToggle: () => void }) {
  const self = p.userId === ctx.meId;
  const speaking = p.speaking || (!self && ctx.session.engine.speaking.value.has(p.userId));
  const name = p.username;
  return (
    <li class={`voice-tile${speaking ? " speaking" : ""}${self ? " self" : ""}`} aria-label={self ? `${name} (you)` : name}>
      <div class="voice-tile-avatar">
        <Avatar name={name} src={ctx.avatarOf(p.userId)} size={56} />
        {p.handRaised && (
          <span class="voice-hand" role="img" aria-label="Hand raised" title="Hand raised">
            ✋
          </span>
        )}
      </div>
      <div class="voice-tile-name">
        <span class="voice-tile-username">{name}</span>
        {p.isBot && <span class="badge bot">BOT</span>}
      </div>
      <div class="voice-flags">
        {speaking && <Flag icon="mic" label="Speaking" tone="ok" />}
        {p.muted && !p.serverMuted && <Flag icon="micOff" label="Muted" />}
        {p.serverMuted && <Flag icon="micOff" label="Server muted" tone="danger" />}
        {p.deafened && !p.serverDeafened && <Flag icon="headphonesOff" label="Deafened" />}
        {p.serverDeafened && <Flag icon="headphonesOff" label="Server deafened" tone="danger" />}
        {p.video && <Flag icon="video" label="Video on" />}
        {p.listening && <Flag icon="ear" label="Listening" tone="accent" />}
      </div>
      {hasOptions(ctx, self) && (
        <button type="button" class="icon voice-tile-more" aria-expanded={open} aria-label={`Options for ${name}`} onClick={onToggle}>
          <VoiceIcon name="more" />
        </button>
      )}
    </li>
  );
}

/** Others always have a volume; oneself only moderation (which needs no rank on oneself). */
const hasOptions = (ctx: TileContext, self: boolean) =>
  !self || can(ctx.permissions, "MUTE_MEMBERS") || can(ctx.permissions, "DEAFEN_MEMBERS") || can(ctx.permissions, "MOVE_MEMBERS");

export function TileOptions({ p, ctx, onClose }: { p: VoiceParticipant; ctx: TileContext; onClose: () => void }) {
  const { session, permissions, meeting } = ctx;
  const self = p.userId === ctx.meId;
  const [target, setTarget] = useState(ctx.otherChannels[0]?.id ?? "");
  const [volume, setVolume] = useState(Math.round(session.engine.volume(p.userId) * 100));
  const mute = can(permissions, "MUTE_MEMBERS");
  const deafen = can(permissions, "DEAFEN_MEMBERS");
  const moveBit = can(permissions, "MOVE_MEMBERS");
  const name = p.username;
  return (
    <div class="voice-options" role="group" aria-label={`Options for ${name}`}>
      <strong class="voice-options-title">{self ? "You" : name}</strong>
      {!self && (
        <label class="voice-volume">
          <span class="small">Volume</span>
          <input
            type="range"
            min={0}
            max={200}
            step={5}
            value={volume}
            aria-label={`Volume of ${name}`}
            aria-valuetext={`${volume}%`}
            onInput={(e) => {
              const value = Number((e.target as HTMLInputElement).value);
              setVolume(value);
              session.engine.setVolume(p.userId, value / 100);
            }}
          />
          <span class="muted small">{volume}%</span>
        </label>
      )}
      {meeting && mute && p.meetingRole === "audience" && (
        <button type="button" class="secondary small" onClick={() => session.setMeetingRole(p.userId, "speaker")}>
          Invite to speak
        </button>
      )}
      {meeting && mute && p.meetingRole === "speaker" && (
        <button type="button" class="secondary small" onClick={() => session.setMeetingRole(p.userId, "audience")}>
          Move to audience
        </button>
      )}
      {meeting && mute && p.handRaised && !self && (
        <button type="button" class="secondary small" onClick={() => session.lowerHand(p.userId)}>
          Lower hand
        </button>
      )}
      {mute && (
        <button type="button" class="secondary small" onClick={() => session.serverMute(p.userId, !p.serverMuted)}>
          {p.serverMuted ? "Remove server mute" : "Server mute"}
        </button>
      )}
      {deafen && (
        <button type="button" class="secondary small" onClick={() => session.serverDeafen(p.userId, !p.serverDeafened)}>
          {p.serverDeafened ? "Remove server deafen" : "Server deafen"}
        </button>
      )}
      {moveBit && ctx.otherChannels.length > 0 && (
        <div class="voice-move">
          <select aria-label={`Move ${name} to`} value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
            {ctx.otherChannels.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <button type="button" class="secondary small" onClick={() => target && session.move(p.userId, target)}>
            Move
          </button>
        </div>
      )}
      {moveBit && (
        <button type="button" class="danger small" onClick={() => session.disconnect(p.userId)}>
          Disconnect
        </button>
      )}
      <button type="button" class="icon voice-options-close" aria-label="Close options" onClick={onClose}>
        ×
      </button>
    </div>
  );
}
