import { imageSize } from "image-size";
import { badRequest } from "./errors.ts";

/**
 * The largest image accepted, by its declared dimensions: a small file can declare a huge
 * canvas (a 4 KiB PNG of 50000x50000 pixels), which every client that shows it would have to
 * decode. Bytes are limited separately (413); this is about pixels (400).
 */
export interface ImageLimits {
  /** Width and height, each. */
  maxSide: number;
  /** Width times height. */
  maxPixels: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxSide: 8192, maxPixels: 40_000_000 };

const NAMES: Record<string, string> = { png: "PNG", jpg: "JPEG", gif: "GIF", webp: "WEBP" };

/**
 * The width and height an image's header declares, read without decoding any pixel (PNG's
 * IHDR, JPEG's SOF segment found by walking the segments, GIF's logical screen, WebP's
 * VP8/VP8L/VP8X header; image-size does the reading, from the bytes only). Null when the header
 * is truncated or corrupt, declares an empty image, or is not of the type `ext` the caller
 * sniffed.
 */
export function declaredDimensions(bytes: Uint8Array, ext: string): { width: number; height: number } | null {
  // image-size reads through a DataView of the whole underlying buffer, so a view into a larger
  // buffer is copied first: a header cut short must fail, not read the bytes after the view.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  let result: ReturnType<typeof imageSize>;
  try {
    result = imageSize(own);
  } catch {
    return null;
  }
  const { width, height, type } = result;
  if (type !== ext || !Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 1 || height < 1) return null;
  return { width, height };
}

/** Refuses (400) an image whose header cannot be read, or whose declared size is over `limits`. */
export function checkImageDimensions(bytes: Uint8Array, ext: string, limits: ImageLimits): void {
  const size = declaredDimensions(bytes, ext);
  if (!size) throw badRequest(`The image is not a valid ${NAMES[ext] ?? ext} file: its header is truncated or corrupt`);
  if (size.width > limits.maxSide || size.height > limits.maxSide || size.width * size.height > limits.maxPixels) {
    throw badRequest(
      `The image is too large: ${size.width}x${size.height} pixels; the limit is ${limits.maxSide} pixels per side ` +
        `and ${+(limits.maxPixels / 1_000_000).toFixed(2)} megapixels`,
    );
  }
}
