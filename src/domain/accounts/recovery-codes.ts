import * as v from "valibot";

/** How many recovery codes enabling 2FA (or regenerating them) hands out. */
export const RECOVERY_CODE_COUNT = 10;

/** Crockford's base32 alphabet, lower-cased: no i, l, o, u to misread. 32 symbols: one per 5 random bits. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const LENGTH = 16;
const GROUP = 4;

/** `xxxx-xxxx-xxxx-xxxx`, any case, the dashes optional (surrounding spaces are trimmed by the caller). */
const RECOVERY_CODE = /^[0-9a-z]{4}(-?[0-9a-z]{4}){3}$/i;
const TOTP_CODE = /^\d{6}$/;

/** Fresh codes as shown to the person once: 16 symbols (80 random bits) in groups of four. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = crypto.getRandomValues(new Uint8Array(LENGTH));
    const symbols = Array.from(bytes, (byte) => ALPHABET[byte & 31]).join("");
    return symbols.match(new RegExp(`.{${GROUP}}`, "g"))!.join("-");
  });
}

export const isTotpCode = (code: string) => TOTP_CODE.test(code);

/** The code as stored (lower case, no dashes), or null when it is not shaped as a recovery code. */
export function normalizeRecoveryCode(code: string): string | null {
  if (!RECOVERY_CODE.test(code)) return null;
  return code.replaceAll("-", "").toLowerCase();
}

/**
 * What is stored of a recovery code: SHA-256 of the account id and the code. A plain fast hash
 * is enough here, unlike for passwords: each code holds 80 random bits, so no dictionary helps and
 * trying every code against a leaked hash is out of reach; a slow hash (argon2) would only make
 * each login with a code cost more. The account id binds a hash to its account.
 */
export function hashRecoveryCode(userId: string, normalized: string): string {
  return new Bun.CryptoHasher("sha256").update(`${userId}:${normalized}`).digest("hex");
}

/** A body's `code` where a recovery code may stand in for the TOTP code (login, 2FA disable, regeneration). */
export const twoFactorCode = v.pipe(
  v.union([v.string(), v.number()], "must be a 6-digit code or a recovery code"),
  v.transform((code) => String(code).trim()),
  v.check((code) => isTotpCode(code) || RECOVERY_CODE.test(code), "must be a 6-digit code or a recovery code"),
);
