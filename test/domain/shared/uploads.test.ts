import { describe, expect, test } from "bun:test";
import { formatBytes, sniffImage, UploadStore } from "../../../src/domain/shared/uploads.ts";
import { GIF_1X1, JPEG_HEADER, NOT_AN_IMAGE, PNG_1X1, WEBP_HEADER } from "../../helpers/images.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("sniffImage", () => {
  test.each([
    ["PNG", PNG_1X1, "png"],
    ["GIF89a", GIF_1X1, "gif"],
    ["GIF87a", bytes("GIF87a\x01\x00"), "gif"],
    ["JPEG", JPEG_HEADER, "jpg"],
    ["WEBP", WEBP_HEADER, "webp"],
    ["SVG", NOT_AN_IMAGE, null],
    ["empty", new Uint8Array(), null],
    ["RIFF but WAVE", bytes("RIFF\x00\x00\x00\x00WAVEfmt "), null],
    ["GIF88a", bytes("GIF88a"), null],
    ["truncated PNG", PNG_1X1.subarray(0, 4), null],
    ["HTML", bytes("<!doctype html><script>"), null],
    ["PDF", bytes("%PDF-1.7"), null],
  ])("%s", (_name, input, ext) => {
    expect<string | null>(sniffImage(input)?.ext ?? null).toBe(ext);
  });
});

describe("UploadStore paths", () => {
  const store = new UploadStore("/data");
  test.each([
    ["avatars", "01a207fb-b730-735d-99cf-a96dc74ccf39.png", "/data/uploads/avatars/01a207fb-b730-735d-99cf-a96dc74ccf39.png"],
    ["banners", "01a207fb-b730-735d-99cf-a96dc74ccf39.gif", "/data/uploads/banners/01a207fb-b730-735d-99cf-a96dc74ccf39.gif"],
    ["avatars", "../../etc/passwd", null],
    ["..", "01a207fb-b730-735d-99cf-a96dc74ccf39.png", null],
    ["secrets", "01a207fb-b730-735d-99cf-a96dc74ccf39.png", null],
    ["avatars", "01a207fb-b730-735d-99cf-a96dc74ccf39.png/../x", null],
    ["avatars", "jwt-secret", null],
  ])("fileFor(%s, %s)", (kind, name, expected) => {
    expect(store.fileFor(kind, name)).toBe(expected);
  });
});

test.each([
  [512, "512 bytes"],
  [256 * 1024, "256 KB"],
  [2 * 1024 * 1024, "2 MB"],
  [500 * 1024 * 1024, "500 MB"],
])("formatBytes(%d)", (n, text) => {
  expect(formatBytes(n)).toBe(text);
});
