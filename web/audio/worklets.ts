/**
 * The URLs of the AudioWorklet modules, served by Hearth from its own origin: web/build.ts
 * bundles each `*.worklet.ts` on its own and defines this map (name -> hashed asset URL).
 */
declare const HEARTH_WORKLETS: Record<string, string>;

export function workletUrl(name: "pcm-player" | "mic-capture"): string {
  const url = HEARTH_WORKLETS[name];
  if (!url) throw new Error(`The ${name} audio worklet is missing from the build`);
  return url;
}
