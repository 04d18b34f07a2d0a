import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import type { Admins, PlatformSettings } from "../admin/admins.ts";
import { Assistant } from "./assistant.ts";
import { AiConversations } from "./conversations.ts";
import { AiKeys } from "./keys.ts";
import { AiSettings } from "./settings.ts";
import { AiUploads } from "./uploads.ts";

/** The AI assistant (docs/ai.md): settings and keys for administrators; conversations, files and turns for users. */
export interface Ai {
  settings: AiSettings;
  keys: AiKeys;
  conversations: AiConversations;
  uploads: AiUploads;
  assistant: Assistant;
}

export function createAi(deps: {
  store: Store;
  settings: PlatformSettings;
  admins: Admins;
  uploadsRoot: string;
  providerTimeoutMs: number;
  log: Logger;
}): Ai {
  const settings = new AiSettings(deps.settings, deps.admins);
  const keys = new AiKeys(deps.store, deps.admins);
  const conversations = new AiConversations(deps.store, settings, keys);
  const uploads = new AiUploads(deps.store, deps.uploadsRoot);
  const assistant = new Assistant(deps.store, settings, keys, conversations, uploads, deps.providerTimeoutMs, deps.log);
  // A conversation being deleted first ends the reply streaming in it, so the reply is not written into it afterwards.
  conversations.beforeDelete = (id) => assistant.endStreamIn(id);
  return { settings, keys, conversations, uploads, assistant };
}
