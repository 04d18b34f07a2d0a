/**
 * What the WebRTC browser suites read of a page's peer connections: an init script that keeps
 * every RTCPeerConnection the page makes, and what getStats says of each open one. The page's
 * scripts are strings here: the test's TypeScript has no DOM types.
 */
import type { Page } from "playwright-core";

export const RECORD_PEER_CONNECTIONS = `{
  const Original = RTCPeerConnection;
  const made = (globalThis.peerConnections = []);
  globalThis.RTCPeerConnection = class extends Original {
    constructor(configuration) {
      super(configuration);
      made.push(this);
    }
  };
}`;

export interface PeerStats {
  state: string;
  policy: string | undefined;
  urls: string[];
  /** Types of every local candidate gathered. */
  local: string[];
  /** The candidate pair in use: its ends' types and the remote end's address. */
  selected: { local?: string; remote?: string; remotePort?: number; remoteAddress?: string } | null;
  /** Audio streams sent (`outbound-rtp`) and received (`inbound-rtp`), with their bytes. */
  outbound: { bytes: number }[];
  inbound: { bytes: number }[];
}

/** What getStats says of each open peer connection of the page. */
export const peerStats = (page: Page): Promise<PeerStats[]> =>
  page.evaluate(`(async () => {
    const out = [];
    for (const pc of globalThis.peerConnections) {
      if (pc.connectionState === "closed") continue;
      const byId = new Map();
      (await pc.getStats()).forEach((entry) => byId.set(entry.id, entry));
      const entries = [...byId.values()];
      const transport = entries.find((entry) => entry.type === "transport" && entry.selectedCandidatePairId);
      const pair = transport && byId.get(transport.selectedCandidatePairId);
      const remote = pair && byId.get(pair.remoteCandidateId);
      const configuration = pc.getConfiguration();
      const rtp = (type) => entries.filter((entry) => entry.type === type && entry.kind === "audio").map((entry) => ({ bytes: entry.bytesSent ?? entry.bytesReceived ?? 0 }));
      out.push({
        state: pc.connectionState,
        policy: configuration.iceTransportPolicy,
        urls: (configuration.iceServers ?? []).flatMap((server) => server.urls),
        local: entries.filter((entry) => entry.type === "local-candidate").map((entry) => entry.candidateType),
        selected: pair ? { local: byId.get(pair.localCandidateId)?.candidateType, remote: remote?.candidateType, remotePort: remote?.port, remoteAddress: remote?.address } : null,
        outbound: rtp("outbound-rtp"),
        inbound: rtp("inbound-rtp"),
      });
    }
    return out;
  })()`);
