import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { startServer, type RequestOptions, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { GIF_1X1, JPEG_HEADER, NOT_AN_IMAGE, PNG_1X1, WEBP_HEADER, fileForm, pngOfSize } from "../helpers/images.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const MB = 1024 * 1024;
const ME_KEYS = [
  "avatar", "banner", "banner_offset", "bio", "created_at", "custom_status", "email", "id", "is_bot", "platform_admin", "premium", "status",
  "two_factor_enabled", "username",
];

type Kind = "avatar" | "banner";
const KINDS = [
  { kind: "avatar", folder: "avatars", limit: 2 * MB, limitText: "2 MB" },
  { kind: "banner", folder: "banners", limit: 5 * MB, limitText: "5 MB" },
] as const;
const folderOf = (kind: Kind) => (kind === "avatar" ? "avatars" : "banners");

const IMAGES = [
  { name: "PNG", bytes: PNG_1X1, filename: "pic.png", type: "image/png", ext: "png", mime: "image/png" },
  { name: "GIF", bytes: GIF_1X1, filename: "pic.gif", type: "image/gif", ext: "gif", mime: "image/gif" },
  { name: "JPEG", bytes: JPEG_HEADER, filename: "pic.jpg", type: "image/jpeg", ext: "jpg", mime: "image/jpeg" },
  { name: "WEBP", bytes: WEBP_HEADER, filename: "pic.webp", type: "image/webp", ext: "webp", mime: "image/webp" },
] as const;

/** `/uploads/<folder>/<uuid>.<ext>` */
const storedPath = (folder: string, ext: string) => new RegExp(`^/uploads/${folder}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.${ext}$`);

/** Where a stored URL path lives on disk: under the server's data dir. */
const diskPath = (urlPath: string) => join(server.dataDir, ...urlPath.split("/").filter(Boolean));
const filesIn = (folder: string) => {
  const dir = join(server.dataDir, "uploads", folder);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

function upload(user: TestUser | null, kind: Kind, raw: NonNullable<RequestOptions["raw"]>, headers: Record<string, string> = {}) {
  return server.api("POST", `/api/v1/users/me/${kind}`, { token: user?.token ?? null, raw, headers });
}
const uploadFile = (user: TestUser, kind: Kind, bytes: Uint8Array, filename = "pic.png", type = "image/png") =>
  upload(user, kind, fileForm(kind, bytes, filename, type));
const removeImage = (user: TestUser, kind: Kind) => server.api("DELETE", `/api/v1/users/me/${kind}`, { token: user.token });

/** GET a stored file, keeping the exact bytes. */
async function download(path: string) {
  const response = await fetch(server.url + path);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const isJson = (response.headers.get("content-type") ?? "").includes("application/json");
  const body = isJson ? JSON.parse(new TextDecoder().decode(bytes)) : null;
  return { status: response.status, headers: response.headers, bytes, body };
}

/** A hand-built multipart body, so its content-length is exact and known. */
function multipartBody(field: string, bytes: Uint8Array, filename: string, type = "image/png") {
  const boundary = `----hearth-test-${crypto.randomUUID()}`;
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.length + bytes.length + tail.length);
  body.set(head, 0);
  body.set(bytes, head.length);
  body.set(tail, head.length + bytes.length);
  return { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(body.length) } };
}

/** The same body streamed in chunks, so the request carries no content-length. */
function streamed(body: Uint8Array, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

/** A raw HTTP/1.1 GET, so the path reaches the server exactly as written (fetch would normalize `..`). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(port), "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (data += chunk));
    socket.on("end", () => {
      const status = Number(data.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
    socket.on("error", reject);
  });
}


describe.each(KINDS)("POST /api/v1/users/me/$kind", ({ kind, folder, limit, limitText }) => {
  test.each(IMAGES)(`a $name is accepted by its magic bytes and served back exactly`, async ({ bytes, filename, type, ext, mime }) => {
    const user = await server.register();
    const res = await uploadFile(user, kind, bytes, filename, type);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ME_KEYS);
    expect(res.body).toMatchObject({ id: user.id, username: user.username, email: user.email });
    const path: string = res.body[kind];
    expect(path).toMatch(storedPath(folder, ext));
    // The other image is untouched.
    expect(res.body[kind === "avatar" ? "banner" : "avatar"]).toBeNull();

    const file = await download(path);
    expect(file.status).toBe(200);
    expect(file.bytes).toEqual(bytes);
    expect(file.headers.get("content-type")).toBe(mime);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");

    // On disk under the data dir, byte for byte.
    expect(new Uint8Array(readFileSync(diskPath(path)))).toEqual(bytes);

    // Visible on the account and on the public user.
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body[kind]).toBe(path);
    const viewer = await server.register();
    expect((await server.api("GET", `/api/v1/users/${user.id}`, { token: viewer.token })).body[kind]).toBe(path);
  });

  test("the type comes from the bytes, not the name: a GIF named .png is stored and served as a GIF", async () => {
    const user = await server.register();
    const res = await uploadFile(user, kind, GIF_1X1, "sneaky.png", "image/png");
    expect(res.status).toBe(200);
    expect(res.body[kind]).toMatch(storedPath(folder, "gif"));
    const file = await download(res.body[kind]);
    expect(file.headers.get("content-type")).toBe("image/gif");
    expect(file.bytes).toEqual(GIF_1X1);
  });

  test.each([
    ["an SVG named .png", NOT_AN_IMAGE, "evil.png", "image/png"],
    ["an SVG named .svg", NOT_AN_IMAGE, "evil.svg", "image/svg+xml"],
    ["a text file named .png", new TextEncoder().encode("just some text, not a picture"), "notes.png", "image/png"],
    ["an empty file", new Uint8Array(0), "empty.png", "image/png"],
    ["a truncated PNG signature", PNG_1X1.subarray(0, 4), "short.png", "image/png"],
  ])("%s is 400 and nothing is stored", async (_name, bytes, filename, type) => {
    const user = await server.register();
    const before = filesIn(folder);
    expectError(await uploadFile(user, kind, bytes, filename, type), 400, `${kind} must be a PNG, JPEG, WEBP or GIF image`);
    expect(filesIn(folder)).toEqual(before);
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body[kind]).toBeNull();
  });

  test(`exactly ${limitText} is accepted`, async () => {
    const user = await server.register();
    const bytes = pngOfSize(limit);
    const res = await uploadFile(user, kind, bytes);
    expect(res.status).toBe(200);
    const file = await download(res.body[kind]);
    expect(file.bytes.length).toBe(limit);
  });

  test(`a file one byte over ${limitText} is 413 {error} and nothing is stored`, async () => {
    const user = await server.register();
    const before = filesIn(folder);
    expectError(await uploadFile(user, kind, pngOfSize(limit + 1)), 413, new RegExp(limitText));
    expect(filesIn(folder)).toEqual(before);
  });

  test(`a hand-built body just over ${limitText}, with its exact content-length, is 413`, async () => {
    const user = await server.register();
    const { body, headers } = multipartBody(kind, pngOfSize(limit + 1), "big.png");
    expectError(await upload(user, kind, body, headers), 413, new RegExp(limitText));
  });

  test(`a much larger file with an honest content-length is refused with 413`, async () => {
    const user = await server.register();
    const before = filesIn(folder);
    const { body, headers } = multipartBody(kind, pngOfSize(limit + MB), "huge.png");
    expectError(await upload(user, kind, body, headers), 413, new RegExp(limitText));
    expect(filesIn(folder)).toEqual(before);
  });

  test(`an over-limit file streamed without a content-length is 413`, async () => {
    const user = await server.register();
    const { body, headers } = multipartBody(kind, pngOfSize(limit + 1), "chunked.png");
    const res = await upload(user, kind, streamed(body), { "content-type": headers["content-type"] });
    expectError(res, 413, new RegExp(limitText));
  });

  test("a missing field is 400", async () => {
    const user = await server.register();
    const other = kind === "avatar" ? "banner" : "avatar";
    expectError(await upload(user, kind, fileForm(other, PNG_1X1, "pic.png")), 400, `${kind}: a file is required`);
    expectError(await upload(user, kind, new FormData()), 400);
  });

  test("a text field instead of a file is 400", async () => {
    const user = await server.register();
    const form = new FormData();
    form.append(kind, "not a file");
    expectError(await upload(user, kind, form), 400, `${kind}: a file is required`);
  });

  test("a JSON body is 400", async () => {
    const user = await server.register();
    const res = await server.api("POST", `/api/v1/users/me/${kind}`, { token: user.token, body: { [kind]: "https://example.test/pic.png" } });
    expectError(res, 400, "Expected a multipart/form-data body");
  });

  test("a malformed multipart body is 400", async () => {
    const user = await server.register();
    const res = await upload(user, kind, "this is not multipart at all", { "content-type": "multipart/form-data; boundary=xyz" });
    expectError(res, 400);
  });

  test("without a token it is 401, even with a valid image", async () => {
    const before = filesIn(folder);
    expectError(await upload(null, kind, fileForm(kind, PNG_1X1, "pic.png")), 401, "Unauthorized");
    expect(filesIn(folder)).toEqual(before);
  });

  test("replacing it removes the old file", async () => {
    const user = await server.register();
    const first = (await uploadFile(user, kind, PNG_1X1)).body[kind];
    const second = (await uploadFile(user, kind, GIF_1X1, "pic.gif", "image/gif")).body[kind];
    expect(second).not.toBe(first);
    expect(existsSync(diskPath(first))).toBe(false);
    expectError(await download(first), 404, "File not found");
    const current = await download(second);
    expect(current.status).toBe(200);
    expect(current.bytes).toEqual(GIF_1X1);
  });

  test(`DELETE /api/v1/users/me/${kind} clears it and removes the file`, async () => {
    const user = await server.register();
    const path = (await uploadFile(user, kind, PNG_1X1)).body[kind];
    const res = await removeImage(user, kind);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ME_KEYS);
    expect(res.body[kind]).toBeNull();
    expect(res.body.id).toBe(user.id);
    expect(existsSync(diskPath(path))).toBe(false);
    expectError(await download(path), 404, "File not found");
    expect((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body[kind]).toBeNull();
  });

  test(`DELETE /api/v1/users/me/${kind} with nothing set answers the me-user`, async () => {
    const user = await server.register();
    const res = await removeImage(user, kind);
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await server.api("GET", "/api/v1/users/me/info", { token: user.token })).body);
  });

  test(`DELETE /api/v1/users/me/${kind} leaves the other image alone`, async () => {
    const user = await server.register();
    const other: Kind = kind === "avatar" ? "banner" : "avatar";
    const kept = (await uploadFile(user, other, PNG_1X1)).body[other];
    await uploadFile(user, kind, PNG_1X1);
    const res = await removeImage(user, kind);
    expect(res.body[other]).toBe(kept);
    expect((await download(kept)).status).toBe(200);
  });
});

describe("GET /uploads/...", () => {
  test("an uploaded file is served with safe headers", async () => {
    const user = await server.register();
    const path = (await uploadFile(user, "avatar", PNG_1X1)).body.avatar;
    const file = await download(path);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-disposition")).toBeNull();
  });

  test.each([
    ["a name that is not a stored file", "/uploads/avatars/not-a-file"],
    ["a well-formed name that does not exist", "/uploads/avatars/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.png"],
    ["an unknown folder", "/uploads/secrets/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.png"],
    ["an encoded traversal", "/uploads/avatars/..%2F..%2Fsecret.txt"],
    ["a doubly encoded traversal", "/uploads/avatars/%252e%252e%252fsecret.txt"],
  ])("%s is 404 {error}", async (_name, path) => {
    writeFileSync(join(server.dataDir, "secret.txt"), "top secret");
    const res = await download(path);
    expectError(res, 404);
    expect(new TextDecoder().decode(res.bytes)).not.toContain("top secret");
  });

  test("GET /uploads/avatars/not-a-file answers exactly {error: \"File not found\"}", async () => {
    expectError(await download("/uploads/avatars/not-a-file"), 404, "File not found");
  });

  test.each(["/uploads/../x", "/uploads/../secret.txt", "/uploads/avatars/../../secret.txt", "/uploads/%2e%2e/secret.txt"])(
    "a raw path %s is 404 and never reads outside the uploads folder",
    async (path) => {
      writeFileSync(join(server.dataDir, "secret.txt"), "top secret");
      const res = await rawGet(path);
      expect(res.status).toBe(404);
      expect(res.body).toContain('"error"');
      expect(res.body).not.toContain("top secret");
    },
  );

  test("uploads land under the server's data dir", async () => {
    const user = await server.register();
    const avatar = (await uploadFile(user, "avatar", JPEG_HEADER, "a.jpg", "image/jpeg")).body.avatar;
    const banner = (await uploadFile(user, "banner", WEBP_HEADER, "b.webp", "image/webp")).body.banner;
    const avatarName = avatar.split("/").pop();
    const bannerName = banner.split("/").pop();
    expect(filesIn(folderOf("avatar"))).toContain(avatarName);
    expect(filesIn(folderOf("banner"))).toContain(bannerName);
    expect(new Uint8Array(readFileSync(join(server.dataDir, "uploads", "avatars", avatarName)))).toEqual(JPEG_HEADER);
    expect(new Uint8Array(readFileSync(join(server.dataDir, "uploads", "banners", bannerName)))).toEqual(WEBP_HEADER);
  });
});
