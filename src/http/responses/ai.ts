/**
 * Answers of the AI assistant's routes (docs/ai.md). The shapes are defined beside the domain
 * code that builds them (their types are the schemas' outputs) and listed here so the reference
 * names them.
 */
import { AiConfig } from "../../domain/ai/assistant.ts";
import { AiConversation, AiMessage } from "../../domain/ai/conversations.ts";
import { AiModel } from "../../domain/ai/schemas.ts";
import { AiUpload } from "../../domain/ai/uploads.ts";

export { AiConfig, AiConversation, AiMessage, AiModel, AiUpload };
