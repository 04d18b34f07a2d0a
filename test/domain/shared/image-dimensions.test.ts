import { describe, expect, test } from "bun:test";
import { checkImageDimensions, declaredDimensions, DEFAULT_IMAGE_LIMITS } from "../../../src/domain/shared/image-dimensions.ts";
import { ApiError } from "../../../src/domain/shared/errors.ts";
import {
  GIF_1X1,
  JPEG_HEADER,
  PNG_1X1,
  WEBP_HEADER,
  gifDeclaring,
  jpegDeclaring,
  pngDeclaring,
  webpDeclaring,
  webpLosslessDeclaring,
  webpLossyDeclaring,
} from "../../helpers/images.ts";

const refusal = (bytes: Uint8Array, ext: string): string | null => {
  try {
    checkImageDimensions(bytes, ext, DEFAULT_IMAGE_LIMITS);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
};

describe("declaredDimensions: from the header only", () => {
  test.each([
    ["PNG 1x1", PNG_1X1, "png", { width: 1, height: 1 }],
    ["GIF 1x1", GIF_1X1, "gif", { width: 1, height: 1 }],
    ["JPEG 1x1", JPEG_HEADER, "jpg", { width: 1, height: 1 }],
    ["WebP VP8 1x1", WEBP_HEADER, "webp", { width: 1, height: 1 }],
    ["PNG IHDR", pngDeclaring(50_000, 50_000), "png", { width: 50_000, height: 50_000 }],
    ["JPEG SOF0 after APP0", jpegDeclaring(50_000, 40_000), "jpg", { width: 50_000, height: 40_000 }],
    ["GIF logical screen", gifDeclaring(50_000, 50_000), "gif", { width: 50_000, height: 50_000 }],
    ["WebP VP8X", webpDeclaring(50_000, 50_000), "webp", { width: 50_000, height: 50_000 }],
    ["WebP VP8L", webpLosslessDeclaring(16_384, 300), "webp", { width: 16_384, height: 300 }],
    ["WebP VP8", webpLossyDeclaring(9000, 20), "webp", { width: 9000, height: 20 }],
  ])("%s", (_name, bytes, ext, expected) => {
    expect(declaredDimensions(bytes, ext)).toEqual(expected);
  });

  test.each([
    ["a PNG cut inside IHDR", pngDeclaring(10, 10).subarray(0, 20), "png"],
    ["a PNG whose first chunk is not IHDR", Uint8Array.from([...PNG_1X1.subarray(0, 12), 0x49, 0x44, 0x41, 0x54, ...PNG_1X1.subarray(16, 33)]), "png"],
    ["a JPEG cut inside its SOF", jpegDeclaring(10, 10).subarray(0, 25), "jpg"],
    ["a JPEG with no SOF at all", Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), "jpg"],
    ["a WebP cut after its chunk name", new TextEncoder().encode("RIFF\x24\x00\x00\x00WEBPVP8 "), "webp"],
    ["a PNG declaring 0x0", pngDeclaring(0, 0), "png"],
    ["a GIF header but sniffed as PNG", gifDeclaring(10, 10), "png"],
  ])("null for %s", (_name, bytes, ext) => {
    expect(declaredDimensions(bytes, ext)).toBeNull();
  });
});

describe("checkImageDimensions: 8192 a side and 40 megapixels by default", () => {
  test.each([
    ["8192x4882 (just under 40 MP)", pngDeclaring(8192, 4882), "png"],
    ["1x8192", gifDeclaring(1, 8192), "gif"],
    ["6324x6324 (40 MP)", webpDeclaring(6324, 6324), "webp"],
  ])("accepts %s", (_name, bytes, ext) => {
    expect(refusal(bytes, ext)).toBeNull();
  });

  test.each([
    ["PNG 50000x50000", pngDeclaring(50_000, 50_000), "png", "50000x50000"],
    ["JPEG 50000x50000", jpegDeclaring(50_000, 50_000), "jpg", "50000x50000"],
    ["GIF 50000x50000", gifDeclaring(50_000, 50_000), "gif", "50000x50000"],
    ["WebP 50000x50000", webpDeclaring(50_000, 50_000), "webp", "50000x50000"],
    ["one side over: 8193x1", pngDeclaring(8193, 1), "png", "8193x1"],
    ["too many pixels: 8000x8000", jpegDeclaring(8000, 8000), "jpg", "8000x8000"],
  ])("refuses %s, naming the size and the limit", (_name, bytes, ext, size) => {
    expect(refusal(bytes, ext)).toBe(
      `The image is too large: ${size} pixels; the limit is 8192 pixels per side and 40 megapixels`,
    );
  });

  test("a corrupt header is a 400 naming the type", () => {
    expect(refusal(jpegDeclaring(10, 10).subarray(0, 25), "jpg")).toBe("The image is not a valid JPEG file: its header is truncated or corrupt");
  });

  test("the limits are the caller's", () => {
    expect(() => checkImageDimensions(pngDeclaring(100, 100), "png", { maxSide: 64, maxPixels: 1_000_000 })).toThrow(/the limit is 64 pixels per side/);
    expect(() => checkImageDimensions(pngDeclaring(60, 60), "png", { maxSide: 64, maxPixels: 1_000_000 })).not.toThrow();
  });
});
