import { describe, expect, test } from "bun:test";
import { jpegDimensions } from "../../../src/domain/shared/jpeg-dimensions.ts";
import { jpegDeclaring } from "../../helpers/images.ts";

const SOI = [0xff, 0xd8];
const EOI = [0xff, 0xd9];
/** A segment: marker, big-endian length (counting itself), payload. */
const segment = (marker: number, payload: number[]) => [0xff, marker, ((payload.length + 2) >> 8) & 0xff, (payload.length + 2) & 0xff, ...payload];
/** A frame header payload: precision 8, height, width, one component. */
const frame = (width: number, height: number) => [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0];
const jpeg = (...parts: number[][]) => Uint8Array.from(parts.flat());

describe("jpegDimensions: the frame header, by walking the segments", () => {
  test.each([
    ["baseline (SOF0) after JFIF", jpegDeclaring(640, 480), { width: 640, height: 480 }],
    ["progressive (SOF2)", jpeg(SOI, segment(0xc2, frame(1920, 1080)), EOI), { width: 1920, height: 1080 }],
    ["lossless (SOF3)", jpeg(SOI, segment(0xc3, frame(3, 5)), EOI), { width: 3, height: 5 }],
    ["arithmetic (SOF9)", jpeg(SOI, segment(0xc9, frame(50_000, 50_000)), EOI), { width: 50_000, height: 50_000 }],
    ["after a 64 KiB EXIF segment, tables and a comment", jpeg(SOI, segment(0xe1, new Array(65_000).fill(7)), segment(0xdb, new Array(64).fill(1)), segment(0xfe, [104, 105]), segment(0xc0, frame(10, 20))), { width: 10, height: 20 }],
    ["DHT (C4), DAC (CC) and a reserved C8 are not frame headers", jpeg(SOI, segment(0xc4, frame(1, 1)), segment(0xcc, [0, 0]), segment(0xc8, [0]), segment(0xc1, frame(7, 9))), { width: 7, height: 9 }],
    ["fill bytes before a marker", jpeg(SOI, [0xff, 0xff, 0xff], segment(0xc0, frame(2, 3))), { width: 2, height: 3 }],
    ["a standalone RST marker", jpeg(SOI, [0xff, 0xd0], segment(0xc0, frame(4, 4))), { width: 4, height: 4 }],
  ])("%s", (_name, bytes, expected) => {
    expect(jpegDimensions(bytes)).toEqual(expected);
  });

  test.each([
    ["no SOI", jpeg([0xff, 0xe0], segment(0xc0, frame(1, 1)))],
    ["a stray byte where a marker should be", jpeg(SOI, [0x00], segment(0xc0, frame(1, 1)))],
    ["the scan (SOS) before any frame header", jpeg(SOI, segment(0xda, [1, 2, 3]), segment(0xc0, frame(1, 1)))],
    ["the end (EOI) before any frame header", jpeg(SOI, EOI)],
    ["a second SOI", jpeg(SOI, SOI, segment(0xc0, frame(1, 1)))],
    ["a segment length under 2", jpeg(SOI, [0xff, 0xe0, 0, 1], segment(0xc0, frame(1, 1)))],
    ["a length pointing past the end", jpeg(SOI, [0xff, 0xe0, 0x10, 0x00, 1, 2])],
    ["a frame header cut short", jpeg(SOI, [0xff, 0xc0, 0, 17, 8, 0, 1])],
    ["a frame header too short to hold the size", jpeg(SOI, segment(0xc0, [8, 0]))],
    ["nothing after SOI", jpeg(SOI)],
  ])("null for %s", (_name, bytes) => {
    expect(jpegDimensions(bytes)).toBeNull();
  });

  test("a crafted file of millions of tiny segments, or of fill bytes, gives up after a bounded walk", () => {
    const tiny = new Uint8Array(8 * 1024 * 1024);
    tiny.set(SOI);
    for (let at = 2; at + 4 <= tiny.length; at += 4) tiny.set([0xff, 0xe0, 0, 2], at);
    tiny.set(segment(0xc0, frame(1, 1)), tiny.length - 13);
    expect(jpegDimensions(tiny)).toBeNull();
    const fill = new Uint8Array(8 * 1024 * 1024).fill(0xff);
    fill.set(SOI);
    expect(jpegDimensions(fill)).toBeNull();
    // A real file's few dozen segments are far within the bound.
    const many = jpeg(SOI, ...Array.from({ length: 200 }, () => segment(0xe2, [1, 2, 3, 4])), segment(0xc0, frame(8, 8)));
    expect(jpegDimensions(many)).toEqual({ width: 8, height: 8 });
  });
});
