import { badRequest, payloadTooLarge } from "../domain/errors.ts";
import { formatBytes } from "../domain/uploads.ts";

/** Room for the multipart framing and small text fields around the files. */
const FORM_OVERHEAD = 64 * 1024;

/**
 * Reads a multipart form, refusing it from `content-length` before reading a byte when it
 * cannot fit. Routes that use it declare `parse: "none"` so Elysia leaves the body alone.
 */
export async function readMultipart(request: Request, maxFileBytes: number) {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) throw badRequest("Expected a multipart/form-data body");
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(length) && length > maxFileBytes + FORM_OVERHEAD) {
    throw payloadTooLarge(`Upload too large: the limit is ${formatBytes(maxFileBytes)}`);
  }
  try {
    return await request.formData();
  } catch {
    throw badRequest("Malformed multipart body");
  }
}
