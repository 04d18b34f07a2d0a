import { expect, test } from "bun:test";
import { bearerToken } from "../../src/http/auth.ts";

// `bearerToken` takes the common "Bearer <token>" form without its full pattern; every other
// form must read exactly as the pattern /^Bearer\s+(\S+)\s*$/i reads it.
test("the token of an Authorization header, in every form the pattern accepts, and null for the rest", () => {
  const cases: [header: string | null | undefined, token: string | null][] = [
    ["Bearer abc.def.ghi", "abc.def.ghi"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["Bearer  abc", "abc"],
    ["Bearer\tabc", "abc"],
    ["Bearer abc ", "abc"],
    ["Bearer abc\t", "abc"],
    ["Bearer abc\u00a0", "abc"],
    ["Bearer \u00a0abc", "abc"],
    ["Bearer abc def", null],
    ["Bearer abc\tdef", null],
    ["Bearer ", null],
    ["Bearer  ", null],
    ["Bearer", null],
    ["Bearerabc", null],
    ["BearerX abc", null],
    [" Bearer abc", null],
    ["Basic abc", null],
    ["", null],
    [null, null],
    [undefined, null],
  ];
  for (const [header, token] of cases) expect({ header, token: bearerToken(header) }).toEqual({ header, token });
});
