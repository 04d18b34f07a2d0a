/**
 * Above the reader's account in the sidebars: the voice channel they are in (it stays while
 * they read other channels) and the DM call they are in, each with mute and leave. Also
 * where the push-to-talk key (`) is held.
 */
import { useEffect } from "preact/hooks";
import { VoiceIcon } from "./voice-icons.tsx";
import { CallBar } from "./call-ui.tsx";
import { calls, voice } from "./voice-state.ts";

/** The push-to-talk key, held anywhere but in a text field. */
const TALK_KEY = "`";

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

function usePushToTalkKey(): void {
  useEffect(() => {
    const down = (e: KeyboardEvent) => {
      if (e.key === TALK_KEY && !e.repeat && !typing(e.target) && voice.mode.value === "push-to-talk" && voice.status.value === "connected") {
        e.preventDefault();
        voice.talkHeld.value = true;
      }
    };
    const up = (e: KeyboardEvent) => {
      if (e.key === TALK_KEY) voice.talkHeld.value = false;
    };
    const blur = () => (voice.talkHeld.value = false);
    window.addEventListener("keydown", down);
    window.addEventListener("keyup", up);
    window.addEventListener("blur", blur);
    return () => {
      window.removeEventListener("keydown", down);
      window.removeEventListener("keyup", up);
      window.removeEventListener("blur", blur);
    };
  }, []);
}

function VoiceBar() {
  usePushToTalkKey();
  const channel = voice.channel.value;
  const me = voice.me.value;
  if (!channel || voice.status.value === "idle") return null;
  return (
    <section class="connection-bar" aria-label="Voice connection">
      <div class="connection-text">
        <strong class={voice.status.value === "connected" ? "ok" : undefined}>{voice.status.value === "connected" ? "Voice connected" : voice.status.value === "reconnecting" ? "Reconnecting…" : "Connecting…"}</strong>
        <a href={`/channels/${channel.serverId}/${channel.id}`} class="small">
          {channel.name}
        </a>
      </div>
      {me && (
        <>
          <button
            type="button"
            class="icon"
            aria-pressed={me.muted}
            aria-label="Mute"
            title={me.muted ? "Unmute" : "Mute"}
            disabled={me.meetingRole === "audience"}
            onClick={() => voice.setMuted(!me.muted)}
          >
            <VoiceIcon name={me.muted ? "micOff" : "mic"} />
          </button>
          <button type="button" class="icon" aria-pressed={me.deafened} aria-label="Deafen" title={me.deafened ? "Undeafen" : "Deafen"} onClick={() => voice.setDeafened(!me.deafened)}>
            <VoiceIcon name={me.deafened ? "headphonesOff" : "headphones"} />
          </button>
        </>
      )}
      <button type="button" class="icon danger-icon" aria-label="Leave voice" title="Leave voice" onClick={() => voice.leave()}>
        <VoiceIcon name="hangUp" />
      </button>
    </section>
  );
}

/**
 * What the bars say in a word, for where they are out of sight (a phone's closed drawer):
 * "Voice connected: Lounge", "In a call", or null when neither is on.
 */
export function connectionSummary(): string | null {
  const call = calls.call.value;
  if (call) return call.state === "connected" ? "In a call" : "Calling…";
  const channel = voice.channel.value;
  if (!channel || voice.status.value === "idle") return null;
  return `${voice.status.value === "connected" ? "Voice connected" : voice.status.value === "reconnecting" ? "Reconnecting…" : "Connecting…"}: ${channel.name}`;
}

/** The voice channel and DM call bars, for the bottom of a sidebar. */
export function ConnectionBars() {
  return (
    <>
      <VoiceBar />
      <CallBar />
    </>
  );
}
