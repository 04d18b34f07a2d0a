/**
 * The composer's slash-command wire form (spec "Commands", rules 1-3): positional values in
 * option order, `--name value` for the options after the first one left empty, quotes around
 * values with spaces, and the routing flag `--__bot <@botUserId>` when several bots of the
 * server share the command's name. Pure: the composer and its tests use it.
 */
import type { CommandOption } from "./wire-types.ts";
import { OPTION_TYPES } from "./shared-rules.ts";


/** How the composer asks for an option's value. */
type OptionInput = "text" | "integer" | "number" | "boolean" | "user" | "channel" | "role" | "mentionable" | "choice";

/** Option names that make a STRING option a picker, as the spec's desktop client does. */
const INFERRED_BY_NAME: Record<string, OptionInput> = { user: "user", member: "user", channel: "channel", role: "role" };

/** The input an option gets: choices first, then its declared type, then a type inferred from its name. */
export function optionInput(option: Pick<CommandOption, "name" | "type" | "choices">): OptionInput {
  if (option.choices && option.choices.length > 0) return "choice";
  switch (option.type) {
    case OPTION_TYPES.INTEGER:
      return "integer";
    case OPTION_TYPES.NUMBER:
      return "number";
    case OPTION_TYPES.BOOLEAN:
      return "boolean";
    case OPTION_TYPES.USER:
      return "user";
    case OPTION_TYPES.CHANNEL:
      return "channel";
    case OPTION_TYPES.ROLE:
      return "role";
    case OPTION_TYPES.MENTIONABLE:
      return "mentionable";
    default:
      return INFERRED_BY_NAME[option.name.toLowerCase()] ?? "text";
  }
}

/** The first required option without a value, or null when every required one is filled. */
export function missingRequiredOption(options: CommandOption[], values: Record<string, string>): CommandOption | null {
  return options.find((option) => option.required && !(values[option.name] ?? "").trim()) ?? null;
}

const FLAG_WORD = /(^|\s)--[\w-]{1,32}(=|\s|$)/;

/**
 * One value as a token of the wire text. Values with spaces, values that would read as a
 * flag, and values that begin with a quote are quoted with `"..."`, or with `“...”` when the
 * value holds a `"`. `rest` marks the command's last option when it is a STRING: it takes the
 * rest of the text, so it needs no quotes unless it would read as a flag or be unquoted.
 */
export function wireToken(value: string, rest = false): string {
  const needsQuotes = /\s/.test(value) || FLAG_WORD.test(value) || /^["“]/.test(value) || value === "";
  if (!needsQuotes) return value;
  if (rest && !FLAG_WORD.test(value) && !/^["“]/.test(value)) return value;
  if (!value.includes('"')) return `"${value}"`;
  if (!value.includes("”")) return `“${value}”`;
  // Holds both kinds of closing quote: no quoting keeps it whole; send it as typed.
  return value;
}

/**
 * The message text that runs `/name` with `values` (option name -> the text typed or picked:
 * a mention for users, channels and roles, a choice's value). `botUserId` is given when
 * several bots of the server have a command of this name.
 */
export function buildCommandWire(name: string, options: CommandOption[], values: Record<string, string>, botUserId?: string | null): string {
  const parts = [`/${name}`];
  let positional = true;
  options.forEach((option, index) => {
    const value = (values[option.name] ?? "").trim();
    if (!value) {
      positional = false;
      return;
    }
    const isRest = positional && index === options.length - 1 && optionInput(option) === "text";
    const token = wireToken(value, isRest);
    parts.push(positional ? token : `--${option.name} ${token}`);
  });
  if (botUserId) parts.push(`--__bot <@${botUserId}>`);
  return parts.join(" ");
}

/** Several bots of the server registered a command with this name. */
export function sharesName(commands: { name: string; bot_id: string }[], name: string): boolean {
  const bots = new Set(commands.filter((c) => c.name === name).map((c) => c.bot_id));
  return bots.size > 1;
}
