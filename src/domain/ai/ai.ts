import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import type { Admins } from "../admin/admins.ts";
import type { PlatformSettings } from "../admin/platform-settings.ts";
import { Assistant } from "./assistant.ts";
import { AiConversations } from "./conversations.ts";
import { AiKeys } from "./keys.ts";
import { AiSettings } from "./settings.ts";
import { ReplyStreams } from "./reply-streams.ts";
import { AiUploads } from "./uploads.ts";
import type { FileStorage } from "../shared/file-storage.ts";

/** The AI assistant (docs/ai.md): settings and keys for administrators; conversations, files and turns for users. */
export function createAi(deps: {
  store: Store;
  settings: PlatformSettings;
  admins: Admins;
  /** Where the uploads' bytes live (the same storage as every other upload). */
  files: FileStorage;
  /** The check every upload's image passes (its declared dimensions: UploadStore.checkImage). */
  checkImage: (bytes: Uint8Array) => void;
  providerTimeoutMs: number;
  log: Logger;
}) {
  const settings = new AiSettings(deps.settings, deps.admins);
  const keys = new AiKeys(deps.store, deps.admins);
  const streams = new ReplyStreams();
  const conversations = new AiConversations(deps.store, settings, keys, streams);
  const uploads = new AiUploads(deps.store, deps.files, deps.checkImage);
  const assistant = new Assistant(deps.store, settings, keys, conversations, uploads, streams, deps.providerTimeoutMs, deps.log);
  return { settings, keys, conversations, uploads, assistant };
}
