import { createHash, timingSafeEqual } from "node:crypto";

/** Compares two secrets through equal-length digests, so the comparison takes the same time whatever the guess. */
export const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
