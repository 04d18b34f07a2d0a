import { imageSize } from "image-size";
import { badRequest } from "./errors.ts";
import { jpegDimensions } from "./jpeg-dimensions.ts";

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

/** Where PNG's IHDR (or a CgBI PNG's), GIF's logical screen and WebP's frame header end, at the latest. */
const FIXED_HEADER_BYTES = 64;

/**
 * The width and height an image's header declares, read without decoding any pixel: PNG's
 * IHDR, GIF's logical screen and WebP's VP8/VP8L/VP8X header (read by image-size, from the
 * bytes only), JPEG's frame header found by walking its segments (./jpeg-dimensions.ts). Null
 * when the header is truncated or corrupt, declares an empty image, or is not of the type `ext`
 * the caller sniffed.
 */
export function declaredDimensions(bytes: Uint8Array, ext: string): { width: number; height: number } | null {
  const size = ext === "jpg" ? jpegDimensions(bytes) : fixedHeaderDimensions(bytes, ext);
  if (!size || !Number.isSafeInteger(size.width) || !Number.isSafeInteger(size.height) || size.width < 1 || size.height < 1) return null;
  return size;
}

function fixedHeaderDimensions(bytes: Uint8Array, ext: string): { width: number; height: number } | null {
  // A copy of the header alone: image-size reads through a DataView of the whole underlying
  // buffer, so a header cut short must end where the bytes do, and the work stays the same
  // whatever the file's size.
  try {
    const { width, height, type } = imageSize(bytes.slice(0, FIXED_HEADER_BYTES));
    return type === ext ? { width, height } : null;
  } catch {
    return null;
  }
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
