import type { UserRow } from "../../store/users-repo.ts";
import { ApiError, forbidden } from "../shared/errors.ts";
import type { AiSettingsValues } from "./settings.ts";

/** The friendly refusals of the AI routes (SPEC.md rule 8; docs/ai.md#gates). */
const AI_ERRORS = {
  bot: "The AI assistant needs a user token: bots cannot use it",
  disabled: "The AI assistant is turned off on this platform",
  plusOnly: "The AI assistant is available to premium (Plus) members only",
  unavailable: "The AI assistant is unavailable right now: no AI provider is set up",
} as const;

/** Every AI route starts here: bot tokens are refused (403). */
export function requireHuman(user: UserRow): void {
  if (user.is_bot !== 0) throw forbidden(AI_ERRORS.bot);
}

/** Why the platform flag or the premium-only flag keeps `user` from starting anything new, or null. */
export function accessRefusal(user: UserRow, settings: AiSettingsValues): string | null {
  if (!settings.enabled) return AI_ERRORS.disabled;
  if (settings.plus_only && user.premium !== 1) return AI_ERRORS.plusOnly;
  return null;
}

/** The platform flag and the premium-only flag, for starting anything new (a conversation, an upload, a turn). */
export function requireAccess(user: UserRow, settings: AiSettingsValues): void {
  const refusal = accessRefusal(user, settings);
  if (refusal) throw forbidden(refusal);
}

/** No enabled key serves any model: 503, the platform's side of the problem. */
export const unavailable = () => new ApiError(503, AI_ERRORS.unavailable);
