import type { Server } from "bun";
import type { TwoFactorProof } from "../domain/accounts/two-factor.ts";
import { limitedClientAddress } from "./client-address.ts";

/** The `X-2FA-Code` header of a "(2FA)" route and the caller's address, for TwoFactor.requireCode. */
export function twoFactorProof(context: {
  headers: Record<string, string | undefined>;
  request: Request;
  server: Server<unknown> | null;
}): TwoFactorProof {
  return { code: context.headers["x-2fa-code"] ?? null, clientAddress: limitedClientAddress(context.request, context.server) };
}
