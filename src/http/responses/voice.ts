/**
 * Answers of the soundboard routes (docs/soundboard.md) and of /api/v1/voice (docs/voice.md). The sounds are defined beside the domain
 * code that builds them (their types are the schemas' outputs) and listed here with the answer
 * only these routes build, so the reference names them.
 */
import * as v from "valibot";
import { CatalogSound, Sound } from "../../domain/voice/soundboard.ts";
import { Uuid } from "../../domain/shared/shapes.ts";
import { IceServer, IceServers } from "../../domain/voice/ice-servers.ts";

export { CatalogSound, IceServer, IceServers, Sound };

export const SoundPlayed = v.object({ played: v.literal(true), channelId: Uuid });
