/**
 * Checked by `npm run typecheck` (not a test file): the server's voice wire types still fit
 * the shapes the web app's voice pages read (web/voice/types.ts, generated from the reference).
 */
import type { GatewayPayload } from "../../src/domain/shared/events.ts";
import type { VoiceParticipant } from "../../src/domain/shared/shapes.ts";
import type { CatalogSound } from "../../src/domain/voice/soundboard.ts";
import type * as Web from "../../web/voice/types.ts";

type Fits<Server extends Client, Client> = [Server, Client];

export type VoiceWireTypesFit = [
  Fits<VoiceParticipant, Web.VoiceParticipant>,
  Fits<GatewayPayload<"voice:state-update">, Web.StateUpdate>,
  Fits<GatewayPayload<"voice:meeting-update">, Web.MeetingUpdate>,
  Fits<CatalogSound, Web.CatalogSound>,
  Fits<GatewayPayload<"voice:soundboard">, Web.SoundboardPlayed>,
  Fits<GatewayPayload<"dm:call-incoming">, Web.IncomingCall>,
];
