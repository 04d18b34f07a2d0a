import { describe, expect, test } from "bun:test";
import { addressForLimits } from "../../src/http/client-address.ts";

describe("addressForLimits: what a per-address limit counts against", () => {
  test.each([
    ["an IPv4 address as is", "203.0.113.7", "203.0.113.7"],
    ["loopback IPv4", "127.0.0.2", "127.0.0.2"],
    ["an IPv4-mapped IPv6 address as its IPv4", "::ffff:198.51.100.4", "198.51.100.4"],
    ["a full IPv6 address by its /64", "2001:0db8:0001:0002:0003:0004:0005:0006", "2001:db8:1:2::/64"],
    ["a compressed one, the same /64", "2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["compression inside the prefix", "2001:db8::1", "2001:db8:0:0::/64"],
    ["upper case and a zone id", "FE80::1%eth0", "fe80:0:0:0::/64"],
    ["IPv6 loopback", "::1", "0:0:0:0::/64"],
    ["an embedded IPv4 tail", "64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["what is not an address, as is", "unknown", "unknown"],
  ])("%s", (_, address, expected) => {
    expect(addressForLimits(address)).toBe(expected);
  });

  test("two addresses of one /64 share a key; the next /64 does not", () => {
    expect(addressForLimits("2001:db8:aa:bb:1::1")).toBe(addressForLimits("2001:db8:aa:bb:ffff:ffff:ffff:ffff"));
    expect(addressForLimits("2001:db8:aa:bc::1")).not.toBe(addressForLimits("2001:db8:aa:bb::1"));
  });
});
