/**
 * The box an inline image takes before it loads, from the attachment's `width` and `height`
 * (the server reads them from the image header): the image scaled down, never up, to fit
 * `maxWidth` x `maxHeight`, so a late load never moves the log. Pure.
 */

/** Largest box of an inline image attachment (CSS pixels). */
export const IMAGE_MAX_WIDTH = 400;
export const IMAGE_MAX_HEIGHT = 300;

/** The fitted box, or null when the size is unknown (a row stored before sizes were kept, or a bad value). */
export function imageBox(
  width: number | null | undefined,
  height: number | null | undefined,
  maxWidth = IMAGE_MAX_WIDTH,
  maxHeight = IMAGE_MAX_HEIGHT,
): { width: number; height: number } | null {
  if (!width || !height || width <= 0 || height <= 0 || !Number.isFinite(width) || !Number.isFinite(height)) return null;
  const scale = Math.min(1, maxWidth / width, maxHeight / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
