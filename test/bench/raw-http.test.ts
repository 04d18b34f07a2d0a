import { expect, test } from "bun:test";
import { answerReader, preparedGet } from "../../bench/raw-http.ts";

const answer = (status: string, body: string) => `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

test("the raw clients' GET carries the path, the query, the Host and the bearer token", () => {
  const text = new TextDecoder().decode(preparedGet(new URL("http://127.0.0.1:3000/api/v1/messages/c?before=x&limit=50"), "tok"));
  expect(text).toBe("GET /api/v1/messages/c?before=x&limit=50 HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAuthorization: Bearer tok\r\n\r\n");
  expect(new TextDecoder().decode(preparedGet(new URL("http://h/"), undefined))).toBe("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
});

test("the answer reader frames pipelined answers by Content-Length, across and within chunks", () => {
  const seen: boolean[] = [];
  const read = answerReader((ok) => seen.push(ok));
  const bytes = Buffer.from(answer("200 OK", "a body with\r\n\r\nin it") + answer("401 Unauthorized", '{"error":"x"}') + answer("200 OK", "[]"));
  // One byte at a time: no answer is counted before its last byte.
  for (let i = 0; i < bytes.length - 1; i++) read(bytes.subarray(i, i + 1));
  expect(seen).toEqual([true, false]);
  read(bytes.subarray(bytes.length - 1));
  expect(seen).toEqual([true, false, true]);
  // All in one chunk.
  read(bytes);
  expect(seen).toEqual([true, false, true, true, false, true]);
});
