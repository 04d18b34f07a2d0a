/** Answers of the soundboard routes (docs/soundboard.md). */
import * as v from "valibot";
import type { CatalogSound as CatalogSoundType, Sound as SoundType } from "../../domain/voice/soundboard.ts";
import { UnixSeconds, Uuid } from "../../domain/shared/shapes.ts";
import type { Assert, Same } from "./same-type.ts";

export const Sound = v.object({
  id: Uuid,
  server_id: Uuid,
  name: v.string(),
  icon: v.string(),
  file_path: v.string(),
  original_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
  uploaded_by: v.nullable(Uuid),
  created_at: UnixSeconds,
  uploaded_by_username: v.nullable(v.string()),
});
export const CatalogSound = v.object({
  id: Uuid,
  name: v.string(),
  icon: v.string(),
  builtin: v.boolean(),
  file_url: v.string(),
  server_id: Uuid,
  server_name: v.string(),
});
export const SoundPlayed = v.object({ played: v.literal(true), channelId: Uuid });

export type Checks = [Assert<Same<v.InferOutput<typeof Sound>, SoundType>>, Assert<Same<v.InferOutput<typeof CatalogSound>, CatalogSoundType>>];
