/**
 * DM calls on the page (docs/dm-calls.md): the ringing dialog (answer or decline), the bar of
 * the call one is in, and the DM's "Start a call" button.
 */
import type { Dm } from "../lib/wire-types.ts";
import { Avatar } from "../components/avatar.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";
import { store } from "../state/app-state.ts";
import { dmName } from "../state/store.ts";
import { callSpeaker } from "./call-session.ts";
import { VoiceIcon } from "./voice-icons.tsx";
import { calls, engine } from "./voice-state.ts";

/** An incoming call, wherever the reader is in the app. */
export function IncomingCallDialog() {
  const ringing = calls.incoming.value;
  if (!ringing) return null;
  const dm = store.dms.value?.find((c) => c.id === ringing.conversationId);
  const group = dm?.type === "group" ? dmName(dm) : null;
  return (
    <div class="incoming-call" role="alertdialog" aria-label="Incoming call" aria-describedby="incoming-call-text">
      <Avatar name={ringing.from.username} src={ringing.from.avatar} size={40} />
      <p id="incoming-call-text">
        <strong>{ringing.from.username}</strong> is calling you{group ? ` in ${group}` : ""}
      </p>
      <button type="button" class="primary" onClick={() => calls.answer()}>
        <VoiceIcon name="phone" /> Answer
      </button>
      <button type="button" class="danger" onClick={() => calls.decline()}>
        <VoiceIcon name="hangUp" /> Decline
      </button>
    </div>
  );
}

const nameOf = (userId: string) => {
  for (const c of store.dms.value ?? []) {
    const found = c.recipients.find((r) => r.id === userId);
    if (found) return found.username;
  }
  return "Someone";
};

/** The call the reader is in (for the sidebars), or why the last one ended. */
export function CallBar() {
  const call = calls.call.value;
  const speakingNow = engine.speaking.value;
  if (!call) {
    const said = calls.notice.value ?? calls.error.value;
    if (!said) return null;
    return (
      <section class="connection-bar" aria-label="Call">
        <p class="connection-text small" role="status">
          {said}
        </p>
        <button type="button" class="icon" aria-label="Dismiss" onClick={() => ((calls.notice.value = null), (calls.error.value = null))}>
          ×
        </button>
      </section>
    );
  }
  return (
    <section class="connection-bar" aria-label="Call">
      <div class="connection-text">
        <strong class={call.state === "connected" ? "ok" : undefined}>{call.state === "connected" ? "In a call" : "Calling…"}</strong>
        <ul class="call-peers" aria-label="In the call">
          {call.peers.map((id) => {
            const speaking = speakingNow.has(callSpeaker(id));
            return (
              <li key={id} class={speaking ? "speaking" : undefined}>
                {nameOf(id)}
                {speaking && (
                  <span class="voice-flag ok" role="img" aria-label="Speaking">
                    <VoiceIcon name="mic" size={12} />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
        <a class="small" href={`/channels/@me/${call.dmId}`}>
          Open the conversation
        </a>
      </div>
      <button type="button" class="icon" aria-pressed={calls.muted.value} aria-label="Mute" onClick={() => (calls.muted.value = !calls.muted.value)}>
        <VoiceIcon name={calls.muted.value ? "micOff" : "mic"} />
      </button>
      <button type="button" class="icon danger-icon" aria-label="Hang up" title="Hang up" onClick={() => calls.hangUp()}>
        <VoiceIcon name="hangUp" />
      </button>
      <ErrorAlert message={calls.error.value} />
    </section>
  );
}

/**
 * A DM's "Start a call". One call at a time: during a call it is disabled, and its
 * description (the tooltip, and what a screen reader reads after the name) says why.
 */
export function CallButton({ dm }: { dm: Dm }) {
  const current = calls.call.value;
  const why = current === null ? undefined : current.dmId === dm.id ? "You are in a call here" : "Hang up your current call first";
  return (
    <button type="button" class="tool" disabled={current !== null} title={why} onClick={() => calls.start(dm.id)}>
      <VoiceIcon name="phone" size={16} /> Start a call
    </button>
  );
}
