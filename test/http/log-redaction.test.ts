import { expect, test } from "bun:test";
import { loggablePath } from "../../src/http/errors.ts";

test.each([
  ["/api/webhooks/01a2/abcdefSECRET", "/api/webhooks/01a2/[redacted]"],
  ["/api/webhooks/01a2/token", "/api/webhooks/01a2/token"],
  ["/api/webhooks/channel/01a2", "/api/webhooks/channel/[redacted]"],
  ["/api/v1/users/me/info", "/api/v1/users/me/info"],
  // Unrouted paths: everything after the webhook id, however the client spelled it.
  ["/api/webhooks/01a2/SECRET/extra", "/api/webhooks/01a2/[redacted]/[redacted]"],
  ["/api/webhooks/01a2/SECRET/", "/api/webhooks/01a2/[redacted]/"],
  ["/api/v1/webhooks/01a2/SECRET", "/api/v1/webhooks/01a2/[redacted]"],
  ["/api/v1/webhooks/01a2/SECRET/github", "/api/v1/webhooks/01a2/[redacted]/[redacted]"],
  ["/API/WEBHOOKS/01a2/SECRET", "/API/WEBHOOKS/01a2/[redacted]"],
  ["/api/%77ebhooks/01a2/SECRET", "/api/%77ebhooks/01a2/[redacted]"],
  ["/api/webhooks//01a2//SECRET", "/api/webhooks//01a2//[redacted]"],
  ["/api/webhooks/01a2/token/SECRET", "/api/webhooks/01a2/[redacted]/[redacted]"],
  ["/api/webhooks/01a2/SECRET/token", "/api/webhooks/01a2/[redacted]/[redacted]"],
  ["/api/webhooks/01a2", "/api/webhooks/01a2"],
  ["/api/webhooks", "/api/webhooks"],
  ["/api/v1/channels/01a2/webhooks", "/api/v1/channels/01a2/webhooks"],
])("loggablePath(%s)", (path, expected) => {
  expect(loggablePath(new Request(`http://localhost${path}`))).toBe(expected);
});
