import * as OTPAuth from "otpauth";

/** The current TOTP code for a base32 secret, as an authenticator app shows it. */
export function totpCode(secret: string, offsetSteps = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** A 6-digit code that is not valid now (nor one step either side). */
export function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1].map((step) => totpCode(secret, step)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0");
    if (!valid.has(code)) return code;
  }
}
