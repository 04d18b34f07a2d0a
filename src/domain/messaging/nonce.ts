/**
 * Idempotent sends (docs/messages.md, "Idempotent sends"): the one rule every message-creating
 * path shares. A send may carry Discord's `nonce` (a string of at most 25 characters, or an
 * integer); with `enforce_nonce: true` a second send of the same nonce by the same sender to
 * the same channel or DM within LIMITS.message.nonceSeconds answers the first message and
 * stores nothing. Without `enforce_nonce` the nonce is only echoed, as Discord does.
 */
import * as v from "valibot";
import type { NonceKey } from "../../store/message-nonces.ts";
import { badRequest } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";

const { nonceLength } = LIMITS.message;

/** The nonce as sent: a string of 1-25 characters, or a safe integer (Discord's two forms). */
const NONCE_FORM = `must be a string of 1-${nonceLength} characters or an integer`;
export const messageNonce = v.union(
  [v.pipe(v.string(), v.minLength(1, NONCE_FORM), v.maxLength(nonceLength, NONCE_FORM)), v.pipe(v.number(), v.safeInteger(NONCE_FORM))],
  NONCE_FORM,
);

/** The fields a send schema adds to take a nonce (REST bodies, multipart fields, gateway payloads). */
export const nonceEntries = {
  nonce: v.optional(messageNonce),
  enforce_nonce: v.optional(v.boolean("must be a boolean")),
};
export type NonceInput = { nonce?: string | number; enforce_nonce?: boolean };

/** Whose send it is and where: one key space per sender and channel or DM. */
export type NonceScope =
  | { channelId: string; userId: string }
  | { channelId: string; webhookId: string }
  | { dmId: string; userId: string };

function scopeName(scope: NonceScope): string {
  if ("dmId" in scope) return `dm:${scope.dmId}:${scope.userId}`;
  if ("webhookId" in scope) return `webhook:${scope.channelId}:${scope.webhookId}`;
  return `channel:${scope.channelId}:${scope.userId}`;
}

/** The key the store enforces, when the send asks for it (`enforce_nonce: true`); `enforce_nonce` without a nonce is a 400. */
export function nonceKey(input: NonceInput, scope: NonceScope): NonceKey | undefined {
  if (input.enforce_nonce !== true) return undefined;
  if (input.nonce === undefined) throw badRequest("nonce: required when enforce_nonce is true");
  return { scope: scopeName(scope), nonce: String(input.nonce), ttlSeconds: LIMITS.message.nonceSeconds };
}

/** The answer and `message:new` echo the nonce as this send gave it (Discord's behaviour). */
export function echoNonce<M extends { nonce?: string | number }>(message: M, input: NonceInput): M {
  if (input.nonce !== undefined) message.nonce = input.nonce;
  return message;
}

/** `enforce_nonce` as a multipart form field (text): "true" or "false". */
export const formEnforceNonce = v.pipe(v.picklist(["true", "false"], "must be true or false"), v.transform((flag) => flag === "true"));

/** The nonce fields of an upload form (DM uploads; channel uploads have them among their UploadFields). */
export const NonceFormFields = v.object({ nonce: v.optional(messageNonce), enforce_nonce: v.optional(formEnforceNonce) });
