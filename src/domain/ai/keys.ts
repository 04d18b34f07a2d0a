import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { AiKeyChanges, AiKeyRow } from "../../store/ai-keys-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Admins } from "../admin/admins.ts";
import { notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/validation.ts";
import { UnixSeconds, Uuid } from "../shared/shapes.ts";
import { AiModel, type AiKeyPatchInput, type NewAiKeyInput } from "./schemas.ts";

/**
 * A provider key as administrators see it: everything but the key itself. `key_hint` is
 * `"…"` plus the key's last 4 characters (only `"…"` for keys shorter than 12), null when
 * no key is set.
 */
export const AiKey = v.object({
  id: Uuid,
  name: v.string(),
  base_url: v.string(),
  models: v.array(AiModel),
  enabled: v.boolean(),
  key_hint: v.nullable(v.string()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type AiKey = v.InferOutput<typeof AiKey>;

/** Where a model's turns go: the first enabled key (oldest first) that lists it. */
export interface ModelRoute {
  model: AiModel;
  key: AiKeyRow;
}

const parseModels = (json: string): AiModel[] => JSON.parse(json) as AiModel[];

export function keyHint(apiKey: string): string | null {
  if (apiKey === "") return null;
  return apiKey.length >= 12 ? `…${apiKey.slice(-4)}` : "…";
}

const toView = (row: AiKeyRow): AiKey => ({
  id: row.id,
  name: row.name,
  base_url: row.base_url,
  models: parseModels(row.models),
  enabled: row.enabled === 1,
  key_hint: keyHint(row.api_key),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** What the platform log says about a key: never the key, only whether one is set. */
const described = (row: AiKeyRow) => ({
  name: row.name,
  base_url: row.base_url,
  models: parseModels(row.models),
  enabled: row.enabled === 1,
  has_api_key: row.api_key !== "",
});

/** Provider keys (administrators) and the models they make available (everyone). */
export class AiKeys {
  constructor(private readonly store: Store, private readonly admins: Admins) {}

  async list(): Promise<AiKey[]> {
    return (await this.store.aiKeys.list()).map(toView);
  }

  async get(id: string): Promise<AiKey> {
    return toView(await this.row(id));
  }

  async create(actor: UserRow, input: NewAiKeyInput): Promise<AiKey> {
    const row = await this.store.aiKeys.create({
      name: input.name,
      baseUrl: input.base_url,
      apiKey: input.api_key ?? "",
      models: JSON.stringify(input.models),
      enabled: input.enabled ?? true,
      createdBy: actor.id,
    });
    await this.admins.record(actor, "AI_KEY_CREATE", { type: "ai_key", id: row.id }, described(row));
    return toView(row);
  }

  /** Applies the given fields; the ones that changed are logged as `{field: {old, new}}` (`api_key: "changed"`). */
  async update(actor: UserRow, id: string, input: AiKeyPatchInput): Promise<AiKey> {
    const existing = await this.row(id);
    const changes: AiKeyChanges = {
      name: input.name,
      baseUrl: input.base_url,
      apiKey: input.api_key,
      models: input.models === undefined ? undefined : JSON.stringify(input.models),
      enabled: input.enabled,
    };
    const result = await this.store.aiKeys.update(existing.id, changes);
    if (!result) throw notFound("AI key");
    const before = described(result.before);
    const after = described(result.after);
    const logged: Record<string, unknown> = {};
    for (const field of ["name", "base_url", "models", "enabled"] as const) {
      if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) logged[field] = { old: before[field], new: after[field] };
    }
    if (result.before.api_key !== result.after.api_key) logged.api_key = "changed";
    if (Object.keys(logged).length > 0) await this.admins.record(actor, "AI_KEY_UPDATE", { type: "ai_key", id: existing.id }, logged);
    return toView(result.after);
  }

  async remove(actor: UserRow, id: string): Promise<void> {
    const removed = isUuid(id) ? await this.store.aiKeys.delete(id.toLowerCase()) : null;
    if (!removed) throw notFound("AI key");
    await this.admins.record(actor, "AI_KEY_DELETE", { type: "ai_key", id: removed.id }, { name: removed.name });
  }

  /** Every model of every enabled key, once each (the oldest key listing a model serves it). */
  async routes(): Promise<ModelRoute[]> {
    const seen = new Map<string, ModelRoute>();
    for (const key of await this.store.aiKeys.listEnabled()) {
      for (const model of parseModels(key.models)) if (!seen.has(model.id)) seen.set(model.id, { model, key });
    }
    return [...seen.values()];
  }

  private async row(id: string): Promise<AiKeyRow> {
    const row = isUuid(id) ? await this.store.aiKeys.find(id.toLowerCase()) : null;
    if (!row) throw notFound("AI key");
    return row;
  }
}
