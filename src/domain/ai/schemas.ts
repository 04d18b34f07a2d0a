/**
 * The AI assistant's payloads (docs/ai.md): conversations and turns (users), keys (administrators).
 * The REST routes parse with these, and the assistant's services take their output.
 */
import * as v from "valibot";
import { LIMITS } from "../shared/limits.ts";
import { boolean, displayName } from "../shared/validation.ts";

const { ai } = LIMITS;

/** A title: trimmed, at most LIMITS.ai.titleLength characters; empty or null clears it. */
const title = v.optional(
  v.nullable(
    v.pipe(
      displayName,
      v.maxLength(ai.titleLength, `must be at most ${ai.titleLength} characters`),
      v.transform((t) => (t === "" ? null : t)),
    ),
  ),
);
/**
 * A conversation or stream id in a body: any string up to LIMITS.ai.idTextLength characters, so a
 * malformed id is answered like an unknown one (404), and a huge one is a 400 before any lookup.
 */
export const idText = v.pipe(v.string("must be a string"), v.maxLength(ai.idTextLength, `must be at most ${ai.idTextLength} characters`));
/** The `url` of one of the caller's uploads (`/uploads/ai/<user id>/<name>`). */
const attachmentUrl = v.pipe(v.string("must be a string"), v.maxLength(ai.attachmentUrlLength, `must be at most ${ai.attachmentUrlLength} characters`));
const modelId = v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"), v.maxLength(ai.modelIdLength, `must be at most ${ai.modelIdLength} characters`));

/** A conversation's fields, on create and on update: null clears, undefined leaves as is. */
export const ConversationFields = v.object({ title, model_id: v.optional(v.nullable(modelId)) });
export type ConversationInput = v.InferOutput<typeof ConversationFields>;

export const NewTurn = v.object({
  conversation_id: idText,
  content: v.optional(v.pipe(v.string("must be a string"), v.maxLength(ai.contentLength, `must be at most ${ai.contentLength} characters`))),
  model_id: v.optional(modelId),
  attachments: v.optional(
    v.pipe(
      v.array(v.object({ url: attachmentUrl }, "must be an object {url}"), "must be an array"),
      v.maxLength(ai.attachmentsPerTurn, `must hold at most ${ai.attachmentsPerTurn} files`),
    ),
  ),
});
export type TurnInput = v.InferOutput<typeof NewTurn>;

const keyName = v.pipe(
  displayName,
  v.minLength(1, `must be 1-${ai.keyNameLength} characters`),
  v.maxLength(ai.keyNameLength, `must be 1-${ai.keyNameLength} characters`),
);

/** An http(s) base URL without credentials (the key has its own field) or a fragment; trailing slashes dropped. */
const baseUrl = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.maxLength(ai.keyBaseUrlLength, `must be at most ${ai.keyBaseUrlLength} characters`),
  v.check((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password && !url.hash;
    } catch {
      return false;
    }
  }, "must be an http(s) URL without credentials, e.g. https://api.openai.com/v1"),
  v.transform((value) => value.replace(/\/+$/, "")),
);

const apiKey = v.pipe(v.string("must be a string"), v.trim(), v.maxLength(ai.apiKeyLength, `must be at most ${ai.apiKeyLength} characters`));

/** A model id as an administrator writes it (a key's model list, the default model). */
export const modelIdText = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.minLength(1, `must be 1-${ai.modelIdLength} characters`),
  v.maxLength(ai.modelIdLength, `must be 1-${ai.modelIdLength} characters`),
  v.regex(/^\S+$/, "must not contain spaces"),
);
const flag = v.pipe(
  v.string("must be a string"),
  v.regex(new RegExp(`^[a-z0-9_-]{1,${ai.modelFlagLength}}$`), `must be 1-${ai.modelFlagLength} of a-z, 0-9, _ and -`),
);

/** A model a key serves, as clients see it in `/ai/config`. `flags` are informational (e.g. `vision`). */
export const AiModel = v.object({ id: v.string(), name: v.string(), flags: v.array(v.string()) });
export type AiModel = v.InferOutput<typeof AiModel>;

/** A model: its id as a string, or `{id, name?, flags?}`. */
const model = v.union(
  [
    v.pipe(modelIdText, v.transform((id): AiModel => ({ id, name: id, flags: [] }))),
    v.pipe(
      v.object({
        id: modelIdText,
        name: v.optional(v.pipe(displayName, v.minLength(1), v.maxLength(ai.modelNameLength))),
        flags: v.optional(v.pipe(v.array(flag), v.maxLength(ai.modelFlags))),
      }),
      v.transform((m): AiModel => ({ id: m.id, name: m.name ?? m.id, flags: [...new Set(m.flags ?? [])] })),
    ),
  ],
  `must be a model id, or {id, name?: 1-${ai.modelNameLength} characters, flags?: up to ${ai.modelFlags} of [a-z0-9_-]}`,
);
const models = v.pipe(
  v.array(model, "must be an array"),
  v.minLength(1, "must list at least one model"),
  v.maxLength(ai.modelsPerKey, `must list at most ${ai.modelsPerKey} models`),
  v.check((list) => new Set(list.map((m) => m.id)).size === list.length, "must not list a model twice"),
);

export const NewAiKey = v.object({ name: keyName, base_url: baseUrl, api_key: v.optional(apiKey), models, enabled: v.optional(boolean) });
export type NewAiKeyInput = v.InferOutput<typeof NewAiKey>;

export const AiKeyPatch = v.object({
  name: v.optional(keyName),
  base_url: v.optional(baseUrl),
  api_key: v.optional(apiKey),
  models: v.optional(models),
  enabled: v.optional(boolean),
});
export type AiKeyPatchInput = v.InferOutput<typeof AiKeyPatch>;
