/** Wire objects for the web app's pure tests. */
import type { Message } from "../../web/lib/wire-types.ts";

/** A channel message by "ann" whose content is its id. */
export const testMessage = (id: string, extra: Partial<Message> = {}): Message => ({
  id,
  channel_id: "c",
  user_id: "u1",
  content: id,
  created_at: 1000,
  updated_at: null,
  username: "ann",
  avatar: null,
  is_bot: 0,
  embeds: [],
  attachments: [],
  reply_to: null,
  ...extra,
});
