/**
 * The single binary cross-compiled for linux-arm64 (`npm run build:binary -- --target=linux-arm64`),
 * built by scripts/test-binary.ts with Bun's linux-aarch64 runtime from the npm registry, and run
 * on an emulated AArch64 CPU: Debian's qemu-user-static with the AArch64 C library of
 * libc6-arm64-cross (.ci/run installs both).
 */
import { afterAll, expect, test } from "bun:test";
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../scripts/pg-cluster.ts";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { BUILT as HOST, BUILT_ARM64 as ARM64, binaryFolder, logLines } from "./binary.ts";

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

const QEMU = "/usr/bin/qemu-aarch64-static";
const AARCH64_LIBC = "/usr/aarch64-linux-gnu";

let folder: string | null = null;
let hearth: HearthProcess | null = null;
afterAll(async () => {
  if (hearth && hearth.proc.exitCode === null) {
    hearth.proc.kill("SIGKILL");
    await hearth.proc.exited;
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test(
  "the linux-arm64 build runs (emulated): health, the web app, the reference page, and a SIGTERM drain with exit 0",
  async () => {
    if (!existsSync(QEMU) || !existsSync(join(AARCH64_LIBC, "lib/ld-linux-aarch64.so.1"))) {
      throw new Error("running the arm64 build needs Debian's qemu-user-static and libc6-arm64-cross (.ci/run installs them)");
    }
    const run = binaryFolder(ARM64);
    folder = run.folder;
    const port = freePort();
    // Emulated, Bun starts in tens of seconds on a busy machine, and answers in milliseconds after.
    hearth = await startProcess(
      { DATA_DIR: run.dataDir, PORT: String(port), JWT_SECRET: "arm64-test-secret-arm64-test-secret-0123456" },
      { command: [QEMU, "-L", AARCH64_LIBC, run.binary], cwd: run.folder, startTimeoutMs: 90_000 },
    );
    expect(hearth.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${hearth.url}/healthz`)).status).toBe(200);
    const html = await (await fetch(`${hearth.url}/`)).text();
    const script = /\/assets\/[\w-]+\.js/.exec(html)?.[0];
    expect(script).toBeDefined();
    expect((await fetch(hearth.url + script)).status).toBe(200);
    expect((await fetch(`${hearth.url}/docs`)).status).toBe(200);
    expect((await fetch(`${hearth.url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    hearth.proc.kill("SIGTERM");
    expect(await hearth.proc.exited).toBe(0);
    const messages = logLines(hearth.output()).map((line) => line.msg);
    expect(messages).toContain("draining");
    expect(messages.at(-1)).toBe("stopped");
  },
  150_000,
);
