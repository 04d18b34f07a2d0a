import { Elysia } from "elysia";
import { readFileSync } from "node:fs";
import { ASSETS_PREFIX, buildWebApp, sourceFingerprint, type WebBuild } from "../../web/build.ts";
import { EMBEDDED, type EmbeddedFiles } from "../embedded.ts";
import type { Logger } from "../log.ts";

/**
 * Paths that are never a page of the app, so a JSON 404 when unknown: the API, uploads, the
 * gateway and the SDK tarballs, and any path whose last segment names a file (has a dot), as history fallbacks do.
 */
const NOT_APP_PAGES = /^\/(api|uploads|socket\.io|sdk)(\/|$)|\.[^/]*$/;

/**
 * The page's policy: everything from this origin; images also from the http(s) URLs that bots
 * and webhooks put in embeds; connections also to the configured Janus instances (JANUS_URL)
 * and nowhere else; no framing, no plugins.
 */
const pageHeaders = (connect: readonly string[]) => ({
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "content-security-policy":
    "default-src 'self'; img-src 'self' data: blob: http: https:; media-src 'self' blob:; " +
    `connect-src ${["'self'", ...connect].join(" ")}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'`,
});

/** A path with broken percent-encoding (`/%zz`) is no page of the app. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const notFound = () =>
  new Response(JSON.stringify({ error: "Not found" }), { status: 404, headers: { "content-type": "application/json; charset=utf-8" } });

/** The single binary's web app, built when it was compiled: read from the executable once. */
function embeddedBuild(web: EmbeddedFiles["web"]): WebBuild {
  const assets: WebBuild["assets"] = new Map();
  for (const { name, path, type } of web.assets) {
    const body = new Uint8Array(readFileSync(path));
    assets.set(name, { body, gzipped: Bun.gzipSync(body), type });
  }
  return { html: web.html, assets, fingerprint: "embedded", ms: 0 };
}

/**
 * The web app (web/), built by Bun's bundler on the first page request and kept in memory.
 * A page request rebuilds when the sources changed since (a stat of web/'s files), so
 * editing web/ and reloading is the whole development loop. The single binary has no sources:
 * it serves the build it was compiled with (src/embedded.ts). Every other GET (not an API,
 * upload, gateway or file path) is a page of the app: its router decides what to show.
 */
export function webRoutes(log: Logger, policy: { connect: readonly string[] } = { connect: [] }) {
  const headers = pageHeaders(policy.connect);
  let current: WebBuild | null = null;
  let building: Promise<WebBuild> | null = null;

  async function latest(): Promise<WebBuild> {
    if (EMBEDDED) return (current ??= embeddedBuild(EMBEDDED.web));
    if (building) return building;
    if (current && current.fingerprint === sourceFingerprint()) return current;
    building = buildWebApp()
      .then((build) => {
        current = build;
        log.info("web app built", { ms: build.ms, assets: build.assets.size });
        return build;
      })
      .finally(() => {
        building = null;
      });
    return building;
  }

  const page = async ({ request }: { request: Request }) => {
    const path = new URL(request.url).pathname;
    if (NOT_APP_PAGES.test(path) || !decodes(path)) return notFound();
    return new Response((await latest()).html, { headers });
  };

  return new Elysia()
    .get(`${ASSETS_PREFIX}:name`, async ({ params, request }) => {
      const asset = (current ?? (await latest())).assets.get(params.name);
      if (!asset) return notFound();
      const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
      const headers: Record<string, string> = {
        "content-type": asset.type,
        // Names carry a content hash: a new build has new names.
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
        vary: "accept-encoding",
      };
      if (gzip) headers["content-encoding"] = "gzip";
      return new Response(gzip ? asset.gzipped : asset.body, { headers });
    })
    .get("/", page)
    .get("/*", page);
}
