/** Minimal files whose first bytes are what the server sniffs. */
export const PNG_1X1 = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
export const GIF_1X1 = Uint8Array.from(atob("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="), (c) => c.charCodeAt(0));
export const JPEG_HEADER = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
export const WEBP_HEADER = new TextEncoder().encode("RIFF\x24\x00\x00\x00WEBPVP8 ");
export const NOT_AN_IMAGE = new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>");

/** A multipart form with one file field. */
export function fileForm(field: string, bytes: Uint8Array, filename: string, type = "image/png"): FormData {
  const form = new FormData();
  form.append(field, new File([bytes], filename, { type }));
  return form;
}

/** Bytes of a given size that still start like a PNG. */
export function pngOfSize(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(PNG_1X1.subarray(0, 8));
  return bytes;
}
