/**
 * The browser suites (test/web/browser/*.e2e.ts), split by whether they use WebRTC: a suite
 * whose `startWebSuite` is given `media: true` runs under `npm run test:media` (in a network
 * namespace with coturn and Janus on its veth addresses, scripts/test-media.ts), every other
 * under `npm run test:web`, so none runs twice.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const BROWSER = "test/web/browser";
const MEDIA_SUITE = /startWebSuite\(\{[^}]*\bmedia: true\b/;

export function browserSuites(root = join(import.meta.dir, "..")): { media: string[]; other: string[] } {
  const media: string[] = [];
  const other: string[] = [];
  for (const name of readdirSync(join(root, BROWSER)).filter((name) => name.endsWith(".e2e.ts")).sort()) {
    const path = `./${BROWSER}/${name}`;
    (MEDIA_SUITE.test(readFileSync(join(root, BROWSER, name), "utf8")) ? media : other).push(path);
  }
  return { media, other };
}
