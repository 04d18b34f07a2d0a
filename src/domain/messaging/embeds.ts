/**
 * Embed normalization (SPEC.md "Embed" and "Components"): every path that sends or edits a
 * message (user REST, bot REST, bot:send_message, interaction:response, webhooks) passes its
 * `embeds` through `normalizeEmbeds`, so what is stored and broadcast is always the spec's
 * format. Plain code rather than valibot: the lenient shapes and the cross-embed checks
 * (total length, unique custom_ids) read more simply as code. Notes: docs/embeds.md.
 *
 * Limits (lengths count Unicode code points, not UTF-16 units):
 *   embeds per message 10; title 256; description 4096; fields 25; field name 1-256;
 *   field value 1-1024; footer.text 1-2048; author.name 1-256; characters across one embed
 *   (title, description, field names and values, footer.text, author.name) 6000;
 *   URLs (url, image, thumbnail, icon_urls, author.url, link button url) http(s), <= 2048;
 *   components per embed 25; button label 1-80; custom_id 1-100; select options 1-25;
 *   option label/value 1-100; option description <= 100; placeholder <= 150; channel_types entries 10;
 *   min_values 0-25; max_values 1-25; emoji name 1-64, emoji id 1-64.
 */
import { badRequest } from "../shared/errors.ts";
import {
  BUTTON_STYLES,
  SELECT_CHANNEL_TYPES,
  type ActionButtonComponent,
  type ButtonComponent,
  type ChannelSelectComponent,
  type Component,
  type ComponentEmoji,
  type Embed,
  type EmbedField,
  type InteractiveComponent,
  type SelectOption,
  type StringSelectComponent,
} from "../shared/shapes.ts";
import { isUuid } from "../shared/validation.ts";
import { LIMITS } from "../shared/limits.ts";

/** The embed limits (docs/embeds.md), from the one table. */
export const EMBED_LIMITS = LIMITS.embed;

interface NormalizeEmbedsOptions {
  /** Webhook execution: also accept Discord-style shapes (see docs/embeds.md). */
  lenient: boolean;
}

type JsonObject = Record<string, unknown>;

const fail = (path: string, message: string): never => {
  throw badRequest(`${path}: ${message}`);
};

const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON clients often send null for an absent optional field; both mean "not given". */
const isAbsent = (value: unknown): value is undefined | null => value === undefined || value === null;

/** Length in code points, so an emoji counts as one character. */
const lengthOf = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

interface TextRule {
  min?: number;
  max: number;
}

function checkText(value: unknown, path: string, rule: TextRule): string {
  if (typeof value !== "string") return fail(path, "must be a string");
  const min = rule.min ?? 0;
  // Code points never outnumber UTF-16 units, so only a long string needs counting.
  if (value.length > rule.max && lengthOf(value) > rule.max) {
    fail(path, min > 0 ? `must be ${min}-${rule.max} characters` : `must be at most ${rule.max} characters`);
  }
  if (value.length < min) fail(path, `must be ${min}-${rule.max} characters`);
  return value;
}

function requiredText(obj: JsonObject, key: string, path: string, rule: TextRule): string {
  const value = obj[key];
  if (isAbsent(value)) return fail(`${path}.${key}`, "is required");
  return checkText(value, `${path}.${key}`, rule);
}

function optionalText(obj: JsonObject, key: string, path: string, rule: TextRule): string | undefined {
  const value = obj[key];
  return isAbsent(value) ? undefined : checkText(value, `${path}.${key}`, rule);
}

function checkUrl(value: unknown, path: string): string {
  if (typeof value !== "string") return fail(path, "must be a string");
  if (value.length > EMBED_LIMITS.url) fail(path, `must be at most ${EMBED_LIMITS.url} characters`);
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  // URL() trims surrounding whitespace; we store the string as given, so refuse it.
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.hostname || value !== value.trim()) {
    fail(path, "must be an http(s) URL");
  }
  return value;
}

function optionalUrl(obj: JsonObject, key: string, path: string): string | undefined {
  const value = obj[key];
  return isAbsent(value) ? undefined : checkUrl(value, `${path}.${key}`);
}

function optionalBoolean(obj: JsonObject, key: string, path: string): boolean | undefined {
  const value = obj[key];
  if (isAbsent(value)) return undefined;
  if (typeof value !== "boolean") fail(`${path}.${key}`, "must be a boolean");
  return value as boolean;
}

function optionalInteger(obj: JsonObject, key: string, path: string, min: number, max: number): number | undefined {
  const value = obj[key];
  if (isAbsent(value)) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail(`${path}.${key}`, `must be an integer ${min}-${max}`);
  }
  return value as number;
}

function record(value: unknown, path: string): JsonObject {
  if (!isRecord(value)) return fail(path, "must be an object");
  return value;
}

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

function normalizeColor(value: unknown, path: string, lenient: boolean): string {
  if (typeof value === "string" && HEX_COLOR.test(value)) return value.toUpperCase();
  if (lenient && typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffffff) {
    return `#${value.toString(16).padStart(6, "0").toUpperCase()}`;
  }
  return fail(path, lenient ? "must be a #RRGGBB string or an integer 0-16777215" : "must be a hex color like #RRGGBB");
}

/** Spec: a plain URL string. Webhooks may send Discord's `{url, ...}` object instead. */
function normalizeImage(value: unknown, path: string, lenient: boolean): string {
  if (lenient && isRecord(value)) {
    if (isAbsent(value.url)) fail(`${path}.url`, "is required");
    return checkUrl(value.url, `${path}.url`);
  }
  if (typeof value !== "string") fail(path, lenient ? "must be a URL string or an object with url" : "must be a URL string");
  return checkUrl(value, path);
}

/**
 * ISO 8601 date or date-time, built with Date.UTC rather than Date.parse so impossible dates
 * (Feb 30) are refused instead of rolled over and a time without an offset means UTC, not
 * the server's zone.
 */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

function parseIsoTimestamp(text: string): number | null {
  const m = ISO_DATE.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (m[9]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000 + millis - offsetMinutes * 60_000;
}

/** Numbers at or past this many seconds (year 5138) are almost surely milliseconds. */
const MAX_TIMESTAMP_SECONDS = 1e11;

function normalizeTimestamp(value: unknown, path: string, lenient: boolean): string {
  let ms: number | null = null;
  if (typeof value === "string") {
    ms = parseIsoTimestamp(value);
  } else if (lenient && typeof value === "number") {
    // Unix seconds, like every other time on this API (created_at, expires_at).
    if (!Number.isFinite(value)) fail(path, "must be an ISO 8601 string or unix seconds");
    if (Math.abs(value) >= MAX_TIMESTAMP_SECONDS) fail(path, "must be unix seconds, not milliseconds");
    ms = Math.round(value * 1000);
  } else {
    fail(path, lenient ? "must be an ISO 8601 string or unix seconds" : "must be an ISO 8601 string");
  }
  const date = ms === null ? null : new Date(ms);
  if (!date || Number.isNaN(date.getTime())) return fail(path, "must be a valid ISO 8601 date");
  return date.toISOString();
}

function normalizeEmoji(value: unknown, path: string): ComponentEmoji {
  const obj = record(value, path);
  const emoji: ComponentEmoji = { name: requiredText(obj, "name", path, { min: 1, max: EMBED_LIMITS.emojiName }) };
  const id = optionalText(obj, "id", path, { min: 1, max: EMBED_LIMITS.emojiId });
  if (id !== undefined) emoji.id = id;
  return emoji;
}

function normalizeField(value: unknown, path: string): EmbedField {
  const obj = record(value, path);
  const field: EmbedField = {
    name: requiredText(obj, "name", path, { min: 1, max: EMBED_LIMITS.fieldName }),
    value: requiredText(obj, "value", path, { min: 1, max: EMBED_LIMITS.fieldValue }),
  };
  const inline = optionalBoolean(obj, "inline", path);
  if (inline !== undefined) field.inline = inline;
  return field;
}

function optionalArray(obj: JsonObject, key: string, path: string, max: number, noun: string): unknown[] | undefined {
  const value = obj[key];
  if (isAbsent(value)) return undefined;
  if (!Array.isArray(value)) return fail(`${path}.${key}`, "must be an array");
  if (value.length > max) fail(`${path}.${key}`, `must contain at most ${max} ${noun}`);
  return value;
}

/** min_values/max_values, checked against each other and, for string selects, the option count. */
function selectBounds(obj: JsonObject, path: string, optionCount: number | null): { min_values?: number; max_values?: number } {
  const minValues = optionalInteger(obj, "min_values", path, 0, EMBED_LIMITS.selectValues);
  const maxValues = optionalInteger(obj, "max_values", path, 1, EMBED_LIMITS.selectValues);
  const effectiveMin = minValues ?? 1;
  const effectiveMax = maxValues ?? 1;
  if (effectiveMin > effectiveMax) fail(`${path}.min_values`, "must not exceed max_values");
  if (optionCount !== null && effectiveMax > optionCount) fail(`${path}.max_values`, "must not exceed the number of options");
  const bounds: { min_values?: number; max_values?: number } = {};
  if (minValues !== undefined) bounds.min_values = minValues;
  if (maxValues !== undefined) bounds.max_values = maxValues;
  return bounds;
}

function normalizeButton(obj: JsonObject, path: string): ButtonComponent {
  const label = requiredText(obj, "label", path, { min: 1, max: EMBED_LIMITS.buttonLabel });
  const style = isAbsent(obj.style) ? "primary" : obj.style;
  if (typeof style !== "string" || !(BUTTON_STYLES as readonly string[]).includes(style)) {
    return fail(`${path}.style`, `must be one of ${BUTTON_STYLES.join(", ")}`);
  }
  let button: ButtonComponent;
  if (style === "link") {
    if (!isAbsent(obj.custom_id)) fail(`${path}.custom_id`, "is not allowed on a link button");
    if (isAbsent(obj.url)) fail(`${path}.url`, "is required for a link button");
    button = { type: "button", label, style, url: checkUrl(obj.url, `${path}.url`) };
  } else {
    if (!isAbsent(obj.url)) fail(`${path}.url`, "is allowed only on a link button");
    const customId = requiredText(obj, "custom_id", path, { min: 1, max: EMBED_LIMITS.customId });
    button = { type: "button", label, style: style as ActionButtonComponent["style"], custom_id: customId };
  }
  if (!isAbsent(obj.emoji)) button.emoji = normalizeEmoji(obj.emoji, `${path}.emoji`);
  const disabled = optionalBoolean(obj, "disabled", path);
  if (disabled !== undefined) button.disabled = disabled;
  return button;
}

function normalizeStringSelect(obj: JsonObject, path: string): StringSelectComponent {
  const customId = requiredText(obj, "custom_id", path, { min: 1, max: EMBED_LIMITS.customId });
  if (isAbsent(obj.options)) return fail(`${path}.options`, "is required");
  const rawOptions = optionalArray(obj, "options", path, EMBED_LIMITS.selectOptions, "options")!;
  if (rawOptions.length === 0) fail(`${path}.options`, "must contain at least 1 option");
  const seen = new Set<string>();
  const options = rawOptions.map((raw, index): SelectOption => {
    const optionPath = `${path}.options.${index}`;
    const item = record(raw, optionPath);
    const option: SelectOption = {
      label: requiredText(item, "label", optionPath, { min: 1, max: EMBED_LIMITS.optionLabel }),
      value: requiredText(item, "value", optionPath, { min: 1, max: EMBED_LIMITS.optionValue }),
    };
    if (seen.has(option.value)) fail(`${optionPath}.value`, "must be unique within the select");
    seen.add(option.value);
    const description = optionalText(item, "description", optionPath, { max: EMBED_LIMITS.optionDescription });
    if (description !== undefined) option.description = description;
    if (!isAbsent(item.emoji)) option.emoji = normalizeEmoji(item.emoji, `${optionPath}.emoji`);
    const isDefault = optionalBoolean(item, "default", optionPath);
    if (isDefault !== undefined) option.default = isDefault;
    return option;
  });
  const select: StringSelectComponent = { type: "string_select", custom_id: customId, options };
  const placeholder = optionalText(obj, "placeholder", path, { max: EMBED_LIMITS.placeholder });
  if (placeholder !== undefined) select.placeholder = placeholder;
  return { ...select, ...selectBounds(obj, path, options.length) };
}

function normalizeChannelSelect(obj: JsonObject, path: string): ChannelSelectComponent {
  const select: ChannelSelectComponent = {
    type: "channel_select",
    custom_id: requiredText(obj, "custom_id", path, { min: 1, max: EMBED_LIMITS.customId }),
  };
  const placeholder = optionalText(obj, "placeholder", path, { max: EMBED_LIMITS.placeholder });
  if (placeholder !== undefined) select.placeholder = placeholder;
  const rawTypes = optionalArray(obj, "channel_types", path, EMBED_LIMITS.channelTypes, "entries");
  if (rawTypes !== undefined) {
    rawTypes.forEach((type, index) => {
      if (typeof type !== "string" || !(SELECT_CHANNEL_TYPES as readonly string[]).includes(type)) {
        fail(`${path}.channel_types.${index}`, `must be one of ${SELECT_CHANNEL_TYPES.join(", ")}`);
      }
    });
    // Duplicates carry no meaning; an empty list means "any type", the same as leaving it out.
    const types = SELECT_CHANNEL_TYPES.filter((type) => rawTypes.includes(type));
    if (types.length > 0) select.channel_types = types;
  }
  return { ...select, ...selectBounds(obj, path, null) };
}

const COMPONENT_TYPES = ["button", "string_select", "channel_select"] as const;

function normalizeComponent(value: unknown, path: string): Component {
  const obj = record(value, path);
  switch (obj.type) {
    case "button":
      return normalizeButton(obj, path);
    case "string_select":
      return normalizeStringSelect(obj, path);
    case "channel_select":
      return normalizeChannelSelect(obj, path);
    default:
      if (isAbsent(obj.type)) return fail(`${path}.type`, "is required");
      return fail(`${path}.type`, `must be one of ${COMPONENT_TYPES.join(", ")}`);
  }
}

/** The text a reader sees (Discord's definition of an embed's size), in code points. */
function totalCharacters(embed: Embed): number {
  const texts = [embed.title, embed.description, embed.footer?.text, embed.author?.name];
  for (const field of embed.fields ?? []) texts.push(field.name, field.value);
  const units = texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
  if (units <= EMBED_LIMITS.totalCharacters) return units;
  return texts.reduce((sum, text) => sum + (text === undefined ? 0 : lengthOf(text)), 0);
}

function normalizeEmbed(value: unknown, path: string, lenient: boolean): Embed {
  const obj = record(value, path);
  const embed: Embed = {};
  // An empty title or description shows nothing, so it counts as absent.
  const title = optionalText(obj, "title", path, { max: EMBED_LIMITS.title });
  if (title) embed.title = title;
  const description = optionalText(obj, "description", path, { max: EMBED_LIMITS.description });
  if (description) embed.description = description;
  const url = optionalUrl(obj, "url", path);
  if (url !== undefined) embed.url = url;
  if (!isAbsent(obj.color)) embed.color = normalizeColor(obj.color, `${path}.color`, lenient);

  const rawFields = optionalArray(obj, "fields", path, EMBED_LIMITS.fields, "fields");
  if (rawFields && rawFields.length > 0) {
    embed.fields = rawFields.map((field, index) => normalizeField(field, `${path}.fields.${index}`));
  }
  if (!isAbsent(obj.thumbnail)) embed.thumbnail = normalizeImage(obj.thumbnail, `${path}.thumbnail`, lenient);
  if (!isAbsent(obj.image)) embed.image = normalizeImage(obj.image, `${path}.image`, lenient);

  if (!isAbsent(obj.footer)) {
    const footerPath = `${path}.footer`;
    const footer = record(obj.footer, footerPath);
    embed.footer = { text: requiredText(footer, "text", footerPath, { min: 1, max: EMBED_LIMITS.footerText }) };
    const iconUrl = optionalUrl(footer, "icon_url", footerPath);
    if (iconUrl !== undefined) embed.footer.icon_url = iconUrl;
  }
  if (!isAbsent(obj.author)) {
    const authorPath = `${path}.author`;
    const author = record(obj.author, authorPath);
    embed.author = { name: requiredText(author, "name", authorPath, { min: 1, max: EMBED_LIMITS.authorName }) };
    const authorUrl = optionalUrl(author, "url", authorPath);
    if (authorUrl !== undefined) embed.author.url = authorUrl;
    const iconUrl = optionalUrl(author, "icon_url", authorPath);
    if (iconUrl !== undefined) embed.author.icon_url = iconUrl;
  }
  if (!isAbsent(obj.timestamp)) embed.timestamp = normalizeTimestamp(obj.timestamp, `${path}.timestamp`, lenient);

  const rawComponents = optionalArray(obj, "components", path, EMBED_LIMITS.componentsPerEmbed, "components");
  if (rawComponents && rawComponents.length > 0) {
    embed.components = rawComponents.map((component, index) => normalizeComponent(component, `${path}.components.${index}`));
  }

  if (totalCharacters(embed) > EMBED_LIMITS.totalCharacters) {
    fail(path, `must have at most ${EMBED_LIMITS.totalCharacters} characters in total (title, description, fields, footer, author)`);
  }

  const shown = [embed.title, embed.description, embed.fields, embed.image, embed.thumbnail, embed.author, embed.footer, embed.components];
  if (shown.every((part) => part === undefined)) {
    fail(path, "must have at least one of title, description, fields, image, thumbnail, author, footer or components");
  }
  return embed;
}

/**
 * Validates a message's `embeds` and returns them in the spec's format, or throws a 400 naming
 * the first bad field (`embeds.0.fields.2.value: ...`). Absent (undefined or null) is `[]`.
 * `lenient` (webhook execution) also takes image/thumbnail `{url}`, integer color and a
 * unix-seconds timestamp. custom_ids must be unique across all the message's embeds.
 */
export function normalizeEmbeds(input: unknown, options: NormalizeEmbedsOptions): Embed[] {
  if (isAbsent(input)) return [];
  if (!Array.isArray(input)) return fail("embeds", "must be an array");
  if (input.length > EMBED_LIMITS.embedsPerMessage) {
    fail("embeds", `must contain at most ${EMBED_LIMITS.embedsPerMessage} embeds`);
  }
  const embeds = input.map((embed, index) => normalizeEmbed(embed, `embeds.${index}`, options.lenient));

  // Presses are routed by custom_id, so one must name exactly one component in the message.
  const firstUse = new Map<string, string>();
  embeds.forEach((embed, embedIndex) => {
    embed.components?.forEach((component, componentIndex) => {
      if (!("custom_id" in component)) return;
      const path = `embeds.${embedIndex}.components.${componentIndex}`;
      const earlier = firstUse.get(component.custom_id);
      if (earlier !== undefined) fail(`${path}.custom_id`, `must be unique within the message (also used by ${earlier})`);
      firstUse.set(component.custom_id, path);
    });
  });
  return embeds;
}

/** The pressable component with this custom_id in a message's embeds, or null. */
export function findComponent(embeds: readonly Embed[], customId: string): InteractiveComponent | null {
  for (const embed of embeds) {
    for (const component of embed.components ?? []) {
      if ("custom_id" in component && component.custom_id === customId) return component;
    }
  }
  return null;
}

function checkValueList(values: unknown, bounds: { min_values?: number; max_values?: number }): string[] {
  if (!Array.isArray(values)) return fail("values", "must be an array");
  const min = bounds.min_values ?? 1;
  const max = bounds.max_values ?? 1;
  if (values.length < min || values.length > max) {
    fail("values", min === max ? `must contain exactly ${min} value${min === 1 ? "" : "s"}` : `must contain ${min}-${max} values`);
  }
  values.forEach((value, index) => {
    if (typeof value !== "string") fail(`values.${index}`, "must be a string");
  });
  if (new Set(values).size !== values.length) fail("values", "must not contain duplicates");
  return values as string[];
}

/**
 * Checks the values of a `message:component` press against the pressed component and returns
 * them: a string select takes option values within min/max (default 1..1), a channel select
 * takes channel UUIDs within min/max (default 1..1) (whether each channel exists and is of an
 * allowed type is for the caller, which has the store), a button takes none and must not be
 * disabled.
 */
export function validateComponentValues(component: Component, values: unknown): string[] {
  switch (component.type) {
    case "button":
      if (component.style === "link") fail("custom_id", "link buttons are opened by the client, not pressed");
      if (component.disabled) fail("custom_id", "this button is disabled");
      if (!isAbsent(values) && !(Array.isArray(values) && values.length === 0)) fail("values", "a button takes no values");
      return [];
    case "string_select": {
      const list = checkValueList(values, component);
      const allowed = new Set(component.options.map((option) => option.value));
      list.forEach((value, index) => {
        if (!allowed.has(value)) fail(`values.${index}`, "must be one of the select's option values");
      });
      return list;
    }
    case "channel_select": {
      const list = checkValueList(values, component);
      list.forEach((value, index) => {
        if (!isUuid(value)) fail(`values.${index}`, "must be a channel id (UUID)");
      });
      return list;
    }
  }
}
