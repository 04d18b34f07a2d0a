/**
 * `npm run test:web`: the browser suites that use no WebRTC (scripts/browser-suites.ts; the
 * WebRTC ones run under `npm run test:media`). Extra arguments replace the list (e.g. one file).
 */
import { browserSuites } from "./browser-suites.ts";
import { runTests } from "./run-tests.ts";

process.exit(await runTests(browserSuites().other, {}, 60_000));
