import { payloadTooLarge } from "../domain/shared/errors.ts";
import { formatBytes } from "../domain/shared/uploads.ts";
import { LIMITS } from "../domain/shared/limits.ts";

/**
 * How far past its limit a refused body may still be received (and thrown away, never kept).
 * A client still sending when the server answers 413 and closes sees a broken pipe instead of
 * the answer (Node's fetch: `EPIPE`, `other side closed`), so a body up to this far over is
 * let in and discarded and the connection stays open; beyond it the 413 carries
 * `Connection: close`. 64 MiB covers an honest mistake with any of our limits (a 30 MB file
 * against 25 MB) while bounding what a refused request may make us receive.
 * docs/README.md "Request bodies".
 */
export const DRAIN_PAST_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The body's bytes, within `maxBytes`; past it, 413. A `content-length` over the limit is
 * refused before a byte is read: the HTTP server discards the rest as it arrives (we answer
 * without `Connection: close`) unless the claim is past the drain bound. A chunked body is
 * read to its end, keeping nothing past the limit, and refused then; past the drain bound it
 * is cut off and the connection closed. `drainPastLimit` 0 cuts a body off at the limit itself
 * (the gateway's polling POSTs: no client sends an honest over-limit packet).
 */
export async function readBodyCapped(
  request: Request,
  maxBytes: number,
  message = `Request body too large: the limit is ${formatBytes(maxBytes)}`,
  drainPastLimit = DRAIN_PAST_LIMIT_BYTES,
): Promise<Uint8Array> {
  const drainUpTo = maxBytes + drainPastLimit;
  const length = Number(request.headers.get("content-length") ?? NaN);
  // Refused from the claim alone, unread: the HTTP server discards what the client still sends
  // (the connection stays usable) unless it is past the drain bound.
  if (Number.isFinite(length) && length > maxBytes) throw payloadTooLarge(message, { closeConnection: length > drainUpTo });
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > drainUpTo) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(message, { closeConnection: true });
    }
    // Past the limit the body is only read to its end, so the client gets the answer.
    if (total <= maxBytes) chunks.push(value);
    else chunks.length = 0;
  }
  if (total > maxBytes) throw payloadTooLarge(message);
  return Buffer.concat(chunks);
}

/**
 * A body that could not be parsed. The parse hook hands it on instead of throwing, so the
 * token is still checked first (401) and the route's body schema reports it (400).
 */
export class MalformedBody {
  constructor(readonly reason: string) {}
}

/** Parses JSON text whose brackets nest at most `LIMITS.request.jsonDepth` deep. */
export function parseJsonBounded(text: string): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > LIMITS.request.jsonDepth) return new MalformedBody(`JSON nested deeper than ${LIMITS.request.jsonDepth} levels`);
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  try {
    return JSON.parse(text);
  } catch {
    return new MalformedBody("malformed JSON");
  }
}
