/**
 * What the raw load clients (bench/raw-load-client.ts, bench/raw-rate-client.ts) share: one
 * prepared GET, and the reader that splits a keep-alive connection's bytes into answers.
 */

/** The bytes of `GET <url>` on a keep-alive connection, with a bearer token when given. */
export function preparedGet(url: URL, token: string | undefined): Uint8Array {
  return new TextEncoder().encode(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}\r\n`);
}

const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * A reader for one connection: feed it each chunk as it arrives; it calls `onAnswer` once per
 * complete answer, in order, with whether it was a 200. Answers are framed by their
 * Content-Length, as every JSON answer here is (no chunked bodies).
 */
export function answerReader(onAnswer: (ok: boolean) => void): (data: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (data) => {
    pending = pending.length ? Buffer.concat([pending, data]) : data;
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = pending.subarray(0, headEnd).toString("latin1");
      const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
      if (pending.length < headEnd + 4 + length) return;
      pending = pending.subarray(headEnd + 4 + length);
      onAnswer(head.startsWith("HTTP/1.1 200"));
    }
  };
}
