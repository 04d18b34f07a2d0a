/** Why a channel's composer is not offered (web/lib/permissions.ts whyCannotSend). */
import { expect, test } from "bun:test";
import { whyCannotSend } from "../../web/lib/permissions.ts";
import { PERMISSIONS as P } from "../../web/lib/shared-rules.ts";

const text = { type: "text" as const, chat_enabled: false };
const voice = (chat_enabled: boolean) => ({ type: "voice" as const, chat_enabled });
const bits = (permissions: number, timeout_until: number | null = null) => ({ channel_id: "c", permissions, timeout_until });

test("voice chat off, a running timeout, no SEND_MESSAGES; offered while unknown and once a timeout has ended", () => {
  expect(whyCannotSend(voice(false), bits(P.SEND_MESSAGES), 100)).toEqual({ kind: "voice-chat-off" });
  expect(whyCannotSend(voice(true), bits(P.SEND_MESSAGES), 100)).toBeNull();
  expect(whyCannotSend(text, null, 100)).toBeNull();
  expect(whyCannotSend(text, bits(P.VIEW_CHANNEL), 100)).toEqual({ kind: "no-permission" });
  expect(whyCannotSend(text, bits(P.VIEW_CHANNEL | P.SEND_MESSAGES), 100)).toBeNull();
  expect(whyCannotSend(text, bits(P.VIEW_CHANNEL, 160), 100)).toEqual({ kind: "timed-out", until: 160 });
  // The bits were worked out under a timeout that has run out: offered while asked for anew.
  expect(whyCannotSend(text, bits(P.VIEW_CHANNEL, 160), 160)).toBeNull();
});
