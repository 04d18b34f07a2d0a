import { Elysia, type AnyElysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AiModel } from "../../domain/ai/keys.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AdminPlugin } from "../admin-auth.ts";
import { body, boolean, integer } from "../schemas.ts";

const { ai } = LIMITS;

const keyName = v.pipe(
  v.string("must be a string"),
  v.trim(),
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

const modelIdText = v.pipe(
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

/** A model: its id as a string, or `{id, name?, flags?}`. */
const model = v.union(
  [
    v.pipe(modelIdText, v.transform((id): AiModel => ({ id, name: id, flags: [] }))),
    v.pipe(
      v.object({
        id: modelIdText,
        name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(ai.modelNameLength))),
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

const NewKeyBody = body({ name: keyName, base_url: baseUrl, api_key: v.optional(apiKey), models, enabled: v.optional(boolean) });
const KeyChangesBody = body({
  name: v.optional(keyName),
  base_url: v.optional(baseUrl),
  api_key: v.optional(apiKey),
  models: v.optional(models),
  enabled: v.optional(boolean),
});
const SettingsBody = body({
  enabled: v.optional(boolean),
  plus_only: v.optional(boolean),
  daily_msg_limit: v.optional(integer(0, ai.dailyMsgLimitMax)),
  max_upload_mb: v.optional(integer(ai.maxUploadMbMin, ai.maxUploadMbMax)),
  welcome: v.optional(v.pipe(v.string("must be a string"), v.maxLength(ai.welcomeLength, `must be at most ${ai.welcomeLength} characters`))),
  default_model: v.optional(v.nullable(modelIdText)),
});

/**
 * /api/v1/admin/ai: the AI assistant's settings and provider keys (docs/ai.md#administration).
 * Platform administrators only; every change is in the platform log; keys are never answered.
 */
// Typed loosely: the app's route chain would otherwise grow past what TypeScript can represent.
export const adminAiRoutes = (domain: Domain, admin: AdminPlugin): AnyElysia =>
  new Elysia({ prefix: "/api/v1/admin/ai" })
    .use(admin)
    .get("/settings", () => domain.ai.settings.get(), { admin: true })
    .patch("/settings", ({ user, body }) => domain.ai.settings.update(user, body), { admin: true, body: SettingsBody })
    .get("/keys", () => domain.ai.keys.list(), { admin: true })
    .post(
      "/keys",
      async ({ user, body, set }) => {
        const key = await domain.ai.keys.create(user, body);
        set.status = 201;
        return key;
      },
      { admin: true, body: NewKeyBody },
    )
    .get("/keys/:id", ({ params }) => domain.ai.keys.get(params.id), { admin: true })
    .patch("/keys/:id", ({ user, params, body }) => domain.ai.keys.update(user, params.id, body), { admin: true, body: KeyChangesBody })
    .delete(
      "/keys/:id",
      async ({ user, params }) => {
        await domain.ai.keys.remove(user, params.id);
        return { success: true };
      },
      { admin: true },
    );
