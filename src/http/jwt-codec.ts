/**
 * The TokenService's JWT primitive (src/domain/accounts/tokens.ts), built on @elysiajs/jwt. The
 * plugin is not mounted on the app: its `verify` accepts any algorithm the key fits unless told
 * otherwise, so handlers reaching it on the context would skip the pin below and the claims'
 * checks. Its decorator is called here instead, for REST and the gateway handshake alike.
 */
import { jwt } from "@elysiajs/jwt";
import type { JwtCodec } from "../domain/accounts/tokens.ts";

/** The only algorithm signed and accepted: with HS512 accepted too, one secret would sign two kinds of token. */
const ALGORITHM = "HS256";

export function jwtCodec(secret: string): JwtCodec {
  const plugin = jwt({ name: "tokens", secret, alg: ALGORITHM, typ: "JWT" });
  const { sign, verify } = plugin.decorator.tokens;
  return {
    sign: (claims, expiresIn) => sign(expiresIn === undefined ? claims : { ...claims, exp: expiresIn }),
    verify: async (token) => (await verify(token, { algorithms: [ALGORITHM] })) || null,
  };
}
