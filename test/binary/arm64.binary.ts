/**
 * The single binary cross-compiled for linux-arm64 (`npm run build:binary -- --target=linux-arm64`),
 * built by scripts/test-binary.ts with Bun's linux-aarch64 runtime from the npm registry.
 */
import { expect, test } from "bun:test";
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";

const ARM64 = process.env.HEARTH_BINARY_ARM64 ?? "";
const HOST = process.env.HEARTH_BINARY ?? "";
if (!existsSync(ARM64) || !existsSync(HOST)) throw new Error("the binary suites run under npm run test:binary (scripts/test-binary.ts)");

/** The ELF header's first 20 bytes: magic, class, byte order, ..., e_machine. */
function elfHeader(path: string): Buffer {
  const header = Buffer.alloc(20);
  const fd = openSync(path, "r");
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  return header;
}

test("the linux-arm64 build is a 64-bit little-endian AArch64 executable of about the host build's size", () => {
  const header = elfHeader(ARM64);
  expect(header.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
  expect(header[4]).toBe(2); // ELFCLASS64
  expect(header[5]).toBe(1); // little-endian
  expect(header.readUInt16LE(16)).toBe(2); // ET_EXEC
  expect(header.readUInt16LE(18)).toBe(183); // EM_AARCH64 (the host build: 62, EM_X86_64)
  expect(elfHeader(HOST).readUInt16LE(18)).toBe(process.arch === "arm64" ? 183 : 62);
  expect(statSync(ARM64).mode & 0o111).not.toBe(0);
  // The same program and files on a runtime of about the same size: within 25 % of the host build.
  const ratio = statSync(ARM64).size / statSync(HOST).size;
  expect(ratio).toBeGreaterThan(0.75);
  expect(ratio).toBeLessThan(1.25);
});
