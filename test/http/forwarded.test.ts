/**
 * Reading forwarding headers (src/http/forwarded.ts): only hops Hearth trusts (TRUST_PROXY) are
 * believed, so a client can prepend what it likes and still be named by the proxy it reached.
 */
import { describe, expect, test } from "bun:test";
import { compileTrust, forwardedClient } from "../../src/http/forwarded.ts";

const headers = (entries: Record<string, string>) => new Headers(entries);

describe("X-Forwarded-For, -Proto and -Host", () => {
  const oneProxy = compileTrust(1);
  const byRange = compileTrust(["10.0.0.0/8"]);

  test("one trusted hop: the address the proxy appended is the client, with its scheme and host", () => {
    const seen = forwardedClient(headers({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https", "x-forwarded-host": "chat.example.org" }), "10.0.0.2", oneProxy);
    expect(seen).toEqual({ address: "203.0.113.9", proto: "https", host: "chat.example.org" });
  });

  test("the attack: addresses a client prepends are never believed", () => {
    const spoofed = headers({ "x-forwarded-for": "1.2.3.4, 203.0.113.9", "x-forwarded-proto": "http, https" });
    expect(forwardedClient(spoofed, "10.0.0.2", oneProxy)).toEqual({ address: "203.0.113.9", proto: "https" });
    expect(forwardedClient(spoofed, "10.0.0.2", byRange)).toEqual({ address: "203.0.113.9", proto: "https" });
  });

  test("a chain of trusted proxies is walked to the first untrusted address", () => {
    const chain = headers({ "x-forwarded-for": "1.2.3.4, 198.51.100.7, 10.1.1.1" });
    expect(forwardedClient(chain, "10.0.0.2", byRange).address).toBe("198.51.100.7");
    expect(forwardedClient(chain, "10.0.0.2", compileTrust(2)).address).toBe("198.51.100.7");
  });

  test("a peer that is not a trusted proxy is the client, whatever it sends", () => {
    const seen = forwardedClient(headers({ "x-forwarded-for": "10.0.0.5", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" }), "198.51.100.1", byRange);
    expect(seen).toEqual({ address: "198.51.100.1" });
  });

  test("no header: the peer", () => {
    expect(forwardedClient(headers({}), "10.0.0.2", oneProxy)).toEqual({ address: "10.0.0.2" });
  });

  test("a scheme other than http or https, and a host that is not one, are ignored", () => {
    const seen = forwardedClient(headers({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "gopher", "x-forwarded-host": "a b/c" }), "10.0.0.2", oneProxy);
    expect(seen).toEqual({ address: "203.0.113.9" });
  });
});

describe("Forwarded (RFC 7239)", () => {
  const oneProxy = compileTrust(1);

  test("for, proto and host of the element the trusted proxy added", () => {
    const seen = forwardedClient(headers({ forwarded: 'for=1.2.3.4, for="[2001:db8::7]:4711";proto=https;host=chat.example.org' }), "10.0.0.2", oneProxy);
    expect(seen).toEqual({ address: "2001:db8::7", proto: "https", host: "chat.example.org" });
  });

  test("an IPv4 address with a port", () => {
    expect(forwardedClient(headers({ forwarded: 'for="203.0.113.9:5000"' }), "10.0.0.2", oneProxy).address).toBe("203.0.113.9");
  });

  test("a malformed header is ignored as a whole (X-Forwarded-For is read instead)", () => {
    const seen = forwardedClient(headers({ forwarded: "for=1.2.3.4;;;=", "x-forwarded-for": "203.0.113.9" }), "10.0.0.2", oneProxy);
    expect(seen.address).toBe("203.0.113.9");
  });
});

test("a range proxy-addr cannot read is refused when compiled (config.ts reports it)", () => {
  expect(() => compileTrust(["not-an-address"])).toThrow();
  expect(compileTrust(["loopback"])("127.0.0.1", 0)).toBe(true);
});
