/** bench/web-parser.ts's loop as a page runs it: bundled by Bun.build and evaluated in Chromium. */
import { measureParser } from "./web-parser-run.ts";

Object.assign(globalThis, { measureParser });
