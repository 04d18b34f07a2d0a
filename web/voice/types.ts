/**
 * The voice wire shapes the app reads (docs/voice.md, docs/audio.md, docs/soundboard.md,
 * docs/dm-calls.md): the reference's schemas and gateway events as sdk/src/generated/
 * generates them (see web/lib/wire-types.ts).
 */
import type { ServerEvents } from "../../sdk/src/generated/gateway.ts";
import type * as S from "../../sdk/src/generated/schemas.ts";

export type VoiceParticipant = S.VoiceParticipant;
export type MeetingRole = NonNullable<VoiceParticipant["meetingRole"]>;
export type StateUpdate = ServerEvents["voice:state-update"];
export type MeetingUpdate = ServerEvents["voice:meeting-update"];
/** A sound of the premium catalog (`GET /premium/soundboard/catalog`). */
export type CatalogSound = S.CatalogSound;
export type SoundboardPlayed = ServerEvents["voice:soundboard"];
export type IncomingCall = ServerEvents["dm:call-incoming"];
