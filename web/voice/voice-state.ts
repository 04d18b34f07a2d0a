/**
 * The page's one audio engine, voice session and DM call session, tied to the app's gateway
 * and session. `window.hearthVoice()` returns what the voice pages are doing (the audio
 * graph's counters and levels, the peers, the microphone): the browser tests and the
 * latency bench read it, and so can a developer in the console (docs/web.md, "Voice").
 */
import { effect } from "@preact/signals";
import { AudioEngine } from "../audio/audio-engine.ts";
import { gateway, rest, session, store } from "../state/app-state.ts";
import { CallSession } from "./call-session.ts";
import { IceConfiguration } from "./ice-servers.ts";
import { VoiceSession } from "./voice-session.ts";

export const engine = new AudioEngine();
const ice = new IceConfiguration(() => rest.request("getIceServers"));

export const voice = new VoiceSession(gateway, engine, () => session.value?.user.id, (serverId, channelId) => {
  const channel = store.server(serverId).channels.value?.find((c) => c.id === channelId);
  return channel && { id: channel.id, serverId, name: channel.name, meeting: Boolean(channel.is_meeting) };
}, ice);

export const calls = new CallSession(gateway, engine, () => session.value?.user.id, voice, ice);

// Logging out leaves voice and any call.
effect(() => {
  if (session.value) return;
  void voice.leave();
  calls.reset();
  ice.reset();
});

declare global {
  interface Window {
    hearthVoice?: () => unknown;
  }
}
window.hearthVoice = () => ({ voice: voice.diagnostics(), call: calls.diagnostics() });
