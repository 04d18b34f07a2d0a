/** SOF0-SOF15 hold the frame's size; C4 (DHT), C8 (reserved) and CC (DAC) share the range but do not. */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Markers that stand alone, with no length after them: TEM and RST0-RST7. */
const standsAlone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);
/**
 * Fill bytes and segments looked at before giving up: real files have a few dozen segments
 * before the frame header, and the bound keeps a crafted file (millions of two-byte segments,
 * or a long run of fill bytes) to a few microseconds.
 */
const MAX_STEPS = 4096;

/**
 * The width and height a JPEG's frame header (SOFn) declares, found by walking the segments from
 * the start, without decoding anything: each segment's length says where the next marker is, so
 * the walk takes one step per segment. (image-size, used for the other formats, steps byte by
 * byte through anything that is not a marker, ~60 ms per MB of crafted input.) Null when the
 * walk meets a byte that is not a marker, runs past the end, reaches the scan (SOS) or the end
 * (EOI) before a frame header, or takes more than MAX_STEPS steps.
 */
export function jpegDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  for (let steps = 0; steps < MAX_STEPS; steps++) {
    if (at + 1 >= bytes.length || bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // a fill byte before the marker
      continue;
    }
    if (standsAlone(marker)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9 || marker === 0xda || marker === 0x00) return null;
    if (at + 3 >= bytes.length) return null;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (length < 2) return null;
    if (isFrameHeader(marker)) {
      // Length, precision (1 byte), height, width (2 bytes each, big-endian).
      if (length < 7 || at + 8 >= bytes.length) return null;
      return { height: (bytes[at + 5]! << 8) | bytes[at + 6]!, width: (bytes[at + 7]! << 8) | bytes[at + 8]! };
    }
    at += 2 + length;
  }
  return null;
}
