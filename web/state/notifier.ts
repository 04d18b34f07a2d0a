/**
 * Desktop notifications and their sound (docs/web.md, "Unread and notifications"): a message
 * notifies under the reader's settings (level, mutes, muted users) when the tab is hidden or the
 * message is in another place than the one being read. The browser's permission is asked only when
 * the reader presses "Enable desktop notifications"; clicking a notification opens the message.
 */
import { signal } from "@preact/signals";
import type { Message } from "../lib/wire-types.ts";

export type Permission = NotificationPermission | "unsupported";

/** Where a notified message is, to name it and to open it. */
export interface NotifiedPlace {
  /** The channel's or DM's id. */
  id: string;
  /** The page that shows it. */
  url: string;
  /** "#general (My server)" or the DM's name. */
  title: string;
  /** The message as plain text, mentions by name. */
  text: string;
}

/** How long the body of a notification runs. */
const BODY_CHARS = 160;
/** Notifications about one place replace each other (the browser's `tag`). */
const tagOf = (placeId: string) => `hearth:${placeId}`;

const supported = () => typeof window !== "undefined" && "Notification" in window;

export class Notifier {
  readonly permission = signal<Permission>(supported() ? Notification.permission : "unsupported");
  /** Set once a message would have raised a notification that the browser was not allowed to show. */
  readonly wanted = signal(false);
  /** Opens a page (the router's `route`, set by the app once it is mounted). */
  navigate: (url: string) => void = (url) => location.assign(url);
  /** Brings a message into view once its place is open (set by the place that can jump). */
  openMessage: (placeId: string, messageId: string) => void = () => {};
  private notified = new Set<string>();
  private audio: AudioContext | null = null;

  /** Asks the browser (a click on "Enable desktop notifications" is the user gesture it needs). */
  async enable(): Promise<void> {
    if (!supported()) return;
    this.permission.value = await Notification.requestPermission();
  }

  /** Raises one notification for `message` (once per message), with the sound when `sound`. */
  raise(message: Message, place: NotifiedPlace, options: { desktop: boolean; sound: boolean }): void {
    if (this.notified.has(message.id)) return;
    this.notified.add(message.id);
    if (this.notified.size > 500) this.notified = new Set([...this.notified].slice(-250));
    if (options.sound) this.beep();
    if (!options.desktop) return;
    if (!supported() || Notification.permission !== "granted") {
      if (supported() && Notification.permission === "default") this.wanted.value = true;
      return;
    }
    const text = place.text.trim() || (message.attachments.length ? "Sent an attachment" : "Sent a message");
    const notification = new Notification(`${message.username} · ${place.title}`, {
      body: text.length > BODY_CHARS ? `${text.slice(0, BODY_CHARS - 1)}…` : text,
      tag: tagOf(place.id),
      icon: message.avatar ?? "/icon.svg",
    });
    notification.addEventListener("click", () => {
      window.focus();
      notification.close();
      // The place's timeline starts loading around the message first, as a search result's does.
      this.openMessage(place.id, message.id);
      this.navigate(place.url);
    });
  }

  /** A short two-tone chime made on the spot (no file to load). */
  private beep(): void {
    try {
      this.audio ??= new AudioContext();
      const ctx = this.audio;
      const gain = ctx.createGain();
      gain.connect(ctx.destination);
      const start = ctx.currentTime;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.15, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.3);
      for (const [frequency, at] of [
        [880, 0],
        [1320, 0.09],
      ] as const) {
        const tone = ctx.createOscillator();
        tone.frequency.value = frequency;
        tone.connect(gain);
        tone.start(start + at);
        tone.stop(start + 0.3);
      }
    } catch {
      // No audio output (or not allowed yet): the notification still shows.
    }
  }
}
