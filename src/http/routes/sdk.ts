import { Elysia } from "elysia";
import type { Logger } from "../../log.ts";
import type { SdkTarballs } from "../../ops/sdk-tarball.ts";
import { doc, TARBALL } from "../operation-doc.ts";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });

/** Whether an If-None-Match header names this ETag (or is `*`). */
const matches = (header: string | null, etag: string) => header !== null && header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag || tag.trim() === "*");

/**
 * GET /sdk/hearth-sdk-<version>.tgz and /sdk/latest.tgz: this server's own SDK package
 * (src/ops/sdk-tarball.ts), for `npm install http://<host>/sdk/latest.tgz`. Public: the SDK is
 * no secret and a bot's folder is set up before it has a token. Both names answer the same
 * bytes (so a lockfile that recorded latest.tgz installs what it checked); the tarball can
 * change under one version when the checkout's SDK sources change, so it is revalidated
 * (`no-cache` with a strong ETag: a 304 costs no download).
 */
export const sdkRoutes = (tarballs: SdkTarballs, log: Logger) =>
  new Elysia({ tags: ["SDK"] }).get(
    "/sdk/:file",
    async ({ params, request }) => {
      const version = tarballs.version();
      if (params.file !== "latest.tgz" && params.file !== `hearth-sdk-${version}.tgz`) {
        return json(404, { error: `Unknown SDK tarball: this server serves hearth-sdk-${version}.tgz (and latest.tgz)` });
      }
      let tarball;
      try {
        tarball = await tarballs.current();
      } catch (error) {
        log.error("the SDK tarball could not be built", { error: (error as Error).message });
        return json(503, { error: "The SDK tarball could not be built on this server; its log says why" });
      }
      const headers = { etag: tarball.etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" };
      if (matches(request.headers.get("if-none-match"), tarball.etag)) return new Response(null, { status: 304, headers });
      return new Response(tarball.bytes, {
        headers: {
          ...headers,
          "content-type": "application/gzip",
          "content-length": String(tarball.bytes.byteLength),
          "content-disposition": `attachment; filename="${tarball.filename}"`,
        },
      });
    },
    {
      detail: doc("getSdkTarball", TARBALL, {
        errors: [503],
        headers: { "If-None-Match": "The ETag of a tarball you have: 304 (no body) while it is still the current one" },
        description:
          "The `@hearth/sdk` package matching this server, as the tarball `npm pack` makes: `npm install <server>/sdk/latest.tgz`. " +
          "`file` is `hearth-sdk-<version>.tgz` (the version of the SDK this server ships, sdk/package.json) or `latest.tgz` (the same bytes); any other name is 404. " +
          "Built from the server's checkout on the first request after its SDK sources change (a second or two), then kept under DATA_DIR; the single binary serves the one packed into it. " +
          "503 when it cannot be built (no npm on the server's PATH, DATA_DIR not writable).",
      }),
    },
  );
