import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** Sends `request` as raw bytes (fetch always adds a Host header) and reads the whole answer. */
async function raw(request: string): Promise<{ status: number; body: string }> {
  const chunks: Uint8Array[] = [];
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.app.port,
    socket: {
      data: (_socket, data) => void chunks.push(new Uint8Array(data)),
      close: () => done.resolve(),
      error: (_socket, error) => done.reject(error),
    },
  });
  socket.write(request);
  await done.promise;
  const text = Buffer.concat(chunks).toString("utf8");
  const [head = "", body = ""] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body };
}

test("an HTTP/1.0 request without a Host header is 400 {error}, never a 500, on any route", async () => {
  // /api/v1/users/me/info and a message page: the native GET routes (src/http/native-routes.ts).
  for (const path of ["/api/v1", "/api/v1/no-such-route", "/api/v1/servers", "/api/v1/users/me/info", "/api/v1/messages/x?limit=2", "/", "/socket.io/?EIO=4&transport=polling", "/api/webhooks/x/y"]) {
    const answer = await raw(`GET ${path} HTTP/1.0\r\n\r\n`);
    expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(answer.body)).toEqual({ error: "A Host header is required" });
  }
});

test("health checks are answered without a Host header (a load balancer's plain check sends none)", async () => {
  const health = await raw("GET /healthz HTTP/1.0\r\n\r\n");
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toEqual({ status: "ok" });
  const ready = await raw("GET /readyz HTTP/1.0\r\n\r\n");
  expect(ready.status).toBe(200);
  expect(JSON.parse(ready.body)).toMatchObject({ status: "ready" });
});

test("with a Host header the same request is served", async () => {
  const answer = await raw("GET /api/v1 HTTP/1.0\r\nHost: hearth.example\r\n\r\n");
  expect(answer.status).toBe(200);
});
