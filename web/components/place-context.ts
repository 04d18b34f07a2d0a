/**
 * What the message components of one place (a channel or a DM) need to know: its timeline, the
 * reader, the server around it (channels only), what the reader may do there and how to name
 * the users, channels and roles its messages mention.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { MessagePlace } from "../state/place-requests.ts";
import { PERMISSIONS } from "../lib/shared-rules.ts";
import type { Channel, Dm, MeUser, Role } from "../lib/wire-types.ts";
import type { ServerState } from "../state/server-state.ts";
import type { Timeline } from "../state/timeline.ts";

export interface PlaceContextValue {
  place: MessagePlace;
  timeline: Timeline;
  me: MeUser;
  server: ServerState | null;
  channel: Channel | null;
  dm: Dm | null;
  /** What the composer's text box is named: "#general" or "@alice". */
  label: string;
  /** Server-wide permission bits of the reader (every bit in DMs, where only the author acts). */
  permissions: number;
  /** The reader's bits in this channel (overrides and a timeout applied) once known; null before, and in DMs. */
  channelBits: number | null;
  userName(userId: string): string | undefined;
  channelOf(channelId: string): Channel | undefined;
  roleOf(roleId: string): Role | undefined;
}

/** Whether the reader may do `bit` here, as far as the app knows (unknown bits: offered, and the server decides). */
export function mayHere(place: Pick<PlaceContextValue, "channelBits">, bit: keyof typeof PERMISSIONS): boolean {
  return place.channelBits === null || (place.channelBits & PERMISSIONS[bit]) !== 0;
}

export const PlaceContext = createContext<PlaceContextValue | null>(null);

export function usePlace(): PlaceContextValue {
  const value = useContext(PlaceContext);
  if (!value) throw new Error("usePlace outside a PlaceContext");
  return value;
}
