/**
 * Builders for embeds and components: plain functions that return the wire objects
 * (docs/embeds.md) and check them against the server's limits at once, so a too-long title
 * throws where it is written rather than when the message is sent.
 */
import { checkEmbeds } from "./checks.js";
import { HearthLimitError } from "./errors.js";
import type * as S from "./generated/schemas.js";

/** An embed as written: `color` may also be a number (0x5865F2), `timestamp` a Date. */
export type EmbedInput = Omit<S.Embed, "color" | "timestamp"> & { color?: string | number; timestamp?: string | Date };

/** A checked embed. */
export function embed(input: EmbedInput): S.Embed {
  const out: S.Embed = { ...input } as S.Embed;
  if (typeof input.color === "number") {
    if (!Number.isInteger(input.color) || input.color < 0 || input.color > 0xffffff) throw new HearthLimitError("color", "must be an integer 0-16777215");
    out.color = `#${input.color.toString(16).padStart(6, "0").toUpperCase()}`;
  }
  if (input.timestamp instanceof Date) out.timestamp = input.timestamp.toISOString();
  for (const key of Object.keys(out) as (keyof S.Embed)[]) if (out[key] === undefined) delete out[key];
  checkEmbeds([out]);
  return out;
}

type Checked<T extends S.Component> = T;
const checked = <T extends S.Component>(component: T): Checked<T> => {
  // A component is checked inside an embed, as the server sees it; the path names it alone.
  try {
    checkEmbeds([{ components: [component] }]);
  } catch (error) {
    if (error instanceof HearthLimitError) throw new HearthLimitError(error.path.replace(/^embeds\.0\.components\.0\.?/, ""), error.reason);
    throw error;
  }
  return component;
};

/** A button that sends a component interaction with its `custom_id` to the bot (style `primary` unless given). */
export function button(input: Omit<S.ActionButtonComponent, "type" | "style"> & { style?: S.ActionButtonComponent["style"] }): S.ActionButtonComponent {
  return checked({ type: "button", style: input.style ?? "primary", ...input } as S.ActionButtonComponent);
}

/** A button the client opens as a link; it never reaches the bot. */
export function linkButton(input: Omit<S.LinkButtonComponent, "type" | "style">): S.LinkButtonComponent {
  return checked({ type: "button", style: "link", ...input });
}

/** A menu of options; the press carries the chosen `values`. */
export function stringSelect(input: Omit<S.StringSelectComponent, "type">): S.StringSelectComponent {
  return checked({ type: "string_select", ...input });
}

/** A channel picker; the press carries the chosen channels in `selected_channels`. */
export function channelSelect(input: Omit<S.ChannelSelectComponent, "type">): S.ChannelSelectComponent {
  return checked({ type: "channel_select", ...input });
}
