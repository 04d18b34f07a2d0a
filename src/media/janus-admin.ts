/**
 * Janus's Admin API over HTTP (https://janus.conf.meetecho.com/docs/admin.html): every request
 * carries the `admin_secret`; `message_plugin` reaches the VideoRoom plugin without a session.
 * Each call is bounded (a Janus that stops answering is a Janus that is down, not a wait).
 */
const VIDEOROOM = "janus.plugin.videoroom";
const TIMEOUT_MS = 3000;

export class JanusError extends Error {
  constructor(
    message: string,
    /** Janus's or the plugin's error code, when it answered one. */
    readonly code: number | null,
  ) {
    super(message);
    this.name = "JanusError";
  }
}

/** The VideoRoom's answer to a request (its `response`), e.g. `{videoroom: "success"}`. */
export type VideoRoomAnswer = { videoroom?: string; error_code?: number; error?: string } & Record<string, unknown>;

export class JanusAdmin {
  private transactions = 0;

  constructor(
    readonly adminUrl: string,
    private readonly secret: string,
  ) {}

  /** One request; Janus answers `success` (or, for `info`, `server_info`). */
  private async call(body: Record<string, unknown>, answered = "success"): Promise<Record<string, unknown>> {
    const transaction = `hearth-${++this.transactions}`;
    let res: Response;
    try {
      res = await fetch(this.adminUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, transaction, admin_secret: this.secret }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new JanusError(`Janus Admin API unreachable at ${this.adminUrl}: ${(error as Error).message}`, null);
    }
    const answer = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!answer || typeof answer !== "object") throw new JanusError(`Janus Admin API answered ${res.status} without JSON`, null);
    if (answer.janus !== answered) {
      const error = (answer.error ?? {}) as { code?: number; reason?: string };
      throw new JanusError(`Janus refused ${String(body.janus)}: ${error.reason ?? JSON.stringify(answer)}`, error.code ?? null);
    }
    return answer;
  }

  /** `info`: whether the instance answers (the health check). */
  async info(): Promise<void> {
    await this.call({ janus: "info" }, "server_info");
  }

  /** A stored token (token_auth) good for the VideoRoom plugin only. */
  async addToken(token: string): Promise<void> {
    await this.call({ janus: "add_token", token, plugins: [VIDEOROOM] });
  }

  async removeToken(token: string): Promise<void> {
    await this.call({ janus: "remove_token", token });
  }

  /** A synchronous VideoRoom request; the plugin's refusals throw with its error code. */
  async videoRoom(request: Record<string, unknown>): Promise<VideoRoomAnswer> {
    const answer = await this.call({ janus: "message_plugin", plugin: VIDEOROOM, request });
    const response = (answer.response ?? {}) as VideoRoomAnswer;
    if (typeof response.error_code === "number") throw new JanusError(`VideoRoom refused ${String(request.request)}: ${response.error ?? ""}`, response.error_code);
    return response;
  }
}

/** The VideoRoom's error codes Hearth reads (janus_videoroom.c). */
export const VIDEOROOM_ERRORS = { NO_SUCH_ROOM: 426, ROOM_EXISTS: 427, NO_SUCH_FEED: 428 } as const;
