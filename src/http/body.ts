import { payloadTooLarge } from "../domain/shared/errors.ts";
import { formatBytes } from "../domain/shared/uploads.ts";
import { LIMITS } from "../domain/shared/limits.ts";

/**
 * The body's bytes, refusing it with 413 from `content-length` before reading, or as soon as
 * a chunked body passes `maxBytes` while streaming in.
 */
export async function readBodyCapped(
  request: Request,
  maxBytes: number,
  message = `Request body too large: the limit is ${formatBytes(maxBytes)}`,
): Promise<Uint8Array> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  const tooLarge = () => payloadTooLarge(message);
  if (Number.isFinite(length) && length > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
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
