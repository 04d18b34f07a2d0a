import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DiskFiles } from "../../../src/domain/shared/file-storage.ts";
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
  // A real disk storage in a temp DATA_DIR, with a file beside uploads/ that no path may reach.
  const dataDir = mkdtempSync(join(tmpdir(), "hearth-uploads-"));
  writeFileSync(join(dataDir, "jwt-secret"), "secret");
  const store = new UploadStore(new DiskFiles(join(dataDir, "uploads")));

  test("a saved file opens at its URL path and is gone once removed", async () => {
    const url = await store.save("avatars", PNG_1X1, "png");
    expect(url).toMatch(/^\/uploads\/avatars\/[0-9a-f-]{36}\.png$/);
    const [, , kind, name] = url.split("/");
    expect(new Uint8Array(await (await store.open(kind!, name!))!.arrayBuffer())).toEqual(PNG_1X1);
    await store.remove(url);
    expect(await store.open(kind!, name!)).toBeNull();
  });

  test.each([
    ["avatars", "01a207fb-b730-735d-99cf-a96dc74ccf39.png"],
    ["avatars", "../../jwt-secret"],
    ["..", "jwt-secret"],
    ["..", "01a207fb-b730-735d-99cf-a96dc74ccf39.png"],
    ["secrets", "01a207fb-b730-735d-99cf-a96dc74ccf39.png"],
    ["avatars", "01a207fb-b730-735d-99cf-a96dc74ccf39.png/../x"],
    ["avatars", "jwt-secret"],
  ])("open(%s, %s) finds nothing", async (kind, name) => {
    expect(await store.open(kind, name)).toBeNull();
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
