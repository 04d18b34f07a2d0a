/**
 * The `Prefer` request header (RFC 7240): preferences are comma-separated, each a token with an
 * optional `=value` (quoted or not) and parameters after `;`; names compare case-insensitively.
 */
export function prefersMinimal(header: string | null | undefined): boolean {
  if (!header) return false;
  for (const preference of header.split(",")) {
    const [name, value] = (preference.split(";")[0] ?? "").split("=").map((part) => part.trim().replace(/^"(.*)"$/, "$1").toLowerCase());
    if (name === "return" && value === "minimal") return true;
  }
  return false;
}

/** Answers a change made with `Prefer: return=minimal`: no body, and says the preference was honoured. */
export const minimalAnswer = (): Response => new Response(null, { status: 204, headers: { "preference-applied": "return=minimal" } });
