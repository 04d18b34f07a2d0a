/**
 * `npm run test:media`: the WebRTC suites (docs/testing.md, "Media tests"), run inside a network
 * namespace made for the run (scripts/media-namespace.ts).
 *
 * The files: every browser suite that starts a media suite (scripts/browser-suites.ts) and
 * test/media/*.test.ts; extra arguments replace them.
 */
import { readdirSync } from "node:fs";
import { browserSuites } from "./browser-suites.ts";
import { runInMediaNamespace } from "./media-namespace.ts";

const mediaTests = readdirSync("test/media").filter((name) => name.endsWith(".test.ts")).sort().map((name) => `./test/media/${name}`);
const args = process.argv.slice(2);
const files = args.length ? args : [...browserSuites().media, ...mediaTests];
process.exit(await runInMediaNamespace([process.execPath, "test", "--timeout", "60000", ...files], "test:media"));
