import { badRequest } from "../domain/shared/errors.ts";
import { formatBytes } from "../domain/shared/uploads.ts";
import { readBodyCapped } from "./body.ts";
import { LIMITS } from "../domain/shared/limits.ts";

/**
 * Reads a multipart form within `maxFileBytes` (plus framing): refused from `content-length`
 * before reading a byte, or as soon as a chunked body passes the cap. Routes that use it
 * declare `parse: "none"` so Elysia leaves the body alone.
 */
export async function readMultipart(request: Request, maxFileBytes: number) {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) throw badRequest("Expected a multipart/form-data body");
  const bytes = await readBodyCapped(request, maxFileBytes + LIMITS.request.multipartOverheadBytes, `Upload too large: the limit is ${formatBytes(maxFileBytes)}`);
  try {
    return await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("Malformed multipart body");
  }
}
