import { expect, test } from "bun:test";
import { loggablePath } from "../../src/http/errors.ts";

test.each([
  ["/api/webhooks/01a2/abcdefSECRET", "/api/webhooks/01a2/[redacted]"],
  ["/api/webhooks/01a2/token", "/api/webhooks/01a2/token"],
  ["/api/webhooks/channel/01a2", "/api/webhooks/channel/[redacted]"],
  ["/api/v1/users/me/info", "/api/v1/users/me/info"],
])("loggablePath(%s)", (path, expected) => {
  expect(loggablePath(new Request(`http://localhost${path}`))).toBe(expected);
});
