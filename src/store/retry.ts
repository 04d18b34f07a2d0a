/**
 * PostgreSQL's answer when a transaction lost a deadlock (40P01) or a serialization conflict
 * (40001): nothing of it was written, and running it again from the start is the cure. SQLite
 * never raises these.
 */
export function isRetryable(error: unknown): boolean {
  const code = (error as { errno?: unknown } | null)?.errno;
  return code === "40P01" || code === "40001";
}
