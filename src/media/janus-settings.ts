/** JANUS_URL, JANUS_ADMIN_URL, JANUS_SECRET (docs/voice.md, "Janus"). */
export interface JanusSettings {
  /** Each instance's Janus API over WebSocket, as browsers reach it (and the page's Content-Security-Policy allows). */
  urls: string[];
  /** Each instance's Admin API over HTTP, as Hearth reaches it; same order as `urls`. */
  adminUrls: string[];
  /** Janus's `admin_secret` (janus.jcfg), which is also the VideoRoom plugin's `admin_key`. */
  secret: string;
}
