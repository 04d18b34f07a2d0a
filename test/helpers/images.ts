/** Minimal files whose first bytes are what the server sniffs. */
export const PNG_1X1 = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
export const GIF_1X1 = Uint8Array.from(atob("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="), (c) => c.charCodeAt(0));

const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * Headers declaring any dimensions, with no pixel data behind them: what the server reads to
 * refuse an image too large in pixels (src/domain/shared/image-dimensions.ts). A PNG's
 * signature and IHDR chunk (its CRC is not checked).
 */
export function pngDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...u32be(13), ...ascii("IHDR"), ...u32be(width), ...u32be(height), 8, 6, 0, 0, 0, 0, 0, 0, 0]);
}

/** A JPEG's SOI, a JFIF APP0 segment, then a baseline SOF0 segment (found by walking the segments) and EOI. */
export function jpegDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii("JFIF"), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, ...u16be(17), 8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

/** A GIF89a header and logical screen descriptor. */
export function gifDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([...ascii("GIF89a"), ...u16le(width), ...u16le(height), 0, 0, 0, 0x3b]);
}

/** A WebP RIFF header with a VP8X (extended) chunk, whose canvas may be up to 2^24 pixels a side. */
export function webpDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  const chunk = [...ascii("VP8X"), 10, 0, 0, 0, 0, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)];
  return Uint8Array.from([...ascii("RIFF"), chunk.length + 4, 0, 0, 0, ...ascii("WEBP"), ...chunk]);
}

/** A WebP with a VP8L (lossless) header: 14 bits a side, so at most 16384. */
export function webpLosslessDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  const w = width - 1;
  const h = height - 1;
  const bits = [w & 0xff, ((w >> 8) & 0x3f) | ((h & 0x3) << 6), (h >> 2) & 0xff, (h >> 10) & 0xf];
  const chunk = [...ascii("VP8L"), 5, 0, 0, 0, 0x2f, ...bits];
  return Uint8Array.from([...ascii("RIFF"), chunk.length + 4, 0, 0, 0, ...ascii("WEBP"), ...chunk]);
}

/** A WebP with a VP8 (lossy) key frame header: 14 bits a side. */
export function webpLossyDeclaring(width: number, height: number): Uint8Array<ArrayBuffer> {
  const chunk = [...ascii("VP8 "), 10, 0, 0, 0, 0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height)];
  return Uint8Array.from([...ascii("RIFF"), chunk.length + 4, 0, 0, 0, ...ascii("WEBP"), ...chunk]);
}

export const JPEG_HEADER = jpegDeclaring(1, 1);
export const WEBP_HEADER = webpLossyDeclaring(1, 1);
export const NOT_AN_IMAGE = new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>");

/** A multipart form with one file field. */
export function fileForm(field: string, bytes: Uint8Array, filename: string, type = "image/png"): FormData {
  const form = new FormData();
  form.append(field, new File([bytes], filename, { type }));
  return form;
}

/** Bytes of a given size that still start like a PNG (its signature and a 1x1 IHDR). */
export function pngOfSize(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(PNG_1X1.subarray(0, 33));
  return bytes;
}
