/**
 * The public URL (issue 39, point 10; docs/operations.md#public-url): discovery's gateway URL
 * and links are built on PUBLIC_URL, or on the address listened on when it is unset, and never
 * on the request's Host header.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rawHttp } from "../helpers/raw-http.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

async function raw(port: number, request: string): Promise<{ status: number; body: any }> {
  const answer = await rawHttp(port, request);
  return { status: answer.status, body: JSON.parse(answer.body) };
}

/** Every absolute URL in a discovery answer. */
const urlsOf = (discovery: { gateway: { url: string }; links: Record<string, string> }) => [discovery.gateway.url, ...Object.values(discovery.links)];

const forged = (port: number, path = "/api/v1") =>
  raw(port, `GET ${path} HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\nConnection: close\r\n\r\n`);

describe("with PUBLIC_URL set", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ publicUrl: "https://chat.example.com" });
  });
  afterAll(() => server.stop());

  test("discovery's gateway URL and links are on PUBLIC_URL", async () => {
    const res = await server.api("GET", "/api/v1");
    expect(res.status).toBe(200);
    expect(res.body.gateway.url).toBe("https://chat.example.com");
    expect(res.body.links.self).toBe("https://chat.example.com/api/v1");
    for (const url of urlsOf(res.body)) expect(url).toStartWith("https://chat.example.com");
  });

  test("the attack: a forged Host header is never reflected", async () => {
    for (const path of ["/api/v1", "/api/v1/"]) {
      const res = await forged(server.app.port, path);
      expect(res.status).toBe(200);
      for (const url of urlsOf(res.body)) expect({ path, url }).toEqual({ path, url: expect.stringMatching(/^https:\/\/chat\.example\.com(\/|$)/) });
      expect(JSON.stringify(res.body)).not.toContain("evil.example");
    }
  });
});

describe("without PUBLIC_URL", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  test("discovery is on the address listened on, whatever Host says", async () => {
    const res = await forged(server.app.port);
    expect(res.status).toBe(200);
    expect(res.body.gateway.url).toBe(`http://127.0.0.1:${server.app.port}`);
    for (const url of urlsOf(res.body)) expect(url).toStartWith(`http://127.0.0.1:${server.app.port}`);
    expect(JSON.stringify(res.body)).not.toContain("evil.example");
  });
});
