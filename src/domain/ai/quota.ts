import { tooManyRequests } from "../shared/errors.ts";

/** The daily quota counts turns per UTC day (docs/ai.md#daily-quota). */
export const utcDay = (at = new Date()): string => at.toISOString().slice(0, 10);

/** Seconds until the next UTC midnight, when every quota resets. */
export function secondsUntilReset(at = new Date()): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}

/** 429 with Retry-After until the reset. */
export const dailyLimitReached = (limit: number) =>
  tooManyRequests(
    secondsUntilReset(),
    `You have used all ${limit} AI messages for today. Your limit resets at midnight UTC.`,
  );
