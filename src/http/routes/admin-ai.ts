import { Elysia, type AnyElysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import type { AdminPlugin } from "../admin-auth.ts";
import { body } from "../schemas.ts";
import { boolean, integer } from "../../domain/shared/validation.ts";
import { AiKeyPatch, modelIdText, NewAiKey } from "../../domain/ai/schemas.ts";
import { doc } from "../operation-doc.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { AiKey, AiSettings } from "../responses/admin.ts";

const { ai } = LIMITS;

const NewKeyBody = body(NewAiKey.entries);
const KeyChangesBody = body(AiKeyPatch.entries);
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
  new Elysia({ prefix: "/api/v1/admin/ai", tags: ["AI admin"] })
    .use(admin)
    .get("/settings", () => domain.ai.settings.get(), { admin: true, detail: doc("getAiSettings", AiSettings) })
    .patch("/settings", ({ user, body }) => domain.ai.settings.update(user, body), { admin: true, body: SettingsBody, detail: doc("updateAiSettings", AiSettings) })
    .get("/keys", () => domain.ai.keys.list(), { admin: true, detail: doc("listAiKeys", v.array(AiKey)) })
    .post(
      "/keys",
      async ({ user, body, set }) => {
        const key = await domain.ai.keys.create(user, body);
        set.status = 201;
        return key;
      },
      { admin: true, body: NewKeyBody, detail: doc("createAiKey", { 201: AiKey }) },
    )
    .get("/keys/:id", ({ params }) => domain.ai.keys.get(params.id), { admin: true, detail: doc("getAiKey", AiKey) })
    .patch("/keys/:id", ({ user, params, body }) => domain.ai.keys.update(user, params.id, body), { admin: true, body: KeyChangesBody, detail: doc("updateAiKey", AiKey) })
    .delete(
      "/keys/:id",
      async ({ user, params }) => {
        await domain.ai.keys.remove(user, params.id);
        return { success: true };
      },
      { admin: true, detail: doc("deleteAiKey", Success) },
    );
