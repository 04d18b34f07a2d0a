/**
 * Answers of the soundboard routes (docs/soundboard.md). The sounds are defined beside the domain
 * code that builds them (their types are the schemas' outputs) and listed here with the answer
 * only these routes build, so the reference names them.
 */
import * as v from "valibot";
import { CatalogSound, Sound } from "../../domain/voice/soundboard.ts";
import { Uuid } from "../../domain/shared/shapes.ts";

export { CatalogSound, Sound };

export const SoundPlayed = v.object({ played: v.literal(true), channelId: Uuid });
