import { request } from "node:http";
import type { ApiResponse, RequestOptions } from "./server.ts";

/**
 * A JSON request to the server at `baseUrl` sent from the local address `from`, on a fresh
 * connection. On Linux all of 127.0.0.0/8 is loopback, so a server on 127.0.0.1 sees the
 * request come from `from` (e.g. "127.0.0.2"): how tests present different client addresses
 * without the server trusting any header.
 */
export function apiFrom<T = any>(baseUrl: string, from: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) headers["content-type"] ??= "application/json";
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress: from, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const type = String(res.headers["content-type"] ?? "");
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") responseHeaders.set(name, value);
          resolve({ status: res.statusCode ?? 0, body: (type.includes("application/json") && text ? JSON.parse(text) : text) as T, headers: responseHeaders });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
