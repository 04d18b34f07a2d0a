/**
 * Slash-command argument parsing: a pure module (no store, no HTTP).
 *
 * - `parseCommandInvocation` recognizes `/name ...` and strips the `--__bot` routing flag.
 * - `parseCommandArgs` maps the text after the name onto the command's option definitions
 *   (spec "Commands", rules 2-6) and produces the interaction's `options` and `args`.
 * - `normalizeOption` validates a registered option definition (spec "Command option").
 * - `rankCommands` is the client autocomplete order (rule 7), shared with clients and SDKs.
 *
 * Choices made where the spec is silent (docs/commands.md repeats them for users):
 * - A named STRING value that is not quoted runs to the next `--option` flag or the end of
 *   the text (`--reason being very rude`); every other named value is one word or one
 *   quoted string.
 * - Positional values fill the options not given by name, in definition order. When there
 *   are more words than those options, the last of them that is a STRING option takes the
 *   surplus words (so a last STRING option takes the rest of the text, and
 *   `<@u> being very rude 3` fills user, reason, days); with no STRING option left the
 *   extra value is an error ("Too many values: unexpected x").
 * - Quotes are `"..."` or `“...”`; single quotes are ordinary characters (apostrophes).
 * - A choice matches its value exactly, then its name or value ignoring case.
 * - A BOOLEAN flag without a value (`--silent` followed by another flag or the end) is true.
 * - An option given twice, an unknown `--flag` and a flag without a value are errors.
 * - The routing flag may appear several times; all are stripped and the first one routes.
 */
import { badRequest } from "../shared/errors.ts";
import { LIMITS } from "../shared/limits.ts";
import { normalizeDisplayName, NO_VISIBLE_CHARACTERS } from "../shared/display-name.ts";
import type { CommandOption } from "./command-option.ts";

export const OPTION_TYPES = {
  STRING: 3,
  INTEGER: 4,
  BOOLEAN: 5,
  USER: 6,
  CHANNEL: 7,
  ROLE: 8,
  MENTIONABLE: 9,
  NUMBER: 10,
} as const;


export type OptionValue = string | number | boolean;

type ParsedArgs =
  | { ok: true; options: Record<string, OptionValue>; args: string }
  | { ok: false; error: string };

/** Command and option names (spec Limits). */
export const COMMAND_NAME_RE = new RegExp(`^[\\w-]{1,${LIMITS.commandNameLength}}$`);
const ROUTING_FLAG = "__bot";

// ---------------------------------------------------------------------------------------
// Invocation and routing flag

/**
 * `--__bot <@id>`, `--__bot <@!id>`, `--__bot id`, `--__bot=<@id>`, or a bare `--__bot`,
 * together with the whitespace before it, even inside quotes. The flag name is matched
 * regardless of case.
 */
const ROUTING_FLAG_RE = /(^|\s+|(?<=["“]))--__bot(?:(?:\s+|=)(?:<@!?([^\s<>]+)>|(?!--)([^\s<>"“”]+)))?(?=\s|$|["”])/gi;

/** Removes every routing flag; the first one names the bot. */
function stripRoutingFlag(text: string): { text: string; routeTo: string | null } {
  let routeTo: string | null = null;
  const stripped = text.replace(ROUTING_FLAG_RE, (_match, _lead, mentioned?: string, raw?: string) => {
    routeTo ??= mentioned ?? raw ?? null;
    return "";
  });
  return { text: stripped, routeTo };
}

const INVOCATION_RE = new RegExp(`^/([\\w-]{1,${LIMITS.commandNameLength}})(?=\\s|$)`);

/**
 * Recognizes "/name ..." at the start of a message. `routeTo` is the bot user id of a
 * `--__bot <@id>` (or `--__bot id`) flag anywhere in the text; `cleaned` is the whole
 * content with that flag removed (what chat history stores); `args` is the text after the
 * name with the flag removed, trimmed. Null when the content is not a command invocation
 * (does not start with "/" followed by a valid command name). The name is lowercased.
 */
export function parseCommandInvocation(
  content: string,
): { name: string; args: string; routeTo: string | null; cleaned: string } | null {
  const match = INVOCATION_RE.exec(content);
  if (!match) return null;
  const name = match[1]!;
  const rest = content.slice(match[0].length);
  const { text, routeTo } = stripRoutingFlag(rest);
  const cleaned = `/${name}${text}`.trimEnd();
  return { name: name.toLowerCase(), args: text.trim(), routeTo: routeTo ? String(routeTo).toLowerCase() : null, cleaned };
}

// ---------------------------------------------------------------------------------------
// Tokenizer

interface Token {
  /** The token's text without surrounding quotes. */
  text: string;
  quoted: boolean;
  /** Lowercased option name when the token is an `--option` flag. */
  flag?: string;
  start: number;
  end: number;
}

const OPEN_QUOTES: Record<string, string> = { '"': '"', "“": "”" };
const FLAG_RE = new RegExp(`^--([\\w-]{1,${LIMITS.commandNameLength}})$`);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const close = OPEN_QUOTES[text[i]!];
    if (close !== undefined) {
      const end = text.indexOf(close, i + 1);
      if (end !== -1) {
        tokens.push({ text: text.slice(i + 1, end), quoted: true, start: i, end: end + 1 });
        i = end + 1;
        continue;
      }
      // An unmatched quote is an ordinary character.
    }
    let end = i;
    while (end < text.length && !/\s/.test(text[end]!)) end++;
    const word = text.slice(i, end);
    // `--name=value`: the flag, then the value tokenized from just after "=".
    const eq = word.indexOf("=");
    if (word.startsWith("--") && eq > 2 && FLAG_RE.test(word.slice(0, eq))) {
      tokens.push({ text: word.slice(0, eq), quoted: false, flag: word.slice(2, eq).toLowerCase(), start: i, end: i + eq });
      i = i + eq + 1;
      continue;
    }
    const flag = FLAG_RE.exec(word);
    tokens.push({ text: word, quoted: false, flag: flag ? flag[1]!.toLowerCase() : undefined, start: i, end });
    i = end;
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------
// Value conversion

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const RAW_ID_RE = new RegExp(`^(${UUID})$`);
const USER_MENTION_RE = new RegExp(`^<@!?(${UUID})>$`);
const ROLE_MENTION_RE = new RegExp(`^<@&(${UUID})>$`);
const CHANNEL_MENTION_RE = new RegExp(`^<#(${UUID})>$`);
const ANY_MENTION_RE = /<(?:@[!&]?|#)([^\s<>]+)>/g;

const TRUE_WORDS = new Set(["true", "1", "yes", "y", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "n", "off"]);
const INTEGER_RE = /^[-+]?\d+$/;
const NUMBER_RE = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;

const TYPE_NAMES: Record<number, string> = {
  [OPTION_TYPES.USER]: "a user mention or id",
  [OPTION_TYPES.CHANNEL]: "a channel mention or id",
  [OPTION_TYPES.ROLE]: "a role mention or id",
  [OPTION_TYPES.MENTIONABLE]: "a user or role mention or id",
};

function matchId(text: string, patterns: RegExp[]): string | null {
  for (const re of patterns) {
    const m = re.exec(text.trim());
    if (m) return m[1]!.toLowerCase();
  }
  return null;
}

function matchChoice(option: CommandOption, text: string): string | number | undefined {
  const choices = option.choices!;
  const exact = choices.find((c) => String(c.value) === text);
  if (exact) return exact.value;
  const lower = text.toLowerCase();
  return (
    choices.find((c) => c.name.toLowerCase() === lower) ?? choices.find((c) => String(c.value).toLowerCase() === lower)
  )?.value;
}

/** The typed value of one option, or a user-facing error. */
function convert(option: CommandOption, text: string): { value: OptionValue } | { error: string } {
  const label = `Option ${option.name}`;
  if (option.choices?.length) {
    const value = matchChoice(option, text.trim());
    if (value === undefined) return { error: `${label} must be one of: ${option.choices.map((c) => c.name).join(", ")}` };
    return { value };
  }
  switch (option.type) {
    case OPTION_TYPES.INTEGER:
    case OPTION_TYPES.NUMBER: {
      const trimmed = text.trim();
      const integer = option.type === OPTION_TYPES.INTEGER;
      const value = Number(trimmed);
      if (integer ? !INTEGER_RE.test(trimmed) || !Number.isSafeInteger(value) : !NUMBER_RE.test(trimmed) || !Number.isFinite(value)) {
        return { error: `${label} must be ${integer ? "an integer" : "a number"}` };
      }
      if (option.min_value !== undefined && value < option.min_value) return { error: `${label} must be at least ${option.min_value}` };
      if (option.max_value !== undefined && value > option.max_value) return { error: `${label} must be at most ${option.max_value}` };
      return { value };
    }
    case OPTION_TYPES.BOOLEAN: {
      const word = text.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return { value: true };
      if (FALSE_WORDS.has(word)) return { value: false };
      return { error: `${label} must be true or false` };
    }
    case OPTION_TYPES.USER:
    case OPTION_TYPES.CHANNEL:
    case OPTION_TYPES.ROLE:
    case OPTION_TYPES.MENTIONABLE: {
      const patterns =
        option.type === OPTION_TYPES.USER
          ? [USER_MENTION_RE, RAW_ID_RE]
          : option.type === OPTION_TYPES.CHANNEL
            ? [CHANNEL_MENTION_RE, RAW_ID_RE]
            : option.type === OPTION_TYPES.ROLE
              ? [ROLE_MENTION_RE, RAW_ID_RE]
              : [USER_MENTION_RE, ROLE_MENTION_RE, RAW_ID_RE];
      const id = matchId(text, patterns);
      return id ? { value: id } : { error: `${label} must be ${TYPE_NAMES[option.type]}` };
    }
    default: {
      const value = text.replace(ANY_MENTION_RE, (_m, id: string) => id);
      if (option.max_length !== undefined && value.length > option.max_length) {
        return { error: `${label} must be at most ${option.max_length} characters` };
      }
      return { value };
    }
  }
}

// ---------------------------------------------------------------------------------------
// Argument parsing

/** A token plus the stretch ("run") of the text it belongs to, to keep original spacing. */
interface RunToken extends Token {
  run: number;
}

/** One option's text: a single token loses its quotes, several tokens keep their raw text. */
function spanText(text: string, tokens: RunToken[]): string {
  if (tokens.length === 1) return tokens[0]!.text;
  const parts: string[] = [];
  let first = 0;
  for (let i = 1; i <= tokens.length; i++) {
    if (i === tokens.length || tokens[i]!.run !== tokens[i - 1]!.run) {
      parts.push(text.slice(tokens[first]!.start, tokens[i - 1]!.end));
      first = i;
    }
  }
  return parts.join(" ");
}

const isFlag = (t: Token | undefined): boolean => t !== undefined && t.flag !== undefined && !t.quoted;

/**
 * Parses `args` against the command's options (rules 2-6 of the spec). ok: options map
 * name -> typed value, and `args` = the positional normalized text (never containing
 * `--__bot` or `--option` flags; quotes stripped). With no option definitions:
 * options = {value: rawText}, args = rawText. Not ok: a user-facing error.
 */
export function parseCommandArgs(args: string, options: CommandOption[]): ParsedArgs {
  const text = stripRoutingFlag(args).text.trim();
  if (options.length === 0) return { ok: true, options: { value: text }, args: text };

  const byName = new Map(options.map((o) => [o.name.toLowerCase(), o]));
  const tokens = tokenize(text).map((t) => ({ ...t, run: 0 }));
  const given = new Map<string, RunToken[]>();
  const positional: RunToken[] = [];

  // A named option starts a new run, and the tokens after its value start another one.
  let run = 0;
  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i]!;
    token.run = run;
    if (!isFlag(token)) {
      positional.push(token);
      i++;
      continue;
    }
    if (token.flag === ROUTING_FLAG) {
      i++;
      continue;
    }
    const option = byName.get(token.flag!);
    if (!option) return { ok: false, error: `Unknown option: --${token.flag}` };
    if (given.has(option.name)) return { ok: false, error: `Option ${option.name} was given more than once` };
    run++;
    const next = tokens[i + 1];
    if (next === undefined || isFlag(next)) {
      if (option.type !== OPTION_TYPES.BOOLEAN) return { ok: false, error: `Option ${option.name} needs a value` };
      given.set(option.name, [{ text: "true", quoted: false, start: token.start, end: token.end, run }]);
      run++;
      i++;
      continue;
    }
    let last = i + 1;
    // An unquoted named STRING value runs to the next flag.
    if (option.type === OPTION_TYPES.STRING && !next.quoted) {
      while (last + 1 < tokens.length && !isFlag(tokens[last + 1])) last++;
    }
    const value = tokens.slice(i + 1, last + 1);
    for (const t of value) t.run = run;
    given.set(option.name, value);
    run++;
    i = last + 1;
  }

  // Positional values fill the options not given by name, in definition order. Surplus
  // words go to the last unfilled STRING option (the rest of the text when it is the last
  // option); the options after it take one value each from the end.
  const unfilled = options.filter((o) => !given.has(o.name));
  const surplus = positional.length - unfilled.length;
  let greedy = -1;
  if (surplus > 0) {
    greedy = unfilled.findLastIndex((o) => o.type === OPTION_TYPES.STRING);
    if (greedy === -1) {
      const extra = positional[unfilled.length]!;
      return { ok: false, error: `Too many values: unexpected ${extra.quoted ? `"${extra.text}"` : extra.text}` };
    }
  }
  let consumed = 0;
  for (let k = 0; k < unfilled.length && consumed < positional.length; k++) {
    const take = k === greedy ? surplus + 1 : 1;
    given.set(unfilled[k]!.name, positional.slice(consumed, consumed + take));
    consumed += take;
  }

  const result: Record<string, OptionValue> = {};
  const normalized: string[] = [];
  for (const option of options) {
    const span = given.get(option.name);
    if (!span) {
      if (option.required) return { ok: false, error: `Missing required option: ${option.name}` };
      continue;
    }
    const raw = spanText(text, span);
    const converted = convert(option, raw);
    if ("error" in converted) return { ok: false, error: converted.error };
    result[option.name] = converted.value;
    normalized.push(raw);
  }
  return { ok: true, options: result, args: normalized.join(" ") };
}

// ---------------------------------------------------------------------------------------
// Option definitions

const TYPE_ALIASES: Record<string, number> = {
  string: 3, str: 3, text: 3,
  integer: 4, int: 4,
  boolean: 5, bool: 5,
  user: 6, member: 6,
  channel: 7,
  role: 8,
  mentionable: 9,
  number: 10, float: 10, double: 10,
};
const TYPE_CODES = new Set<number>(Object.values(OPTION_TYPES));

/** A type code or alias; anything missing or unknown is STRING (spec "Command option"). */
function optionTypeCode(type: unknown): number {
  if (typeof type === "number") return TYPE_CODES.has(type) ? type : OPTION_TYPES.STRING;
  if (typeof type === "string") {
    const key = type.trim().toLowerCase();
    if (/^\d+$/.test(key)) return optionTypeCode(Number(key));
    return TYPE_ALIASES[key] ?? OPTION_TYPES.STRING;
  }
  return OPTION_TYPES.STRING;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isFiniteNumber = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const present = (x: unknown) => x !== undefined && x !== null;

/**
 * Normalizes a registered option definition per the Command option table. Throws
 * badRequest("options.<i>.<field>: ..."). Fields that do not apply to the type
 * (min/max outside INTEGER/NUMBER, max_length outside STRING, channel_types outside
 * CHANNEL) are dropped.
 */
export function normalizeOption(input: unknown, index: number): CommandOption {
  const at = (field?: string) => (field ? `options.${index}.${field}` : `options.${index}`);
  if (!isRecord(input)) throw badRequest(`${at()}: must be an object`);

  const { name } = input;
  if (typeof name !== "string") throw badRequest(`${at("name")}: is required`);
  if (!COMMAND_NAME_RE.test(name)) throw badRequest(`${at("name")}: must be 1-${LIMITS.commandNameLength} letters, digits, _ or -`);
  const lowered = name.toLowerCase();
  if (lowered === ROUTING_FLAG) throw badRequest(`${at("name")}: __bot is reserved`);

  const description = input.description ?? "";
  if (typeof description !== "string") throw badRequest(`${at("description")}: must be a string`);
  if (description.length > LIMITS.optionDescriptionLength) throw badRequest(`${at("description")}: must be at most ${LIMITS.optionDescriptionLength} characters`);

  const type = optionTypeCode(input.type);
  const required = input.required ?? false;
  if (typeof required !== "boolean") throw badRequest(`${at("required")}: must be a boolean`);

  const option: CommandOption = { name: lowered, description, type, required };

  if (present(input.choices)) {
    const choices = input.choices;
    if (!Array.isArray(choices)) throw badRequest(`${at("choices")}: must be an array`);
    if (choices.length > LIMITS.choicesPerOption) throw badRequest(`${at("choices")}: at most ${LIMITS.choicesPerOption} choices`);
    const normalized = choices.map((choice, k) => {
      const where = at(`choices.${k}`);
      if (!isRecord(choice)) throw badRequest(`${where}: must be an object`);
      // A choice's name is shown to the people picking it: a display name (docs/README.md#display-names).
      const name = typeof choice.name === "string" ? normalizeDisplayName(choice.name) : "";
      if (name === "" && typeof choice.name === "string" && choice.name.trim() !== "") throw badRequest(`${where}.name: ${NO_VISIBLE_CHARACTERS}`);
      if (name.length < 1 || name.length > LIMITS.bot.choiceNameLength) {
        throw badRequest(`${where}.name: must be 1-${LIMITS.bot.choiceNameLength} characters`);
      }
      const value = choice.value;
      if (!(typeof value === "string" && value.length <= LIMITS.bot.choiceValueLength) && !isFiniteNumber(value)) {
        throw badRequest(`${where}.value: must be a string (at most ${LIMITS.bot.choiceValueLength} characters) or a number`);
      }
      return { name, value };
    });
    if (normalized.length > 0) option.choices = normalized;
  }

  if (present(input.autocomplete) && input.autocomplete !== false) option.autocomplete = true;

  for (const field of ["min_value", "max_value"] as const) {
    const value = input[field];
    if (!present(value)) continue;
    if (!isFiniteNumber(value)) throw badRequest(`${at(field)}: must be a number`);
    if (type === OPTION_TYPES.INTEGER || type === OPTION_TYPES.NUMBER) option[field] = value;
  }
  if (option.min_value !== undefined && option.max_value !== undefined && option.min_value > option.max_value) {
    throw badRequest(`${at("min_value")}: must not exceed max_value`);
  }

  if (present(input.max_length)) {
    const value = input.max_length;
    if (!isFiniteNumber(value)) throw badRequest(`${at("max_length")}: must be a number`);
    if (type === OPTION_TYPES.STRING) {
      option.max_length = Math.min(LIMITS.stringOptionMaxLength, Math.max(LIMITS.bot.stringOptionMinLength, Math.floor(value)));
    }
  }

  if (present(input.channel_types)) {
    const types = input.channel_types;
    if (!Array.isArray(types) || !types.every(isFiniteNumber)) throw badRequest(`${at("channel_types")}: must be an array of numbers`);
    if (types.length > LIMITS.channelTypesPerOption) throw badRequest(`${at("channel_types")}: at most ${LIMITS.channelTypesPerOption} numbers`);
    if (type === OPTION_TYPES.CHANNEL) option.channel_types = [...types];
  }
  return option;
}

// ---------------------------------------------------------------------------------------
// Autocomplete ranking (rule 7)

/**
 * Client autocomplete order: exact name, then name prefix, then name contains, then
 * description contains; other commands are left out. Matching ignores case and a leading
 * "/". Within a tier, names sort alphabetically (then the input order). An empty query
 * lists every command alphabetically.
 */
export function rankCommands<T extends { name: string; description: string }>(query: string, commands: T[]): T[] {
  const q = query.trim().replace(/^\//, "").toLowerCase();
  const tier = (c: T): number => {
    if (!q) return 0;
    const name = c.name.toLowerCase();
    if (name === q) return 0;
    if (name.startsWith(q)) return 1;
    if (name.includes(q)) return 2;
    if (c.description.toLowerCase().includes(q)) return 3;
    return -1;
  };
  return commands
    .map((command, index) => ({ command, index, tier: tier(command) }))
    .filter((x) => x.tier >= 0)
    .sort((a, b) => a.tier - b.tier || compareText(a.command.name.toLowerCase(), b.command.name.toLowerCase()) || a.index - b.index)
    .map((x) => x.command);
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
