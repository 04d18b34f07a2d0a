/**
 * The reader's controls in a voice room: mute, deafen, the talk mode (voice activity or
 * push-to-talk, with the talk button), raising a hand in a meeting, the soundboard and leaving.
 */
import type { VoiceSession } from "./voice-session.ts";
import { VoiceIcon } from "./voice-icons.tsx";

export function VoiceControls({ session, soundboard }: { session: VoiceSession; soundboard: { open: boolean; toggle: () => void } | null }) {
  const me = session.me.value;
  if (!me) return null;
  const audience = me.meetingRole === "audience";
  const mode = session.mode.value;
  const hold = (on: boolean) => (session.talkHeld.value = on);
  return (
    <div class="voice-controls" role="toolbar" aria-label="Voice controls">
      <button
        type="button"
        class="secondary"
        aria-pressed={me.muted}
        disabled={audience && me.muted}
        title={audience ? "Audience members cannot unmute; raise your hand to speak" : undefined}
        onClick={() => session.setMuted(!me.muted)}
      >
        <VoiceIcon name={me.muted ? "micOff" : "mic"} /> Mute
      </button>
      <button type="button" class="secondary" aria-pressed={me.deafened} onClick={() => session.setDeafened(!me.deafened)}>
        <VoiceIcon name={me.deafened ? "headphonesOff" : "headphones"} /> Deafen
      </button>
      <label class="voice-mode">
        <span class="sr-only">Talk mode</span>
        <select aria-label="Talk mode" value={mode} onChange={(e) => session.setMode((e.target as HTMLSelectElement).value as "voice-activity" | "push-to-talk")}>
          <option value="voice-activity">Voice activity</option>
          <option value="push-to-talk">Push to talk</option>
        </select>
      </label>
      {mode === "push-to-talk" && (
        <button
          type="button"
          class={`secondary talk${session.talkHeld.value ? " held" : ""}`}
          aria-pressed={session.talkHeld.value}
          title="Hold to talk (or hold the ` key)"
          onPointerDown={() => hold(true)}
          onPointerUp={() => hold(false)}
          onPointerLeave={() => hold(false)}
          onPointerCancel={() => hold(false)}
          onKeyDown={(e) => {
            if ((e.key === " " || e.key === "Enter") && !e.repeat) {
              e.preventDefault();
              hold(true);
            }
          }}
          onKeyUp={(e) => {
            if (e.key === " " || e.key === "Enter") hold(false);
          }}
          onBlur={() => hold(false)}
        >
          Push to talk
        </button>
      )}
      {audience &&
        (me.handRaised ? (
          <button type="button" class="secondary" onClick={() => session.lowerHand()}>
            <VoiceIcon name="hand" /> Lower hand
          </button>
        ) : (
          <button type="button" class="secondary" onClick={() => session.raiseHand()}>
            <VoiceIcon name="hand" /> Raise hand
          </button>
        ))}
      {soundboard && (
        <button type="button" class="secondary" aria-expanded={soundboard.open} onClick={soundboard.toggle}>
          <VoiceIcon name="music" /> Soundboard
        </button>
      )}
      <button type="button" class="danger" onClick={() => session.leave()}>
        <VoiceIcon name="hangUp" /> Leave voice
      </button>
    </div>
  );
}
