import { request as httpRequest } from "node:http";

/**
 * A JSON POST to `base` + `path` whose body is sent in two halves: the first at once, the
 * second when `finish()` is called. Until then the request is in flight on the server (it
 * has arrived, its body has not), as a slow client's is.
 */
export function slowPost(base: string, path: string, token: string, body: unknown) {
  const text = JSON.stringify(body);
  const { hostname, port } = new URL(base);
  const answer = Promise.withResolvers<{ status: number; body: any }>();
  const req = httpRequest(
    {
      host: hostname,
      port,
      path,
      method: "POST",
      agent: false,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(text) },
    },
    (res) => {
      let data = "";
      res.on("data", (chunk) => (data += chunk));
      res.on("end", () => answer.resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
    },
  );
  req.on("error", answer.reject);
  const half = Math.floor(text.length / 2);
  req.write(text.slice(0, half));
  return { answer: answer.promise, finish: () => req.end(text.slice(half)) };
}
