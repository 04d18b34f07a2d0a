import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import { notFound } from "../../domain/shared/errors.ts";
import { SERVED_TYPES } from "../../domain/shared/uploads.ts";
import { doc, FILE } from "../operation-doc.ts";

/**
 * Uploaded files, at the stable paths stored in records (`/uploads/<kind>/<name>`).
 * Only image types are served inline; everything else downloads. Never sniffed.
 */
export const uploadRoutes = (domain: Domain) =>
  new Elysia({ tags: ["Files"] }).get("/uploads/:kind/:name", async ({ params }) => {
    const file = await domain.uploads.open(params.kind, params.name);
    if (!file) throw notFound("File");
    const ext = params.name.slice(params.name.lastIndexOf(".") + 1);
    const type = SERVED_TYPES[ext];
    const headers: Record<string, string> = {
      "content-type": type ?? "application/octet-stream",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cache-control": "public, max-age=31536000, immutable",
    };
    if (!type) headers["content-disposition"] = "attachment";
    return new Response(file, { headers });
  }, { detail: doc("getUpload", { 200: FILE }) });
