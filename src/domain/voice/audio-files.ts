import { badRequest, payloadTooLarge } from "../shared/errors.ts";
import { formatBytes } from "../shared/uploads.ts";

interface AudioType {
  ext: "mp3" | "aac" | "ogg" | "wav" | "webm" | "flac" | "m4a";
  mime: string;
}

/** ISO-BMFF brands that are images, not audio or video, though they share the "ftyp" box. */
const IMAGE_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]);

/**
 * The audio type from the file's first bytes (`File.type` comes from the file name and is never
 * trusted). MP3 is an ID3 tag or an MPEG frame sync (11 set bits); a sync with layer bits 00 is
 * AAC in ADTS framing.
 */
export function sniffAudio(bytes: Uint8Array): AudioType | null {
  const ascii = (from: number, to: number) => (bytes.length >= to ? String.fromCharCode(...bytes.subarray(from, to)) : "");
  if (ascii(0, 3) === "ID3") return { ext: "mp3", mime: "audio/mpeg" };
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) {
    return (bytes[1]! & 0x06) === 0 ? { ext: "aac", mime: "audio/aac" } : { ext: "mp3", mime: "audio/mpeg" };
  }
  if (ascii(0, 4) === "OggS") return { ext: "ogg", mime: "audio/ogg" };
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return { ext: "wav", mime: "audio/wav" };
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return { ext: "webm", mime: "audio/webm" };
  if (ascii(0, 4) === "fLaC") return { ext: "flac", mime: "audio/flac" };
  if (ascii(4, 8) === "ftyp" && !IMAGE_BRANDS.has(ascii(8, 12))) return { ext: "m4a", mime: "audio/mp4" };
  return null;
}

/** Reads an uploaded audio field: present, within `maxBytes`, and really audio. */
export async function readAudioUpload(field: string, value: unknown, maxBytes: number): Promise<{ bytes: Uint8Array; type: AudioType }> {
  if (!(value instanceof Blob)) throw badRequest(`${field}: a file is required`);
  if (value.size > maxBytes) throw payloadTooLarge(`${field} must be at most ${formatBytes(maxBytes)}`);
  const bytes = new Uint8Array(await value.arrayBuffer());
  const type = sniffAudio(bytes);
  if (!type) throw badRequest(`${field} must be an audio file (MP3, OGG, WAV, WEBM, FLAC or M4A)`);
  return { bytes, type };
}
