/** Answers of the AI assistant's routes (docs/ai.md). */
import * as v from "valibot";
import type { AiConfig as AiConfigType } from "../../domain/ai/assistant.ts";
import type { AiConversation as AiConversationType, AiMessage as AiMessageType } from "../../domain/ai/conversations.ts";
import type { AiModel as AiModelType } from "../../domain/ai/schemas.ts";
import type { AiUploadView } from "../../domain/ai/uploads.ts";
import { UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import type { Assert, Same } from "./same-type.ts";

export const AiModel = v.object({ id: v.string(), name: v.string(), flags: v.array(v.string()) });
export const AiConfig = v.object({
  enabled: v.boolean(),
  plus_only: v.boolean(),
  allowed: v.boolean(),
  has_plus: v.boolean(),
  default_model: v.nullable(v.string()),
  models: v.array(AiModel),
  welcome: v.string(),
  daily_msg_limit: v.number(),
  max_upload_mb: v.number(),
});
export const AiConversation = v.object({
  id: Uuid,
  title: v.nullable(v.string()),
  model_id: v.nullable(v.string()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export const AiUpload = v.object({ id: Uuid, url: v.string(), name: v.string(), mime_type: v.string(), size: v.number(), created_at: UnixSeconds });
export const AiMessage = v.object({
  id: Uuid,
  conversation_id: Uuid,
  role: v.picklist(["user", "assistant"]),
  content: v.string(),
  model_id: v.nullable(v.string()),
  status: v.picklist(["complete", "cancelled", "error"]),
  attachments: v.array(AiUpload),
  images: v.array(v.object({ url: v.string() })),
  created_at: UnixSeconds,
});

export type Checks = [
  Assert<Same<v.InferOutput<typeof AiModel>, AiModelType>>,
  Assert<Same<v.InferOutput<typeof AiConfig>, AiConfigType>>,
  Assert<Same<v.InferOutput<typeof AiConversation>, AiConversationType>>,
  Assert<Same<v.InferOutput<typeof AiUpload>, AiUploadView>>,
  Assert<Same<v.InferOutput<typeof AiMessage>, AiMessageType>>,
];
