// Run by NODE (not Bun), so uploads are sent by Node's own fetch (undici), as a Node client
// would send them: `node node-post.mjs '<json>'` with {url, token, kind, size, field?, type?}.
// kind: "multipart" (one file of `size` bytes in `field`), "json" (a JSON body about `size`
// bytes long), "json-chunked" (the same, streamed without Content-Length).
// Prints one JSON line: {status, connection, body, after} or {error, cause}; `after` is the
// status of a GET /api/v1 sent next, proving the client can go on.
const { url, token, kind, size, field = "file", type = "application/octet-stream" } = JSON.parse(process.argv[2]);

function requestBody() {
  if (kind === "multipart") {
    const form = new FormData();
    form.append(field, new Blob([new Uint8Array(size)], { type }), "upload.bin");
    return { body: form };
  }
  const text = JSON.stringify({ name: "x".repeat(size) });
  const headers = { "content-type": "application/json" };
  if (kind === "json") return { body: text, headers };
  const bytes = new TextEncoder().encode(text);
  const stream = new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024));
      controller.close();
    },
  });
  return { body: stream, headers, duplex: "half" };
}

try {
  const { headers, ...rest } = requestBody();
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}`, ...headers }, ...rest });
  const body = await response.text();
  const after = (await fetch(new URL("/api/v1", url))).status;
  console.log(JSON.stringify({ status: response.status, connection: response.headers.get("connection"), body, after }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error), cause: String(error?.cause) }));
}
