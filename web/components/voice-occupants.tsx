/**
 * Who is in a voice channel, under its row in the channel list (docs/web.md, "Voice channels in
 * the channel list"): avatar with the speaking ring, name, muted and deafened marks; a meeting
 * shows its speakers and how many listen. Live from `voice:channel-update` (web/state/voice-occupants.ts).
 */
import type { VoiceChannelState, VoiceOccupant } from "../lib/wire-types.ts";
import { VoiceIcon } from "../voice/voice-icons.tsx";
import { Avatar } from "./avatar.tsx";
import "./voice-occupants.css";

/** What a screen reader says for one person: their name, then each state the icons show. */
export function occupantLabel(o: VoiceOccupant): string {
  const states = [
    o.speaking && "speaking",
    o.server_muted ? "server muted" : o.muted && "muted",
    o.server_deafened ? "server deafened" : o.deafened && "deafened",
    o.video && "video on",
  ].filter((s): s is string => typeof s === "string");
  return [o.username, ...states].join(", ");
}

export function VoiceOccupants({ channelName, room }: { channelName: string; room: VoiceChannelState | undefined }) {
  if (!room) return null;
  return (
    <ul class="voice-occupants" aria-label={`In ${channelName}`}>
      {room.occupants.map((o) => (
        <li key={o.user_id} class={`voice-occupant${o.speaking ? " speaking" : ""}`} aria-label={occupantLabel(o)} title={occupantLabel(o)}>
          <Avatar name={o.username} src={o.avatar} size={22} />
          <span class="voice-occupant-name" aria-hidden="true">
            {o.username}
          </span>
          <span class="voice-occupant-flags" aria-hidden="true">
            {(o.muted || o.server_muted) && (
              <span class={o.server_muted ? "danger" : undefined}>
                <VoiceIcon name="micOff" size={14} />
              </span>
            )}
            {(o.deafened || o.server_deafened) && (
              <span class={o.server_deafened ? "danger" : undefined}>
                <VoiceIcon name="headphonesOff" size={14} />
              </span>
            )}
          </span>
        </li>
      ))}
      {room.audience_count > 0 && <li class="voice-audience">{room.audience_count} listening</li>}
    </ul>
  );
}
