import { Elysia } from "elysia";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EMBEDDED } from "../../embedded.ts";
import type { ReferenceDocuments } from "../../reference/documents.ts";

/**
 * The API reference (docs/reference.md): the OpenAPI and AsyncAPI documents, and the page at
 * /docs that shows both. The page's files come from this repository (src/reference/ui/) and from
 * the swagger-ui-dist package, read once and served by Hearth: nothing is fetched from elsewhere.
 */
const FILES: Record<string, { from: string; type: string }> = {
  "swagger-ui-bundle.js": { from: "swagger-ui-dist/swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { from: "swagger-ui-dist/swagger-ui.css", type: "text/css; charset=utf-8" },
  "favicon-32x32.png": { from: "swagger-ui-dist/favicon-32x32.png", type: "image/png" },
  "reference.js": { from: new URL("../../reference/ui/reference.js", import.meta.url).href, type: "text/javascript; charset=utf-8" },
  "reference.css": { from: new URL("../../reference/ui/reference.css", import.meta.url).href, type: "text/css; charset=utf-8" },
};
/** The page itself, at /docs (not under /docs/:file). */
const PAGE = "index.html";
const PAGE_FROM = new URL("../../reference/ui/index.html", import.meta.url).href;

/** Swagger UI sets inline styles; scripts and data stay on this origin. */
const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

interface Loaded {
  body: Uint8Array;
  gzipped: Uint8Array;
  type: string;
}

const resolvePath = (from: string) => fileURLToPath(from.startsWith("file:") ? from : import.meta.resolve(from));

/**
 * Where each of the page's files is on disk, by the name it is served under (the page as
 * "index.html"): what the single binary embeds (scripts/build-binary.ts).
 */
export function referenceSources(): Record<string, string> {
  const sources: Record<string, string> = { [PAGE]: resolvePath(PAGE_FROM) };
  for (const [name, spec] of Object.entries(FILES)) sources[name] = resolvePath(spec.from);
  return sources;
}

/** Read once, on first use: in the single binary from the executable's own files, else from disk. */
function load(name: string, type: string): Loaded {
  const body = readFileSync((EMBEDDED?.reference ?? referenceSources())[name]!);
  return { body, gzipped: Bun.gzipSync(body), type };
}

function answer(file: Loaded, request: Request, headers: Record<string, string>): Response {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  return new Response(gzip ? file.gzipped : file.body, {
    headers: { "content-type": file.type, vary: "accept-encoding", "x-content-type-options": "nosniff", ...(gzip ? { "content-encoding": "gzip" } : {}), ...headers },
  });
}

export function referenceRoutes(documents: ReferenceDocuments) {
  const loaded = new Map<string, Loaded>();
  const file = (name: string) => {
    let entry = loaded.get(name);
    if (!entry) {
      entry = load(name, FILES[name]!.type);
      loaded.set(name, entry);
    }
    return entry;
  };
  let page: Loaded | null = null;
  let openapi: Loaded | null = null;
  let asyncapi: Loaded | null = null;
  const json = (value: unknown): Loaded => {
    const body = new TextEncoder().encode(JSON.stringify(value));
    return { body, gzipped: Bun.gzipSync(body), type: "application/json; charset=utf-8" };
  };
  const documentHeaders = { "cache-control": "no-cache" };

  return new Elysia()
    .get("/api/v1/openapi.json", ({ request }) => answer((openapi ??= json(documents.openapi())), request, documentHeaders))
    .get("/api/v1/asyncapi.json", ({ request }) => answer((asyncapi ??= json(documents.asyncapi())), request, documentHeaders))
    .get("/docs", ({ request }) =>
      answer((page ??= load(PAGE, "text/html; charset=utf-8")), request, {
        "cache-control": "no-cache",
        "content-security-policy": PAGE_POLICY,
        "referrer-policy": "same-origin",
      }),
    )
    .get("/docs/:file", ({ params, request }) => {
      if (!Object.hasOwn(FILES, params.file)) {
        return new Response(JSON.stringify({ error: "Not found" }), { status: 404, headers: { "content-type": "application/json; charset=utf-8" } });
      }
      return answer(file(params.file), request, { "cache-control": "public, max-age=3600" });
    });
}
