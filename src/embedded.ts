/**
 * The files the single binary carries (docs/operations.md, "Single binary"). Run from sources
 * (`npm start`), this module is what it says here: `EMBEDDED` is null, the web app is built from
 * web/ on the first page request and the reference UI is read from src/reference/ui/ and
 * node_modules/swagger-ui-dist. `npm run build:binary` (scripts/build-binary.ts) compiles
 * Hearth with this module's text replaced by one that builds nothing at run time: the web app
 * built at compile time, the SDK tarball packed at compile time, and every file below imported `with { type: "file" }`, so that each
 * path is one inside the executable (read with Bun.file or readFileSync like any other).
 */
export interface EmbeddedFiles {
  web: {
    /** The entry page, as web/build.ts built it. */
    html: string;
    /** Each built asset: its name under ASSETS_PREFIX, its path in the executable, its content type. */
    assets: { name: string; path: string; type: string }[];
  };
  /** The reference UI's files (src/http/routes/reference.ts): its file name -> its path in the executable. */
  reference: Record<string, string>;
  /** The SDK tarball GET /sdk/... serves (src/ops/sdk-tarball.ts), packed at compile time: its version and its path in the executable. */
  sdk: { version: string; path: string };
}

export const EMBEDDED: EmbeddedFiles | null = null;
