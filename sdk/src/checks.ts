/**
 * The server's message and embed rules (docs/embeds.md), checked before sending so a mistake
 * shows up where it is made, with the server's own wording (`embeds.0.title: must be at most
 * 256 characters`). The numbers are the server's LIMITS, copied at build time
 * (./generated/constants.ts); the server still checks everything, this only fails earlier.
 * test/sdk/checks.test.ts sends the same bad messages to a real server and compares the errors.
 */
import { HearthLimitError } from "./errors.js";
import { LIMITS } from "./generated/constants.js";
import type * as S from "./generated/schemas.js";

const E = LIMITS.embed;

const fail = (path: string, reason: string): never => {
  throw new HearthLimitError(path, reason);
};

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const absent = (value: unknown) => value === undefined || value === null;

/** Length in code points (an emoji is one character), as the server counts. */
export const characters = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

function text(obj: Json, key: string, path: string, max: number, min = 0): string | undefined {
  const value = obj[key];
  if (absent(value)) {
    if (min > 0) fail(`${path}.${key}`, "is required");
    return undefined;
  }
  if (typeof value !== "string") return fail(`${path}.${key}`, "must be a string");
  const length = value.length > max ? characters(value) : value.length;
  if (length > max || value.length < min) fail(`${path}.${key}`, min > 0 ? `must be ${min}-${max} characters` : `must be at most ${max} characters`);
  return value;
}

function url(obj: Json, key: string, path: string): void {
  const value = obj[key];
  if (absent(value)) return;
  const at = `${path}.${key}`;
  if (typeof value !== "string") return fail(at, "must be a string");
  if (value.length > E.url) fail(at, `must be at most ${E.url} characters`);
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.hostname || value !== value.trim()) fail(at, "must be an http(s) URL");
}

function list(obj: Json, key: string, path: string, max: number, noun: string): unknown[] {
  const value = obj[key];
  if (absent(value)) return [];
  if (!Array.isArray(value)) return fail(`${path}.${key}`, "must be an array");
  if (value.length > max) fail(`${path}.${key}`, `must contain at most ${max} ${noun}`);
  return value;
}

function emoji(value: unknown, path: string): void {
  if (!isRecord(value)) return fail(path, "must be an object");
  text(value, "name", path, E.emojiName, 1);
  text(value, "id", path, E.emojiId);
}

function bounds(obj: Json, path: string, optionCount: number | null): void {
  const integer = (key: string, min: number, max: number) => {
    const value = obj[key];
    if (absent(value)) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) fail(`${path}.${key}`, `must be an integer ${min}-${max}`);
    return value as number;
  };
  const minValues = integer("min_values", 0, E.selectValues) ?? 1;
  const maxValues = integer("max_values", 1, E.selectValues) ?? 1;
  if (minValues > maxValues) fail(`${path}.min_values`, "must not exceed max_values");
  if (optionCount !== null && maxValues > optionCount) fail(`${path}.max_values`, "must not exceed the number of options");
}

const BUTTON_STYLES = ["primary", "secondary", "success", "danger", "link"];

function component(value: unknown, path: string): void {
  if (!isRecord(value)) return fail(path, "must be an object");
  if (value.type === "button") {
    text(value, "label", path, E.buttonLabel, 1);
    const style = value.style ?? "primary";
    if (typeof style !== "string" || !BUTTON_STYLES.includes(style)) fail(`${path}.style`, `must be one of ${BUTTON_STYLES.join(", ")}`);
    if (style === "link") {
      if (!absent(value.custom_id)) fail(`${path}.custom_id`, "is not allowed on a link button");
      if (absent(value.url)) fail(`${path}.url`, "is required for a link button");
      url(value, "url", path);
    } else {
      if (!absent(value.url)) fail(`${path}.url`, "is allowed only on a link button");
      text(value, "custom_id", path, E.customId, 1);
    }
    if (!absent(value.emoji)) emoji(value.emoji, `${path}.emoji`);
  } else if (value.type === "string_select") {
    text(value, "custom_id", path, E.customId, 1);
    if (absent(value.options)) fail(`${path}.options`, "is required");
    const options = list(value, "options", path, E.selectOptions, "options");
    if (options.length === 0) fail(`${path}.options`, "must contain at least 1 option");
    const seen = new Set<string>();
    options.forEach((option, index) => {
      const at = `${path}.options.${index}`;
      if (!isRecord(option)) return fail(at, "must be an object");
      text(option, "label", at, E.optionLabel, 1);
      const optionValue = text(option, "value", at, E.optionValue, 1)!;
      if (seen.has(optionValue)) fail(`${at}.value`, "must be unique within the select");
      seen.add(optionValue);
      text(option, "description", at, E.optionDescription);
      if (!absent(option.emoji)) emoji(option.emoji, `${at}.emoji`);
    });
    text(value, "placeholder", path, E.placeholder);
    bounds(value, path, options.length);
  } else if (value.type === "channel_select") {
    text(value, "custom_id", path, E.customId, 1);
    text(value, "placeholder", path, E.placeholder);
    list(value, "channel_types", path, E.channelTypes, "entries").forEach((type, index) => {
      if (type !== "text" && type !== "voice") fail(`${path}.channel_types.${index}`, "must be one of text, voice");
    });
    bounds(value, path, null);
  } else if (absent(value.type)) {
    fail(`${path}.type`, "is required");
  } else {
    fail(`${path}.type`, "must be one of button, string_select, channel_select");
  }
}

function embed(value: unknown, path: string): void {
  if (!isRecord(value)) return fail(path, "must be an object");
  const title = text(value, "title", path, E.title);
  const description = text(value, "description", path, E.description);
  url(value, "url", path);
  if (!absent(value.color) && !(typeof value.color === "string" && /^#[0-9a-f]{6}$/i.test(value.color))) fail(`${path}.color`, "must be a hex color like #RRGGBB");
  const fields = list(value, "fields", path, E.fields, "fields");
  const texts: (string | undefined)[] = [title, description];
  fields.forEach((field, index) => {
    const at = `${path}.fields.${index}`;
    if (!isRecord(field)) return fail(at, "must be an object");
    texts.push(text(field, "name", at, E.fieldName, 1), text(field, "value", at, E.fieldValue, 1));
    if (!absent(field.inline) && typeof field.inline !== "boolean") fail(`${at}.inline`, "must be a boolean");
  });
  for (const key of ["thumbnail", "image"]) {
    if (!absent(value[key]) && typeof value[key] !== "string") fail(`${path}.${key}`, "must be a URL string");
    url(value, key, path);
  }
  if (!absent(value.footer)) {
    const at = `${path}.footer`;
    if (!isRecord(value.footer)) return fail(at, "must be an object");
    texts.push(text(value.footer, "text", at, E.footerText, 1));
    url(value.footer, "icon_url", at);
  }
  if (!absent(value.author)) {
    const at = `${path}.author`;
    if (!isRecord(value.author)) return fail(at, "must be an object");
    texts.push(text(value.author, "name", at, E.authorName, 1));
    url(value.author, "url", at);
    url(value.author, "icon_url", at);
  }
  if (!absent(value.timestamp) && (typeof value.timestamp !== "string" || Number.isNaN(Date.parse(value.timestamp)))) {
    fail(`${path}.timestamp`, "must be an ISO 8601 string");
  }
  const components = list(value, "components", path, E.componentsPerEmbed, "components");
  components.forEach((item, index) => component(item, `${path}.components.${index}`));
  const total = texts.reduce((sum, part) => sum + (part === undefined ? 0 : characters(part)), 0);
  if (total > E.totalCharacters) fail(path, `must have at most ${E.totalCharacters} characters in total (title, description, fields, footer, author)`);
  const shown = [title || undefined, description || undefined, fields.length ? fields : undefined, value.image, value.thumbnail, value.author, value.footer, components.length ? components : undefined];
  if (shown.every(absent)) fail(path, "must have at least one of title, description, fields, image, thumbnail, author, footer or components");
}

/** Throws a HearthLimitError naming the first field the server would refuse in these embeds. */
export function checkEmbeds(embeds: unknown): asserts embeds is S.Embed[] {
  if (absent(embeds)) return;
  if (!Array.isArray(embeds)) return fail("embeds", "must be an array");
  if (embeds.length > E.embedsPerMessage) fail("embeds", `must contain at most ${E.embedsPerMessage} embeds`);
  embeds.forEach((item, index) => embed(item, `embeds.${index}`));
  const firstUse = new Map<string, string>();
  embeds.forEach((item: Json, embedIndex) => {
    ((item.components ?? []) as Json[]).forEach((part, componentIndex) => {
      if (typeof part.custom_id !== "string") return;
      const at = `embeds.${embedIndex}.components.${componentIndex}`;
      const earlier = firstUse.get(part.custom_id);
      if (earlier !== undefined) fail(`${at}.custom_id`, `must be unique within the message (also used by ${earlier})`);
      firstUse.set(part.custom_id, at);
    });
  });
}

/** A message's content and embeds, as every send checks them. */
export function checkMessage(message: { content?: unknown; embeds?: unknown }, options: { edit?: boolean } = {}): void {
  const { content, embeds } = message;
  if (!absent(content)) {
    if (typeof content !== "string") fail("content", "must be a string");
    else if (content.length > LIMITS.message.contentLength) fail("content", `must be at most ${LIMITS.message.contentLength} characters`);
  }
  checkEmbeds(embeds);
  const hasEmbeds = Array.isArray(embeds) && embeds.length > 0;
  if (options.edit) {
    if (absent(content) && absent(embeds)) fail("", "A message edit needs content or embeds");
  } else if (!(typeof content === "string" && content.trim()) && !hasEmbeds) {
    fail("", "A message needs content or embeds");
  }
}
