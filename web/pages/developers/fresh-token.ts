/**
 * A bot token just created or reset, kept in memory (never stored) so the application page can
 * show it once: the server never gives it again.
 */
import { signal } from "@preact/signals";

export const freshToken = signal<{ appId: string; token: string } | null>(null);
