/** The REST routes the voice pages call (docs/soundboard.md), on the app's API client. */
import { api } from "../state/app-state.ts";
import type { CatalogSound } from "./types.ts";

export const soundboardCatalog = () => api.http.get<CatalogSound[]>("/premium/soundboard/catalog");
export const playSound = (soundId: string) => api.http.post<{ played: true; channelId: string }>("/premium/soundboard/play", { sound_id: soundId });
