import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_COUNT, twoFactorCode } from "../../../src/domain/accounts/recovery-codes.ts";

describe("recovery codes", () => {
  test("a set is ten distinct codes of four groups of four Crockford base32 symbols", () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
  });

  test("normalized: any case, dashes optional; anything else is not a recovery code", () => {
    expect(normalizeRecoveryCode("7K2M-Q9XF-3HWN-P4TD")).toBe("7k2mq9xf3hwnp4td");
    expect(normalizeRecoveryCode("7k2mq9xf3hwnp4td")).toBe("7k2mq9xf3hwnp4td");
    for (const bad of ["123456", "7k2m-q9xf-3hwn", "7k2m-q9xf-3hwn-p4td-", "7k2m q9xf 3hwn p4td", ""]) expect(normalizeRecoveryCode(bad)).toBeNull();
  });

  test("the stored hash is bound to the account", () => {
    const code = "7k2mq9xf3hwnp4td";
    expect(hashRecoveryCode("a", code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode("a", code)).toBe(hashRecoveryCode("a", code));
    expect(hashRecoveryCode("a", code)).not.toBe(hashRecoveryCode("b", code));
  });

  test("the body field takes a 6-digit code or a recovery code, trimmed", () => {
    expect(v.parse(twoFactorCode, " 045604 ")).toBe("045604");
    expect(v.parse(twoFactorCode, 123456)).toBe("123456");
    expect(v.parse(twoFactorCode, "7K2M-Q9XF-3HWN-P4TD")).toBe("7K2M-Q9XF-3HWN-P4TD");
    for (const bad of ["12345", "abcdef", "", null, true]) expect(v.safeParse(twoFactorCode, bad).success).toBe(false);
  });
});
