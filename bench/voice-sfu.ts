/**
 * A speaker's upload and the peer connections of a voice room of N people, peer to peer (the
 * mesh) against Janus's VideoRoom (docs/voice.md, "Janus"), in one run: Debian's Chromium with
 * a fake microphone per person, every connection relay only through the suite's coturn, Janus of
 * the suite's own, all inside the media network namespace (scripts/media-namespace.ts). For each
 * size, every person joins one voice room, the first talks (the fake microphone's beeps) and the
 * others listen muted; after they
 * are connected and a warm-up, the bytes each page sends are read from getStats twice, `--seconds`
 * apart. The figures: the speaker's (the first page's) audio streams out, its upload in kbit/s,
 * and the peer connections of that page and of the whole room.
 *
 * Run: `bun scripts/in-media-namespace.ts bun bench/voice-sfu.ts [--sizes 2,4,8] [--janus-more 12] [--seconds 5]`
 * (root: it makes a network namespace). Prints a summary on stderr and one JSON line per mode
 * and size on stdout.
 */
import type { Page } from "playwright-core";
import { startWebSuite, type Person, type WebSuite } from "../test/web/browser/harness.ts";
import { peerStats, RECORD_PEER_CONNECTIONS } from "../test/web/browser/peer-stats.ts";
import { closePages, controls, diagnostics, joinVoice, voiceServer } from "../test/web/browser/voice-helpers.ts";
import { argOf, log } from "./fixture.ts";

const SIZES = argOf("sizes", "2,4,8").split(",").map(Number);
/** Janus's rooms also at these sizes (the mesh's pages would not come up on a small machine). */
const JANUS_MORE = argOf("janus-more", "12").split(",").filter(Boolean).map(Number);
const SECONDS = Number(argOf("seconds", "5"));
const WARMUP_MS = 3000;

/** Bytes the page has sent on audio streams so far, and what its open connections are. */
async function sent(page: Page): Promise<{ bytes: number; streams: number; connections: number }> {
  const open = (await peerStats(page)).filter((s) => s.state === "connected");
  const streams = open.flatMap((s) => s.outbound);
  return { bytes: streams.reduce((sum, s) => sum + s.bytes, 0), streams: streams.length, connections: open.length };
}

async function connected(people: Person[], mode: "mesh" | "janus", size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const person of people) {
    for (;;) {
      const peers = Object.values((await diagnostics(person.page)).voice.peers as Record<string, string>);
      const want = mode === "mesh" ? size - 1 : 2;
      if (peers.length === want && peers.every((state) => state === "connected")) break;
      if (Date.now() > deadline) throw new Error(`${mode} ${size}: ${person.username}'s connections did not come up: ${JSON.stringify(peers)}`);
      await Bun.sleep(200);
    }
  }
}

async function room(suite: WebSuite, mode: "mesh" | "janus", size: number) {
  const people: Person[] = [];
  for (let i = 0; i < size; i++) people.push(await suite.person({ name: `${mode}${size}_p${i}_${crypto.randomUUID().slice(0, 4)}` }));
  const { serverId, channelId } = await voiceServer(suite, people[0]!, people.slice(1));
  // One speaker; the others listen muted (their connections exist all the same: in the mesh each
  // is a sendrecv connection to every other person), so the machine's cores go to the pages' media.
  for (const [at, person] of people.entries()) {
    await joinVoice(person, serverId, channelId);
    if (at > 0) await controls(person.page).getByRole("button", { name: "Mute" }).click();
  }
  await connected(people, mode, size);
  await Bun.sleep(WARMUP_MS);
  const before = await Promise.all(people.map((p) => sent(p.page)));
  const started = performance.now();
  await Bun.sleep(SECONDS * 1000);
  const after = await Promise.all(people.map((p) => sent(p.page)));
  const seconds = (performance.now() - started) / 1000;
  const speaker = after[0]!;
  const line = {
    bench: "voice-sfu",
    mode,
    size,
    speaker_streams_out: speaker.streams,
    speaker_upload_kbps: Math.round((((speaker.bytes - before[0]!.bytes) * 8) / seconds / 1000) * 10) / 10,
    speaker_connections: speaker.connections,
    room_connections: after.reduce((sum, s) => sum + s.connections, 0),
    room_upload_kbps: Math.round((((after.reduce((sum, s) => sum + s.bytes, 0) - before.reduce((sum, s) => sum + s.bytes, 0)) * 8) / seconds / 1000) * 10) / 10,
    load_average: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).map(Number),
  };
  console.log(JSON.stringify(line));
  log(`${mode.padEnd(5)} ${String(size).padStart(3)} people: speaker sends ${line.speaker_streams_out} stream(s), ${line.speaker_upload_kbps} kbit/s, ${line.speaker_connections} connection(s); the room holds ${line.room_connections} connections, uploads ${line.room_upload_kbps} kbit/s`);
  await closePages(suite);
}

for (const mode of ["mesh", "janus"] as const) {
  const largest = Math.max(...SIZES, ...JANUS_MORE);
  const suite = await startWebSuite({
    media: true,
    janus: mode === "janus",
    initScript: RECORD_PEER_CONNECTIONS,
    // The mesh's caps would refuse the larger rooms: this bench measures what they protect against.
    server: { meshCaps: { publishers: largest, audience: largest } },
  });
  try {
    for (const size of mode === "janus" ? [...SIZES, ...JANUS_MORE] : SIZES) {
      try {
        await room(suite, mode, size);
      } catch (error) {
        // A size this machine cannot run in this mode is a figure too: say so and go on.
        const load_average = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).map(Number);
        console.log(JSON.stringify({ bench: "voice-sfu", mode, size, error: (error as Error).message.split("\n")[0], load_average }));
        log(`${mode.padEnd(5)} ${String(size).padStart(3)} people: not measured: ${(error as Error).message.split("\n")[0]}`);
        await closePages(suite);
      }
    }
  } finally {
    await suite.stop();
  }
}
